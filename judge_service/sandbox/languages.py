"""The language table: what the engine, the image builder, the compatibility endpoints and the
README (``scripts/language_table.py``) know about each language: names, versions, images, file
names, compile and run commands. The first seven are here; the rest in ``_more_languages``."""

from __future__ import annotations

from judge_service.sandbox._more_languages import MORE_LANGUAGES
from judge_service.sandbox._spec import BASE_ENV, LanguageSpec, java_class_name
from judge_service.sandbox.models import TestMode

__all__ = [
    "BASE_ENV",
    "LANGUAGES",
    "LanguageSpec",
    "canonical_language",
    "java_class_name",
    "language_labels",
]

_NODE_RUN = ("/usr/bin/node", "--max-old-space-size={memory_mb}", "--stack-size=65500")

LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            name="python",
            title="Python",
            version="3.11",
            sandbox_fusion="python",
            aliases=frozenset({"py", "python3"}),
            source_name="main.py",
            run_argv=("/usr/bin/python3", "main.py"),
            modes=frozenset(TestMode),
            use_zygote=True,
            mle_markers=("MemoryError",),
            env={
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONIOENCODING": "utf-8",
                "OPENBLAS_NUM_THREADS": "1",
            },
        ),
        LanguageSpec(
            name="cpp",
            title="C++",
            version="GCC 12, C++17",
            sandbox_fusion="cpp",
            aliases=frozenset({"c++", "cc", "cxx"}),
            source_name="main.cpp",
            compile_argv=(
                "/usr/bin/g++",
                "-O2",
                "-std=c++17",
                "-pipe",
                "-o",
                "main",
                "{source}",
                "-lm",
            ),
            artifacts=("main",),
            run_argv=("/work/main",),
            mle_markers=("std::bad_alloc",),
        ),
        LanguageSpec(
            name="c",
            title="C",
            version="GCC 12, GNU C11",
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
            version="OpenJDK 17",
            sandbox_fusion="java",
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
            version="Node 18",
            sandbox_fusion="nodejs",
            aliases=frozenset({"js", "node", "nodejs"}),
            source_name="main.js",
            compile_argv=("/usr/bin/node", "--check", "{source}"),
            run_argv=(*_NODE_RUN, "main.js"),
            harness_argv=("/opt/judge/node-runner", *_NODE_RUN[1:], "/opt/judge/harness.js"),
            modes=frozenset(TestMode),
            rss_allowance_mb=64,
            mle_markers=("JavaScript heap out of memory",),
        ),
        LanguageSpec(
            name="go",
            title="Go",
            version="1.19",
            sandbox_fusion="go",
            aliases=frozenset({"golang"}),
            source_name="main.go",
            compile_argv=("/usr/bin/go", "build", "-o", "main", "{source}"),
            artifacts=("main",),
            run_argv=("/work/main",),
            env={
                "GOCACHE": "/tmp/go-cache",
                "GOPATH": "/tmp/go",
                "CGO_ENABLED": "0",
                "GO111MODULE": "off",
                "GOTOOLCHAIN": "local",
            },
        ),
        LanguageSpec(
            name="rust",
            title="Rust",
            version="1.63, edition 2021",
            sandbox_fusion="rust",
            aliases=frozenset({"rs"}),
            source_name="main.rs",
            compile_argv=("/usr/bin/rustc", "-O", "--edition", "2021", "-o", "main", "{source}"),
            artifacts=("main",),
            run_argv=("/work/main",),
        ),
        *MORE_LANGUAGES,
    )
}


def _labels(spec: LanguageSpec) -> set[str]:
    named = {spec.name, *spec.aliases}
    if spec.sandbox_fusion:
        named.add(spec.sandbox_fusion.lower())
    return named


_BY_NAME = {label: spec.name for spec in LANGUAGES.values() for label in _labels(spec)}


def canonical_language(name: str) -> str | None:
    """The language ``name`` means (its own name or an alias, any case), or None."""
    return _BY_NAME.get(name.strip().lower())


def language_labels(name: str) -> frozenset[str]:
    """Every name of the language ``name`` means (for matching code-fence labels)."""
    language = canonical_language(name)
    if language is None:
        return frozenset({name.strip().lower()})
    return frozenset(_labels(LANGUAGES[language]))
