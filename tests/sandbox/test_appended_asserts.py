# ruff: noqa: E501  (programs in other languages)
"""MultiPL-E style assert mode for the languages without an assert harness: each test's code is
appended to the program and the whole program runs; exit 0 is AC, a failed assertion WA, any
other crash RE (see judge_service/sandbox/_appended.py)."""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

pytestmark = pytest.mark.integration

# Per language: (a right `add`, a wrong one, a test that asserts add(2, 3) == 5 as MultiPL-E's
# tests do, a test that asserts add(0, 0) == 0, which the wrong `add` passes too).
PROGRAMS: dict[str, tuple[str, str, str, str]] = {
    "cpp": (
        "#include <cassert>\nlong add(long a, long b) { return a + b; }",
        "#include <cassert>\nlong add(long a, long b) { return a * b; }",
        "int main() {\n    auto candidate = add;\n    assert(candidate(2, 3) == 5);\n}",
        "int main() {\n    assert(add(0, 0) == 0);\n}",
    ),
    "c": (
        "#include <assert.h>\nlong add(long a, long b) { return a + b; }",
        "#include <assert.h>\nlong add(long a, long b) { return a * b; }",
        "int main(void) {\n    assert(add(2, 3) == 5);\n    return 0;\n}",
        "int main(void) {\n    assert(add(0, 0) == 0);\n    return 0;\n}",
    ),
    "rust": (
        "fn add(a: i64, b: i64) -> i64 { a + b }",
        "fn add(a: i64, b: i64) -> i64 { a * b }",
        "fn main() {\n    let candidate = add;\n    assert_eq!(candidate(2, 3), 5);\n}",
        "fn main() {\n    assert_eq!(add(0, 0), 0);\n}",
    ),
    "java": (
        "import java.util.*;\n\nclass Problem {\n    public static long add(long a, long b) {\n        return a + b;\n    }",
        "import java.util.*;\n\nclass Problem {\n    public static long add(long a, long b) {\n        return a * b;\n    }",
        "    public static void main(String[] args) {\n        assert(add(2L, 3L) == 5L);\n    }\n}",
        "    public static void main(String[] args) {\n        assert(add(0L, 0L) == 0L);\n    }\n}",
    ),
    "php": (
        "<?php\nfunction add($a, $b) {\n    return $a + $b;\n}",
        "<?php\nfunction add($a, $b) {\n    return $a * $b;\n}",
        'function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n}\n\ntest();',
        'if (add(0, 0) !== 0) { throw new Exception("Test failed!"); }',
    ),
    "ruby": (
        "def add(a, b)\n  a + b\nend",
        "def add(a, b)\n  a * b\nend",
        'raise "Test failed" unless add(2, 3) == 5',
        'raise "Test failed" unless add(0, 0) == 0',
    ),
    "lua": (
        "local function add(a, b)\n    return a + b\nend",
        "local function add(a, b)\n    return a * b\nend",
        "local candidate = add\nassert(candidate(2, 3) == 5)",
        "assert(add(0, 0) == 0)",
    ),
    "r": (
        "add <- function(a, b) {\n    a + b\n}",
        "add <- function(a, b) {\n    a * b\n}",
        "test_humaneval <- function() {\n    candidate <- add\n    stopifnot(isTRUE(all.equal(candidate(2, 3), 5)))\n}\ntest_humaneval()",
        "stopifnot(isTRUE(all.equal(add(0, 0), 0)))",
    ),
    "scala": (
        "object Main {\n    def add(a : Long, b : Long) : Long = {\n        a + b\n    }",
        "object Main {\n    def add(a : Long, b : Long) : Long = {\n        a * b\n    }",
        "    def main(args: Array[String]) = {\n    assert(add((2l), (3l)) == (5l));\n    }\n}",
        "    def main(args: Array[String]) = {\n    assert(add((0l), (0l)) == (0l));\n    }\n}",
    ),
    "swift": (
        "func add(a: Int, b: Int) -> Int {\n    return a + b\n}",
        "func add(a: Int, b: Int) -> Int {\n    return a * b\n}",
        "func test() {\n    let candidate = add\n    assert(candidate(2, 3) == 5)\n}\n\ntest()",
        "assert(add(a: 0, b: 0) == 0)",
    ),
    "csharp": (
        "using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    public static long Add(long a, long b) {\n        return a + b;\n    }",
        "using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    public static long Add(long a, long b) {\n        return a * b;\n    }",
        "    public static void Main(string[] args) {\n    Debug.Assert(Add((2L), (3L)) == (5L));\n    }\n\n}",
        "    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (0L)) == (0L));\n    }\n\n}",
    ),
    "racket": (
        "#lang racket\n\n(define (add a b)\n  (+ a b))",
        "#lang racket\n\n(define (add a b)\n  (* a b))",
        "(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n    (check-equal? (candidate 2 3) 5)\n))\n\n(test-humaneval)",
        "(require rackunit)\n(check-equal? (add 0 0) 0)",
    ),
    "ocaml": (
        "let add (a : int) (b : int) : int = a + b",
        "let add (a : int) (b : int) : int = a * b",
        "let assertions =\n  assert (5 = add 2 3);\n  ()",
        "let assertions =\n  assert (0 = add 0 0);\n  ()",
    ),
}

