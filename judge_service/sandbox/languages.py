"""The language table: what the engine, the image builder, the compatibility endpoints and the
README (``scripts/language_table.py``) know about each language: names, versions, images, file
names, compile and run commands. The first seven are here; the rest in ``_more_languages``."""

from __future__ import annotations

import signal

from judge_service.sandbox._framework_languages import (
    JAVATUPLES_JAR,
    JEST,
    JUNIT,
    JVM_RUN_OPTIONS,
    javac_argv,
)
from judge_service.sandbox._more_languages import MORE_LANGUAGES, NODE_PATH, NODE_RUN
from judge_service.sandbox._preludes import CPP_PRELUDES
from judge_service.sandbox._spec import (
    BASE_ENV,
    MAX_RUNTIME_STACK_KB,
    LanguageSpec,
    java_class_name,
)
from judge_service.sandbox.models import TestMode

__all__ = [
    "BASE_ENV",
    "LANGUAGES",
    "LanguageSpec",
    "canonical_language",
    "java_class_name",
    "language_labels",
]

# Python without the 4,300-digit int/str conversion limit (big-integer problems are common);
# the zygote also lifts it in-process, so a program cannot depend on its environment for it.
_PYTHON_ENV = {
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONINTMAXSTRDIGITS": "0",
}

# mold links a small program in about 40 ms where ld.bfd takes about 140 (bench/RESULTS.md):
# what C++20's larger headers added to a HumanEval-style compile. In the foreground and on one
# thread, so the link is one process the compile's limits and accounting see whole.
_MOLD = ("-fuse-ld=mold", "-Wl,--no-fork,--no-threads")


def _cpp(
    name: str,
    std: str,
    version: str,
    aliases: frozenset[str] = frozenset(),
    sandbox_fusion: str | None = None,
    test_suite: bool = False,
    preludes: tuple[tuple[str, ...], ...] = (),
) -> LanguageSpec:
    """g++ at one standard: cpp (the default, whose options built the image's precompiled
    ``bits/stdc++.h``) and its variants, all from the cpp image. libcrypto (OpenSSL's MD5,
    SHA) is linked only when the program uses it (``--as-needed``). ``test_suite``: a GoogleTest
    suite, with gtest_main's main() unless the program has its own. ``preludes``: the header
    sets the image precompiled with these options (see _preludes)."""
    gtest = ("-lgtest_main", "-lgtest") if test_suite else ()
    return LanguageSpec(
        name=name,
        title="C++ GoogleTest suite" if test_suite else "C++",
        version=version,
        image="cpp",
        aliases=aliases,
        sandbox_fusion=sandbox_fusion,
        source_name="main.cpp",
        compile_argv=(
            "/usr/bin/g++",
            "-O2",
            f"-std={std}",
            "-pipe",
            "-o",
            "main",
            "{source}",
            *gtest,
            *_MOLD,
            "-Wl,--as-needed",
            "-lcrypto",
            "-lm",
        ),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("std::bad_alloc",),
        # RUN_ALL_TESTS's status when a test failed.
        suite_failure_exit=1 if test_suite else None,
        # MultiPL-E's C++ tests assert(): a failed one aborts.
        assert_failure_exit=None if test_suite else -signal.SIGABRT,
        assertion=(
            "EXPECT_*, ASSERT_*: a failed test, exit 1"
            if test_suite
            else "assert() (no NDEBUG): abort, SIGABRT"
        ),
        preludes=preludes,
    )


# Without debug information, as cargo's release profile (panics keep their file and line, a
# backtrace its function names): std's would make a program 11 MB instead of 0.5, and every
# job of a cached program carries its binary into the sandbox.
_RUST_STRIP = ("-C", "strip=debuginfo")

# The crates the rust image compiled once (sandbox_images/rust/Dockerfile): a program links the
# ones it uses (rustc loads an --extern crate only when the program names it).
_RUST_CRATES = "/opt/judge/rust-crates"


