"""What the engine knows about each language: image, file names, compile and run commands."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from judge_service.sandbox.models import TestMode

BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp",
}


@dataclass(frozen=True)
class LanguageSpec:
    """One language's toolchain; ``{memory_mb}`` in a run argument is filled per job."""

    name: str
    source_name: str
    run_argv: tuple[str, ...]
    compile_argv: tuple[str, ...] = ()
    artifacts: tuple[str, ...] = ()
    modes: frozenset[TestMode] = frozenset({TestMode.STDIN})
    harness_argv: tuple[str, ...] = ()
    use_zygote: bool = False
    # Runtimes that reserve memory of their own (JVM, V8) get this much RSS above the limit.
    rss_allowance_mb: int = 0
    mle_markers: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    # Other names clients use for it: code-fence labels (```py), SandboxFusion's (nodejs).
    aliases: frozenset[str] = frozenset()
    # For people (the README's table): the language's name and its toolchain's version.
    title: str = ""
    version: str = ""
    # The image's directory under sandbox_images/ (default: the name); variants share one.
    image: str = ""

    @property
    def image_name(self) -> str:
        return self.image or self.name

    @property
    def compiled(self) -> bool:
        return bool(self.compile_argv)

    def environment(self) -> dict[str, str]:
        return {**BASE_ENV, **self.env}

    def source_file(self, code: str) -> str:
        if self.image_name == "java":
            return java_class_name(code) + ".java"
        return self.source_name

    def main_argv(self, code: str, memory_mb: int) -> list[str]:
        values = {"memory_mb": str(memory_mb), "main_class": java_class_name(code)}
        return [part.format(**values) for part in self.run_argv]

    def compile_command(self, code: str) -> list[str]:
        return [part.format(source=self.source_file(code)) for part in self.compile_argv]


_JAVA_PUBLIC_CLASS = re.compile(r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)")
_JAVA_CLASS = re.compile(r"class\s+([A-Za-z_$][\w$]*)")
_JAVA_CLASS_WORD = re.compile(r"\bclass\b")
_JAVA_MAIN = re.compile(r"static\s+void\s+main\s*\(")


def java_class_name(code: str) -> str:
    """The class javac needs in a file of its own name: the public one, else the one with main."""
    public = _JAVA_PUBLIC_CLASS.search(code)
    if public is not None:
        return public[1]
    return _main_class(code) or "Main"


def _main_class(code: str) -> str | None:
    """The first class declaration whose body, up to the next ``class`` keyword, declares
    ``static void main(``. Each search starts where the last one stopped, so the source is read
    in linear time (one pattern over it all took 5 s on "class " + "a" * 80000, holding the GIL)."""
    brace = main = word = -1  # the first "{", main and class keyword found past a point
    for declared in _JAVA_CLASS.finditer(code):
        if declared.end() > brace:
            brace = code.find("{", declared.end())
            if brace < 0:
                return None
        if main <= brace:
            found = _JAVA_MAIN.search(code, brace + 1)
            if found is None:
                return None
            main = found.start()
        if word <= brace:
            found = _JAVA_CLASS_WORD.search(code, brace + 1)
            word = len(code) if found is None else found.start()
        if main < word:
            return declared[1]
    return None


_NODE_RUN = ("/usr/bin/node", "--max-old-space-size={memory_mb}", "--stack-size=65500")
# Python without the 4,300-digit int/str conversion limit (big-integer problems are common);
# the zygote also lifts it in-process, so a program cannot depend on its environment for it.
_PYTHON_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONINTMAXSTRDIGITS": "0",
}


def _cpp(name: str, std: str, version: str, aliases: frozenset[str] = frozenset()) -> LanguageSpec:
    """g++ at one standard: cpp (the default, whose options built the image's precompiled
    ``bits/stdc++.h``) and its variants, all from the cpp image. libcrypto (OpenSSL's MD5,
    SHA) is linked only when the program uses it (``--as-needed``)."""
    return LanguageSpec(
        name=name,
        title="C++",
        version=version,
        image="cpp",
        aliases=aliases,
        source_name="main.cpp",
        compile_argv=(
            "/usr/bin/g++",
            "-O2",
            f"-std={std}",
            "-pipe",
            "-o",
            "main",
            "{source}",
            "-Wl,--as-needed",
            "-lcrypto",
            "-lm",
        ),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("std::bad_alloc",),
    )


