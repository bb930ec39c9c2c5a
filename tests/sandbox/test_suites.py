# ruff: noqa: E501  (programs in other languages)
"""The test-framework languages (go_test, rust_test, d_ut, pytest, gtest, junit, jest): the program is a test
suite, judged by its exit status as SandboxFusion reports it: a passing suite is AC (exit 0), a
failing one WA (the framework's "tests failed" status), a crash RE, a loop TLE; what it prints is
never compared with an expected output."""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.sandbox._framework_languages import JUNIT_JAR
from judge_service.sandbox._jobs import compile_spec
from judge_service.sandbox.agent import javac_server
from judge_service.sandbox.config import SandboxConfig
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
# SandboxFusion's junit takes the classes under test and the test class in one file (named
# after its public class); its jest a TypeScript test file.
_JAVA = "import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.*;\n\n__BODY__\n"
_JEST = "import { describe, expect, test } from '@jest/globals';\n\n__BODY__\n"
_JAVA_ADD = "class Calc {{ static int add(int a, int b) {{ return {}; }} }}\n\npublic class CalcTest {{\n    @Test void adds() {{ assertEquals(3, Calc.add(1, 2)); }}\n    @Test void zero() {{ assertEquals(0, Calc.add(0, 0)); }}\n}}"
_JEST_ADD = "function add(a: number, b: number): number {{ return {}; }}\n\ndescribe('add', () => {{\n  test('adds', () => {{ expect(add(1, 2)).toBe(3); }});\n  test('zero', () => {{ expect(add(0, 0)).toBe(0); }});\n}});"

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
    "junit": (
        _JAVA,
        _JAVA_ADD.format("a + b"),
        _JAVA_ADD.format("a * b"),
        "public class CrashTest {\n    @Test void crash() { Runtime.getRuntime().halt(3); }\n}",
        "public class LoopTest {\n    static long sink;\n    @Test void spin() { for (;;) sink++; }\n}",
    ),
    "jest": (
        _JEST,
        _JEST_ADD.format("a + b"),
        _JEST_ADD.format("a * b"),
        "test('crash', () => { process.kill(process.pid, 'SIGSEGV'); });",
        "test('loop', () => { let x = 0; for (;;) { x = (x + 1) | 0; } });",
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


def _judge_with_files(
    pool: SandboxPool, language: str, code: str, files: dict[str, str]
) -> JobResult:
    """``code`` judged with other source files sent beside it (SandboxFusion's ``files``)."""
    encoded = {name: text.encode() for name, text in files.items()}
    job = Job(language=language, code=code, tests=[{"input": ""}], files=encoded, limits=LIMITS)
    return pool.judge(job)


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


# ---- junit and jest: limits, SandboxFusion's file layout, no vacuous suite -------------------

# Each holds a test that allocates past any limit and one that prints past the output limit.
HOGS = {
    "junit": (
        "import java.util.*;\npublic class HogTest {\n    @Test void hog() {\n"
        "        List<long[]> kept = new ArrayList<>();\n"
        "        for (;;) kept.add(new long[1 << 20]);\n    }\n}",
        "public class FloodTest {\n    @Test void flood() {\n"
        '        String line = "y".repeat(1023);\n'
        "        for (;;) System.out.println(line);\n    }\n}",
    ),
    "jest": (
        "test('hog', () => { const kept: number[][] = []; for (;;) kept.push(new Array(1 << 20).fill(1)); });",
        "test('flood', () => { const line = 'y'.repeat(1023) + '\\n'; for (;;) process.stdout.write(line); });",
    ),
}


@pytest.mark.parametrize("language", sorted(HOGS))
def test_a_suite_over_the_memory_limit_is_mle(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, HOGS[language][0], memory_limit_mb=256)
    assert result.verdict is Verdict.MLE, result


@pytest.mark.parametrize("language", sorted(HOGS))
def test_a_suite_over_the_output_limit_is_ole(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, HOGS[language][1], output_limit_kb=1024)
    assert result.verdict is Verdict.OLE, result


def test_a_junit_suite_tests_a_class_sent_in_another_file(pool: SandboxPool) -> None:
    """SandboxFusion compiles every .java file it was sent (``files``) with the suite."""
    suite = _JAVA.replace(
        "__BODY__",
        "public class TwiceTest {\n    @Test void twice() { assertEquals(6, Twice.of(3)); }\n}",
    )
    for body, verdict in (("2 * x", Verdict.AC), ("x + 2", Verdict.WA)):
        helper = f"public class Twice {{ static int of(int x) {{ return {body}; }} }}\n"
        assert _judge_with_files(pool, "junit", suite, {"Twice.java": helper}).verdict is verdict


@pytest.mark.parametrize(
    ("language", "body"),
    [
        ("junit", "public class Solution { static int add(int a, int b) { return a + b; } }"),
        ("jest", "export function add(a: number, b: number): number { return a + b; }"),
    ],
)
def test_a_suite_without_tests_is_not_accepted(pool: SandboxPool, language: str, body: str) -> None:
    """A program that drops its tests must not pass as a suite that ran them all."""
    result = _judge(pool, language, body)
    assert result.verdict in (Verdict.WA, Verdict.RE), result
    assert result.tests[0].exit_code != 0


def test_jest_runs_plain_javascript_and_commonjs_requires(pool: SandboxPool) -> None:
    """A test file without types, using require and the image's npm packages, as SandboxFusion
    runs one (its .test.ts also takes plain JavaScript)."""
    code = (
        "const _ = require('lodash');\nconst assert = require('assert');\n\n"
        "test('sum', () => {\n  assert.strictEqual(_.sum([1, 2, 3]), 6);\n  expect([3, 1, 2].toSorted()).toEqual([1, 2, 3]);\n});\n"
    )
    job = Job(language="jest", code=code, tests=[{"input": ""}], limits=LIMITS)
    result = pool.judge(job)
    assert result.verdict is Verdict.AC, result


def test_junit_compiles_on_the_warm_javac_with_junit_on_its_class_path() -> None:
    code = _JAVA.replace("__BODY__", _JAVA_ADD.format("a + b"))
    job = Job(language="junit", code=code, tests=[{"input": ""}])
    frame = compile_spec(job, LANGUAGES["junit"], SandboxConfig())
    assert frame["server"] == "javac"
    assert javac_server.serves(frame["argv"], frame["limits"]["memory_kb"])
    assert frame["argv"][-1] == "CalcTest.java"
    assert f"/work:{JUNIT_JAR}" in frame["argv"]


# Each (a suite, its verdict): what SandboxFusion's file layout allows beyond the common case.
FRAMEWORK_CASES = [
    # A test class of any name runs (the launcher's default runs only *Test, *Tests, Test*).
    pytest.param(
        "junit",
        "import org.junit.jupiter.api.Test;\nclass Checks {\n  @Test void sum() { assert 1 + 1 == 2; }\n}\n",
        Verdict.AC,
        id="junit-any-class-name",
    ),
    # Java's assert counts: the launcher runs with -ea.
    pytest.param(
        "junit",
        "import org.junit.jupiter.api.Test;\nclass Checks {\n  @Test void sum() { assert 1 + 1 == 3; }\n}\n",
        Verdict.WA,
        id="junit-assert-keyword",
    ),
    # JUnit 4 suites run on the Vintage engine.
    pytest.param(
        "junit",
        "import org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class OldTest {\n  @Test public void adds() { assertEquals(3, 1 + 2); }\n}\n",
        Verdict.AC,
        id="junit4",
    ),
    pytest.param(
        "junit",
        "import org.junit.Test;\nimport static org.junit.Assert.assertEquals;\npublic class OldTest {\n  @Test public void adds() { assertEquals(4, 1 + 2); }\n}\n",
        Verdict.WA,
        id="junit4-failing",
    ),
    # A failing set-up fails the suite.
    pytest.param(
        "junit",
        "import org.junit.jupiter.api.*;\nclass Checks {\n  @BeforeAll static void setUp() { throw new IllegalStateException(); }\n  @Test void runs() { }\n}\n",
        Verdict.WA,
        id="junit-failing-setup",
    ),
    # A timer left running does not keep jest (--forceExit) until the time limit.
    pytest.param(
        "jest",
        "test('t', () => { setInterval(() => {}, 1000); expect(1).toBe(1); });\n",
        Verdict.AC,
        id="jest-open-handle",
    ),
    pytest.param(
        "jest",
        "enum Color { Red, Green }\ninterface P { x: number }\nconst p: P = { x: Color.Green };\n"
        "test.each([[1, 1]])('enum %i', (a, b) => { expect(p.x).toBe(a); expect(a).toBe(b); });\n",
        Verdict.AC,
        id="jest-typescript-enum-each",
    ),
    pytest.param(
        "jest",
        "test('async', async () => { await new Promise((r) => setTimeout(r, 20)); expect(2).toBe(3); });\n",
        Verdict.WA,
        id="jest-async-failing",
    ),
    # A file that throws before its tests is a failed suite.
    pytest.param("jest", "throw new Error('top');\n", Verdict.WA, id="jest-top-level-throw"),
]


@pytest.mark.parametrize(("language", "code", "verdict"), FRAMEWORK_CASES)
def test_framework_cases(pool: SandboxPool, language: str, code: str, verdict: Verdict) -> None:
    result = pool.judge(Job(language=language, code=code, tests=[{"input": ""}], limits=LIMITS))
    assert result.verdict is verdict, result


@pytest.mark.parametrize(
    ("solution", "verdict"),
    [
        ("export function add(a: number, b: number): number { return a + b; }\n", Verdict.AC),
        ("export function add(a: number, b: number): number { return a * b; }\n", Verdict.WA),
        ("export function add(a: number, b: number): number { return a +; }\n", Verdict.CE),
    ],
)
def test_a_jest_suite_imports_a_typescript_module_sent_with_it(
    pool: SandboxPool, solution: str, verdict: Verdict
) -> None:
    """SandboxFusion runs every file it was sent through jest's transform: a suite may import
    the solution from a module of its own."""
    code = (
        "import { expect, test } from '@jest/globals';\nimport { add } from './solution';\n\n"
        "test('adds', () => { expect(add(1, 2)).toBe(3); });\n"
    )
    assert _judge_with_files(pool, "jest", code, {"solution.ts": solution}).verdict is verdict