def _rust(
    name: str,
    edition: str,
    aliases: frozenset[str] = frozenset(),
    sandbox_fusion: str | None = None,
    test_suite: bool = False,
) -> LanguageSpec:
    """rustc at one edition, with rand 0.8, regex 1 and md5 0.7. ``test_suite``: the program's
    ``#[test]`` functions are the suite (``rustc --test``, as ``cargo test``), with rand under
    rand 0.4's calling convention, which HumanEval-X's Rust tests were written for."""
    rand = f"{_RUST_CRATES}/rand04/librand.rlib" if test_suite else f"{_RUST_CRATES}/librand.rlib"
    return LanguageSpec(
        name=name,
        title="Rust test suite (#[test], rand 0.4 API)" if test_suite else "Rust",
        version=f"1.85, edition {edition}",
        image="rust",
        aliases=aliases,
        sandbox_fusion=sandbox_fusion,
        source_name="main.rs",
        compile_argv=(
            "/usr/bin/rustc",
            "-O",
            *_RUST_STRIP,
            "--edition",
            edition,
            *(("--test",) if test_suite else ()),
            "-L",
            f"dependency={_RUST_CRATES}/deps",
            "--extern",
            f"rand={rand}",
            "--extern",
            f"regex={_RUST_CRATES}/libregex.rlib",
            "--extern",
            f"md5={_RUST_CRATES}/libmd5.rlib",
            "-o",
            "main",
            "{source}",
        ),
        artifacts=("main",),
        # One test thread: the suite's CPU time is its tests', one after another.
        run_argv=("/work/main", "--test-threads=1") if test_suite else ("/work/main",),
        # libtest's exit status when a test failed (a failed assert_eq! is a panic it catches).
        suite_failure_exit=101 if test_suite else None,
        # MultiPL-E's Rust tests assert! in main: a panic exits 101.
        assert_failure_exit=None if test_suite else 101,
        # debug_assert! is off under -O, as in cargo's release profile.
        assertion=(
            "assert!, assert_eq! in a #[test]: a failed test, exit 101"
            if test_suite
            else "assert!, assert_eq!: a panic, exit 101"
        ),
    )


# GOPATH mode (no module proxy is reachable): Debian's Go libraries (testify) are GOPATH
# sources under /usr/share/gocode. One P (GOMAXPROCS=1): the verdict counts every thread's CPU
# time, other sandboxes share the cores, and a runtime with one P starts in about 0.2 ms less
# CPU (bench/RESULTS.md); as Go 1.25 sets it itself from a container's CPU limit.
_GO_ENV = {
    "GOMAXPROCS": "1",
    "GOCACHE": "/tmp/go-cache",
    "GOPATH": "/tmp/go:/usr/share/gocode",
    "CGO_ENABLED": "0",
    "GO111MODULE": "off",
    "GOTOOLCHAIN": "local",
    "XDG_CONFIG_HOME": "/opt/judge/go-config",
}


# Without the symbol table and DWARF (2.4 MB to 1.5 for a small program: what a cached
# program's every job carries); a panic's trace comes from the pclntab, which stays.
_GO_STRIP = "'-ldflags=-s -w'"


def _go_compile(command: str) -> tuple[str, ...]:
    """``go COMMAND -o main SOURCE`` on the image's precompiled standard library (and testify),
    linked into this compile's cache; trim.txt says the cache was just trimmed, so go never
    prunes the links by age."""
    return (
        "/bin/sh",
        "-c",
        "mkdir -p $GOCACHE && cp -rs /opt/judge/go-cache/. $GOCACHE/"
        f' && date +%s > $GOCACHE/trim.txt && exec /usr/bin/go {command} {_GO_STRIP} -o main "$1"',
        "go",
        "{source}",
    )