def _rust(name: str, edition: str, aliases: frozenset[str] = frozenset()) -> LanguageSpec:
    return LanguageSpec(
        name=name,
        title="Rust",
        version=f"1.85, edition {edition}",
        image="rust",
        aliases=aliases,
        source_name="main.rs",
        compile_argv=("/usr/bin/rustc", "-O", "--edition", edition, "-o", "main", "{source}"),
        artifacts=("main",),
        run_argv=("/work/main",),
    )


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            name="python",
            title="Python",
            version="3.13",
            aliases=frozenset({"py", "python3"}),
            source_name="main.py",
            run_argv=("/usr/bin/python3", "main.py"),
            modes=frozenset(TestMode),
            use_zygote=True,
            mle_markers=("MemoryError",),
            env={**_PYTHON_ENV, "OPENBLAS_NUM_THREADS": "1"},
        ),
        _cpp("cpp", "gnu++20", "GCC 14, GNU C++20", frozenset({"c++", "cc", "cxx", "cpp20"})),
        _cpp("cpp17", "gnu++17", "GCC 14, GNU C++17", frozenset({"c++17"})),
        _cpp("cpp23", "gnu++23", "GCC 14, GNU C++23", frozenset({"c++23"})),
        LanguageSpec(
            name="c",
            title="C",
            version="GCC 14, GNU C11",
            source_name="main.c",
            compile_argv=(
                "/usr/bin/gcc",
                "-O2",
                "-std=gnu11",
                "-pipe",
                "-o",
                "main",
                "{source}",
                "-lm",
            ),
            artifacts=("main",),
            run_argv=("/work/main",),
        ),
        LanguageSpec(
            name="java",
            title="Java",
            version="OpenJDK 21",
            source_name="Main.java",
            compile_argv=(
                "/usr/bin/javac",
                "-J-Xmx512m",
                "-J-XX:+UseSerialGC",
                "-encoding",
                "UTF-8",
                "-d",
                ".",
                "{source}",
            ),
            artifacts=("*.class",),
            run_argv=(
                "/usr/bin/java",
                # Assertions are off by default; off, an assert-based test accepts any answer.
                "-ea",
                "-Xmx{memory_mb}m",
                "-Xss64m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-cp",
                "/work",
                "{main_class}",
            ),
            rss_allowance_mb=96,
            mle_markers=("java.lang.OutOfMemoryError",),
        ),
        LanguageSpec(
            name="javascript",
            title="JavaScript",
            version="Node 20",
            aliases=frozenset({"js", "node", "nodejs"}),
            source_name="main.js",
            compile_argv=("/usr/bin/node", "--check", "{source}"),
            run_argv=(*_NODE_RUN, "main.js"),
            harness_argv=("/opt/judge/node-runner", *_NODE_RUN[1:], "/opt/judge/harness.js"),
            modes=frozenset(TestMode),
            rss_allowance_mb=64,
            mle_markers=("JavaScript heap out of memory",),
            # The npm packages installed in the image (sandbox_images/javascript/Dockerfile).
            env={"NODE_PATH": "/usr/local/lib/node_modules"},
        ),
        LanguageSpec(
            name="go",
            title="Go",
            version="1.24",
            aliases=frozenset({"golang"}),
            source_name="main.go",
            # The image's precompiled standard library, linked into this compile's cache;
            # trim.txt says the cache was just trimmed, so go never prunes the links by age.
            compile_argv=(
                "/bin/sh",
                "-c",
                "mkdir -p $GOCACHE && cp -rs /opt/judge/go-cache/. $GOCACHE/"
                ' && date +%s > $GOCACHE/trim.txt && exec /usr/bin/go build -o main "$1"',
                "go",
                "{source}",
            ),
            artifacts=("main",),
            run_argv=("/work/main",),
            env={
                "GOCACHE": "/tmp/go-cache",
                "GOPATH": "/tmp/go",
                "CGO_ENABLED": "0",
                "GO111MODULE": "off",
                "GOTOOLCHAIN": "local",
                "XDG_CONFIG_HOME": "/opt/judge/go-config",
            },
        ),
        _rust("rust", "2021", frozenset({"rs", "rust2021"})),
        _rust("rust2024", "2024"),
        LanguageSpec(
            name="pypy",
            title="PyPy",
            version="7.3.19 (Python 3.11)",
            aliases=frozenset({"pypy3"}),
            source_name="main.py",
            # A syntax error is CE, as in CPython's zygote, not a runtime error on every test.
            compile_argv=(
                "/usr/bin/pypy3",
                "-c",
                "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                "{source}",
            ),
            run_argv=("/usr/bin/pypy3", "main.py"),
            rss_allowance_mb=32,
            mle_markers=("MemoryError",),
            env=_PYTHON_ENV,
        ),
    )
}


_BY_NAME = {label: spec.name for spec in LANGUAGES.values() for label in {spec.name, *spec.aliases}}


def canonical_language(name: str) -> str | None:
    """The language ``name`` means (its own name or an alias, any case), or None."""
    return _BY_NAME.get(name.strip().lower())


def language_labels(name: str) -> frozenset[str]:
    """Every name of the language ``name`` means (for matching code-fence labels)."""
    language = canonical_language(name)
    if language is None:
        return frozenset({name.strip().lower()})
    return frozenset({language, *LANGUAGES[language].aliases})
