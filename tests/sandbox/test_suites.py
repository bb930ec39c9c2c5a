# ruff: noqa: E501  (programs in other languages)
"""The test-framework languages (go_test, rust_test, d_ut, pytest, gtest): the program is a test
suite, judged by its exit status as SandboxFusion reports it: a passing suite is AC (exit 0), a
failing one WA (the framework's "tests failed" status), a crash RE, a loop TLE; what it prints is
never compared with an expected output."""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

pytestmark = pytest.mark.integration

# Per language: (a suite of two tests of `add` that passes, the same with a wrong `add`, a test
# that crashes the process, a test that loops).
_GO = (
    'package main\n\nimport (\n\t"testing"\n\t"github.com/stretchr/testify/assert"\n)\n\n__BODY__\n'
)
_RUST = "__BODY__\n"
_D = "__BODY__\nvoid main() {}\n"
_PY = "__BODY__\n"
_CPP = "#include <gtest/gtest.h>\n#include <csignal>\n__BODY__\n"

SUITES: dict[str, tuple[str, str, str, str, str]] = {
    "go_test": (
        _GO,
        "func Add(a, b int) int { return a + b }\n\nfunc TestAdd(t *testing.T) {\n\tassert.Equal(t, 3, Add(1, 2))\n}\n\nfunc TestZero(t *testing.T) {\n\tassert.Equal(t, 0, Add(0, 0))\n}",
        "func Add(a, b int) int { return a * b }\n\nfunc TestAdd(t *testing.T) {\n\tassert.Equal(t, 3, Add(1, 2))\n}\n\nfunc TestZero(t *testing.T) {\n\tassert.Equal(t, 0, Add(0, 0))\n}",
        'func TestCrash(t *testing.T) {\n\tassert.True(t, true)\n\tpanic("boom")\n}',
        "var sink int\n\nfunc TestLoop(t *testing.T) {\n\tassert.True(t, true)\n\tfor {\n\t\tsink++\n\t}\n}",
    ),
    "rust_test": (
        _RUST,
        "fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }\n\n#[test]\nfn zero() { assert_eq!(add(0, 0), 0); }",
        "fn add(a: i32, b: i32) -> i32 { a * b }\n\n#[test]\nfn adds() { assert_eq!(add(1, 2), 3); }\n\n#[test]\nfn zero() { assert_eq!(add(0, 0), 0); }",
        "#[test]\nfn crash() { std::process::abort(); }",
        "#[test]\nfn spin() { let mut x: u64 = 0; loop { x = std::hint::black_box(x + 1); } }",
    ),
    "d_ut": (
        _D,
        "int add(int a, int b) { return a + b; }\n\nunittest {\n    assert(add(1, 2) == 3);\n    assert(add(0, 0) == 0);\n}",
        "int add(int a, int b) { return a * b; }\n\nunittest {\n    assert(add(1, 2) == 3);\n    assert(add(0, 0) == 0);\n}",
        "import core.stdc.stdlib : abort;\n\nunittest {\n    abort();\n}",
        "unittest {\n    ulong x = 0;\n    while (x != ulong.max - 1) { x = x * 3 + 1; }\n}",
    ),
    "pytest": (
        _PY,
        "def add(a, b):\n    return a + b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_zero():\n    assert add(0, 0) == 0",
        "def add(a, b):\n    return a * b\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_zero():\n    assert add(0, 0) == 0",
        "import os, signal\n\n\ndef test_crash():\n    os.kill(os.getpid(), signal.SIGSEGV)",
        "def test_loop():\n    while True:\n        pass",
    ),
    "gtest": (
        _CPP,
        "int add(int a, int b) { return a + b; }\n\nTEST(Add, Adds) { EXPECT_EQ(add(1, 2), 3); }\nTEST(Add, Zero) { EXPECT_EQ(add(0, 0), 0); }",
        "int add(int a, int b) { return a * b; }\n\nTEST(Add, Adds) { EXPECT_EQ(add(1, 2), 3); }\nTEST(Add, Zero) { EXPECT_EQ(add(0, 0), 0); }",
        "TEST(Crash, Segv) { std::raise(SIGSEGV); }",
        "TEST(Loop, Spins) { volatile unsigned long x = 0; for (;;) x = x + 1; }",
    ),
}

LIMITS = {"time_limit_ms": 3000, "compile_time_limit_ms": 60000}


# The expected output, if a test has one, is never compared: a suite's report is what it prints.
MISMATCHED = [{"input": "", "output": "not what the suite prints"}]


def _judge(
    pool: SandboxPool,
    language: str,
    body: str,
    tests: list[dict[str, Any]] = MISMATCHED,
    **fields: Any,
) -> JobResult:
    code = SUITES[language][0].replace("__BODY__", body)
    return pool.judge(Job(language=language, code=code, tests=tests, limits={**LIMITS, **fields}))


def test_the_suite_languages_are_the_table_s() -> None:
    suites = {name for name, spec in LANGUAGES.items() if spec.suite_failure_exit is not None}
    assert suites == set(SUITES)
    assert {LANGUAGES[name].sandbox_fusion for name in suites} >= {"go_test", "D_ut", "pytest"}


@pytest.mark.parametrize("language", sorted(SUITES))
def test_a_passing_suite_is_accepted(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, SUITES[language][1], tests=[{"input": ""}])
    assert result.verdict is Verdict.AC, result
    assert result.tests[0].exit_code == 0


@pytest.mark.parametrize("language", sorted(SUITES))
def test_a_failing_suite_is_a_wrong_answer(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, SUITES[language][2])
    assert result.verdict is Verdict.WA, result
    assert result.tests[0].exit_code == LANGUAGES[language].suite_failure_exit
    assert result.tests[0].message.startswith("tests failed")


@pytest.mark.parametrize("language", sorted(SUITES))
def test_a_crashing_suite_is_a_runtime_error(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, SUITES[language][3])
    assert result.verdict is Verdict.RE, result


@pytest.mark.parametrize("language", sorted(SUITES))
def test_a_looping_suite_is_a_time_limit(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, SUITES[language][4], time_limit_ms=1000)
    assert result.verdict is Verdict.TLE, result


@pytest.mark.parametrize("language", sorted(set(SUITES) - {"pytest"}))
def test_a_suite_that_does_not_compile_is_a_compile_error(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, SUITES[language][1] + "\n}}} not code")
    assert result.verdict is Verdict.CE, result


def test_a_pytest_suite_that_does_not_parse_is_a_runtime_error(pool: SandboxPool) -> None:
    """pytest reports it as a collection error (exit 2), not as failed tests."""
    result = _judge(pool, "pytest", SUITES["pytest"][1] + "\ndef broken(:\n")
    assert result.verdict is Verdict.RE, result
    assert result.tests[0].exit_code == 2