LANGUAGES: dict[str, LanguageSpec] = {
    spec.name: spec
    for spec in (
        LanguageSpec(
            name="python",
            sandbox_fusion="python",
            title="Python",
            version="3.13",
            aliases=frozenset({"py", "python3"}),
            source_name="main.py",
            run_argv=("/usr/bin/python3", "main.py"),
            modes=frozenset(TestMode),
            use_zygote=True,
            mle_markers=("MemoryError",),
            env={**_PYTHON_ENV, "OPENBLAS_NUM_THREADS": "1"},
            assertion="assert (never -O): AssertionError, exit 1",
        ),
        _cpp(
            "cpp",
            "gnu++20",
            "GCC 14, GNU C++20",
            frozenset({"c++", "cc", "cxx", "cpp20"}),
            sandbox_fusion="cpp",
            preludes=CPP_PRELUDES,
        ),
        LanguageSpec(
            name="pytest",
            sandbox_fusion="pytest",
            title="pytest suite",
            version="pytest 8.3 on Python 3.13",
            image="python",
            source_name="main_test.py",
            # No cache directory; the environment keeps pytest's rewritten asserts unwritten.
            run_argv=(
                "/usr/bin/python3",
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "main_test.py",
            ),
            mle_markers=("MemoryError",),
            env={**_PYTHON_ENV, "OPENBLAS_NUM_THREADS": "1"},
            # pytest's exit status when tests failed (2 is a collection error, 5 no tests).
            suite_failure_exit=1,
            assertion="assert, rewritten by pytest: a failed test, exit 1",
        ),
        _cpp("cpp17", "gnu++17", "GCC 14, GNU C++17", frozenset({"c++17"})),
        _cpp("cpp23", "gnu++23", "GCC 14, GNU C++23", frozenset({"c++23"})),
        _cpp("gtest", "gnu++20", "GCC 14, GNU C++20, GoogleTest 1.16", test_suite=True),
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
                *_MOLD,
                "-lm",
            ),
            artifacts=("main",),
            run_argv=("/work/main",),
            assert_failure_exit=-signal.SIGABRT,
            assertion="assert() (no NDEBUG): abort, SIGABRT",
        ),
        LanguageSpec(
            name="java",
            sandbox_fusion="java",
            title="Java",
            version="OpenJDK 21",
            source_name="Main.java",
            # javatuples as MultiPL-E's and SandboxFusion's Java runs have it.
            compile_argv=javac_argv("/work", JAVATUPLES_JAR),
            compile_server="javac",
            artifacts=("*.class",),
            run_argv=(
                "/usr/bin/java",
                *JVM_RUN_OPTIONS,
                "-cp",
                f"/work:{JAVATUPLES_JAR}",
                "{main_class}",
            ),
            rss_allowance_mb=96,
            mle_markers=("java.lang.OutOfMemoryError",),
            # An uncaught AssertionError (or any uncaught exception) exits 1.
            assert_failure_exit=1,
            assertion="assert (java -ea): AssertionError, exit 1",
        ),
        JUNIT,
        LanguageSpec(
            name="javascript",
            sandbox_fusion="nodejs",
            title="JavaScript",
            version="Node 20",
            aliases=frozenset({"js", "node", "nodejs"}),
            source_name="main.js",
            # V8's parser stops at its stack limit too: the check parses what any run's can
            # (its stack rlimit is a compiler's, unlimited; the memory limit bounds it).
            syntax_check_argv=(
                "/usr/bin/node",
                f"--stack-size={MAX_RUNTIME_STACK_KB}",
                "--check",
                "{source}",
            ),
            run_argv=(*NODE_RUN, "main.js"),
            harness_argv=("/opt/judge/node-runner", *NODE_RUN[1:], "/opt/judge/harness.js"),
            modes=frozenset(TestMode),
            rss_allowance_mb=64,
            mle_markers=("JavaScript heap out of memory",),
            env={"NODE_PATH": NODE_PATH},
            assertion="node:assert's assert(): AssertionError, exit 1",
        ),
        JEST,
        LanguageSpec(
            name="go",
            sandbox_fusion="go",
            title="Go",
            version="1.24",
            aliases=frozenset({"golang"}),
            source_name="main.go",
            compile_argv=_go_compile("build"),
            artifacts=("main",),
            run_argv=("/work/main",),
            env=_GO_ENV,
            assertion="none; `if ... { panic(...) }`: exit 2",
        ),
        LanguageSpec(
            name="go_test",
            sandbox_fusion="go_test",
            title="Go test suite (testing, testify)",
            version="1.24, testify 1.10",
            image="go",
            source_name="main_test.go",
            # go vet is off: a suite is judged on its tests, never on vet's style checks.
            compile_argv=_go_compile("test -c -vet=off"),
            artifacts=("main",),
            # The suite's report as `go test FILE` prints it (sandbox_images/go/go-test-run).
            run_argv=("/opt/judge/go-test-run",),
            env=_GO_ENV,
            suite_failure_exit=1,
            assertion="t.Error, t.Fatal, testify's assert: a failed test, exit 1",
        ),
        _rust("rust", "2021", frozenset({"rs", "rust2021"}), sandbox_fusion="rust"),
        _rust("rust2024", "2024"),
        _rust("rust_test", "2021", test_suite=True),
        LanguageSpec(
            name="pypy",
            title="PyPy",
            version="7.3.19 (Python 3.11)",
            aliases=frozenset({"pypy3"}),
            source_name="main.py",
            # A syntax error is CE, as in CPython's zygote, not a runtime error on every test.
            syntax_check_argv=(
                "/usr/bin/pypy3",
                "-c",
                "import sys; compile(open(sys.argv[1], 'rb').read(), sys.argv[1], 'exec')",
                "{source}",
            ),
            run_argv=("/usr/bin/pypy3", "main.py"),
            rss_allowance_mb=32,
            mle_markers=("MemoryError",),
            env=_PYTHON_ENV,
            assertion="assert (never -O): AssertionError, exit 1",
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