LIMITS = {"time_limit_ms": 5000, "compile_time_limit_ms": 60000}


def _judge(
    pool: SandboxPool,
    language: str,
    code: str,
    tests: list[str],
    limits: dict[str, int] | None = None,
    **fields: Any,
) -> JobResult:
    job = Job(
        language=language,
        code=code,
        mode="assert",
        tests=[{"code": test} for test in tests],
        limits={**LIMITS, **(limits or {})},
        **fields,
    )
    return pool.judge(job)


@pytest.fixture(autouse=True)
def appended_asserts_on(pool: SandboxPool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mode is off by default (see test_the_mode_is_refused_unless_turned_on)."""
    monkeypatch.setattr(pool.settings, "appended_asserts", True)


@pytest.mark.parametrize(
    "exploit",
    [
        # Each passes the appended test without a right `add`: why the mode is off by default.
        "#include <cstdlib>\nlong add(long a, long b) { return 0; }\n"
        "static int _ = (std::exit(0), 0);",
        "#include <cassert>\nlong add(long a, long b) { return 0; }\n"
        "#undef assert\n#define assert(x) ((void)0)",
        "#include <cstdlib>\n#include <cassert>\nlong add(long a, long b) { return 0; }\n"
        "struct Quit { Quit() { std::atexit([] { std::_Exit(0); }); } } quit;",
    ],
)
def test_the_mode_is_refused_unless_turned_on(
    pool: SandboxPool, monkeypatch: pytest.MonkeyPatch, exploit: str
) -> None:
    monkeypatch.setattr(pool.settings, "appended_asserts", False)
    with pytest.raises(InvalidJobError, match="JUDGE_APPENDED_ASSERTS"):
        _judge(pool, "cpp", exploit, [PROGRAMS["cpp"][2]])


def test_the_appending_languages_are_these() -> None:
    appending = {name for name, spec in LANGUAGES.items() if spec.appends_asserts}
    assert appending == set(PROGRAMS) | {"cpp17", "cpp23", "rust2024"}


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_right_solution_is_accepted(pool: SandboxPool, language: str) -> None:
    right, _, test, zero = PROGRAMS[language]
    result = _judge(pool, language, right, [test, zero])
    assert result.verdict is Verdict.AC, result
    assert (result.passed, result.total, len(result.tests)) == (2, 2, 2)


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_wrong_solution_is_a_wrong_answer(pool: SandboxPool, language: str) -> None:
    """The wrong ``add`` passes the second test and fails the first: each test is its own
    program, judged on its own."""
    _, wrong, test, zero = PROGRAMS[language]
    result = _judge(pool, language, wrong, [zero, test])
    assert result.verdict is Verdict.WA, result
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.WA]
    assert result.passed == 1


def test_stop_on_first_failure_stops_the_programs(pool: SandboxPool) -> None:
    _, wrong, test, zero = PROGRAMS["cpp"]
    result = _judge(pool, "cpp", wrong, [test, zero], stop_on_first_failure=True)
    assert result.verdict is Verdict.WA and len(result.tests) == 1 and result.total == 2


@pytest.mark.parametrize(
    ("language", "crash"),
    [
        ("cpp", "int main() {\n    volatile int *p = nullptr;\n    *p = 1;\n}"),
        ("rust", "fn main() {\n    std::process::abort();\n}"),
    ],
)
def test_a_crash_that_is_no_failed_assertion_is_a_runtime_error(
    pool: SandboxPool, language: str, crash: str
) -> None:
    result = _judge(pool, language, PROGRAMS[language][0], [crash])
    assert result.verdict is Verdict.RE, result


def test_a_test_that_does_not_compile_is_a_compile_error(pool: SandboxPool) -> None:
    right, _, test, _ = PROGRAMS["rust"]
    result = _judge(pool, "rust", right, [test, "fn main() { undefined_name(); }"])
    assert result.verdict is Verdict.CE, result
    assert result.compile is not None and not result.compile.ok


def test_a_looping_test_is_a_time_limit(pool: SandboxPool) -> None:
    loop = "int main() {\n    volatile unsigned long x = 0;\n    for (;;) x = x + 1;\n}"
    result = _judge(pool, "cpp", PROGRAMS["cpp"][0], [loop], limits={"time_limit_ms": 500})
    assert result.verdict is Verdict.TLE, result
