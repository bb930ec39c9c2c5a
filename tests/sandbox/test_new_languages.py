"""The languages past the first seven, each in its own image: ten HumanEval-style problems
with a right (AC) and a wrong (WA) solution each, and per language a crash (RE), a loop (TLE)
and a memory hog (MLE). Programs: tests/sandbox/_new_languages.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox import _new_languages as programs

pytestmark = pytest.mark.integration

# Generous for slow starters (a JVM for Scala, Racket's and R's runtimes); a loop still ends
# at its own limit below.
LIMITS = {"time_limit_ms": 5000, "memory_limit_mb": 256, "compile_time_limit_ms": 30000}


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as judge_pool:
        yield judge_pool


def _judge(
    pool: SandboxPool, language: str, code: str, tests: list[dict[str, str]], **limits: int
) -> JobResult:
    result = pool.judge(Job(language=language, code=code, tests=tests, limits={**LIMITS, **limits}))
    assert result.verdict is not Verdict.SE, result.system_error
    return result


def _why(result: JobResult) -> str:
    lines = [f"verdict {result.verdict.value}"]
    if result.compile is not None and not result.compile.ok:
        lines.append(f"compile: {result.compile.output[-800:]}")
    for test in result.tests[:3]:
        lines.append(
            f"{test.verdict.value} exit={test.exit_code} cpu={test.time_ms}ms "
            f"mem={test.memory_kb}KB out={test.stdout[:200]!r} err={test.stderr[-400:]!r}"
        )
    return "\n".join(lines)


def test_wrong_solutions_answer_differently() -> None:
    """A wrong solution must fail some test of its problem, or its WA below would prove nothing."""
    for problem, other in programs.WRONG_WITH.items():
        differs = [
            programs.REFERENCE[problem](a) != programs.REFERENCE[other](a)
            for a in programs.INPUTS[problem]
        ]
        assert any(differs), (problem, other)


@pytest.mark.parametrize("language", programs.LANGUAGES)
@pytest.mark.parametrize("problem", list(programs.REFERENCE))
def test_problem_right_and_wrong(pool: SandboxPool, language: str, problem: str) -> None:
    tests = programs.tests_for(language, problem)
    right = _judge(pool, language, programs.program(language, problem), tests)
    assert right.verdict is Verdict.AC, _why(right)
    wrong_code = programs.program(language, programs.WRONG_WITH[problem])
    wrong = _judge(pool, language, wrong_code, tests)
    assert wrong.verdict is Verdict.WA, _why(wrong)


@pytest.mark.parametrize("language", programs.LANGUAGES)
def test_crash_is_runtime_error(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, programs.CRASH[language], [{"input": "", "output": ""}])
    assert result.verdict is Verdict.RE, _why(result)


@pytest.mark.parametrize("language", programs.LANGUAGES)
def test_loop_is_time_limit(pool: SandboxPool, language: str) -> None:
    result = _judge(
        pool, language, programs.LOOP[language], [{"input": "", "output": ""}], time_limit_ms=1000
    )
    assert result.verdict is Verdict.TLE, _why(result)


@pytest.mark.parametrize("language", programs.LANGUAGES)
def test_memory_hog_is_memory_limit(pool: SandboxPool, language: str) -> None:
    result = _judge(
        pool, language, programs.HOG[language], [{"input": "", "output": ""}], memory_limit_mb=128
    )
    assert result.verdict is Verdict.MLE, _why(result)


# ---- TypeScript's assert and function modes: JavaScript's harness on the transpiled program --
TS_ADD = "function add(a: number, b: number): number {\n  return a + b;\n}\n"
TS_WRONG = "function add(a: number, b: number): number {\n  return a - b;\n}\n"
JS_CHECK = (
    "const assert = require('assert');\n"
    "function check(candidate) {\n  assert.strictEqual(candidate(2, 3), 5);\n"
    "  assert.strictEqual(candidate(-1, 1), 0);\n}\n"
)


def test_typescript_assert_mode(pool: SandboxPool) -> None:
    def run(code: str) -> JobResult:
        return pool.judge(
            Job(
                language="typescript",
                code=code,
                tests=[{"code": JS_CHECK}],
                mode="assert",
                entry_point="add",
                limits=LIMITS,
            )
        )

    right, wrong = run(TS_ADD), run(TS_WRONG)
    assert right.verdict is Verdict.AC, _why(right)
    assert wrong.verdict is Verdict.WA, _why(wrong)
    escaping = run(TS_WRONG + "process.exit(0);\n")
    assert escaping.verdict is not Verdict.AC, _why(escaping)


def test_typescript_function_mode(pool: SandboxPool) -> None:
    tests = [{"args": [2, 3], "expected": 5}, {"args": [10, -4], "expected": 6}]
    right = pool.judge(
        Job(
            language="typescript",
            code=TS_ADD,
            tests=tests,
            mode="function",
            entry_point="add",
            limits=LIMITS,
        )
    )
    assert right.verdict is Verdict.AC and right.passed == 2, _why(right)
    wrong = pool.judge(
        Job(
            language="typescript",
            code=TS_WRONG,
            tests=tests,
            mode="function",
            entry_point="add",
            limits=LIMITS,
        )
    )
    assert wrong.verdict is Verdict.WA, _why(wrong)
