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
