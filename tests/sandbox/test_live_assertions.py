"""Every assertion counts: in every language of the table, a false standard assertion ends the
program with a failure (never AC), and the same program with a true one is AC. A flag added to
a language later that compiles assertions out (``swiftc -O``, ``ghc -O``, Free Pascal without
``-Sa``, PHP's production ``zend.assertions``) fails here."""

from __future__ import annotations

import pytest

from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox._assertion_programs import ASSERTING, QUIET_ASSERTION_ATTACKS

DONE = [{"input": "", "output": "done"}]
LIMITS = {"time_limit_ms": 10000, "memory_limit_mb": 512}


def _judge(pool: SandboxPool, language: str, code: str) -> JobResult:
    return pool.judge(Job(language=language, code=code, tests=DONE, limits=LIMITS))


def _ended_with_failure(result: JobResult) -> bool:
    test = result.tests[0]
    return test.exit_code != 0 or bool(test.signal)


def test_every_language_of_the_table_has_an_asserting_program_and_says_its_assertion() -> None:
    assert set(ASSERTING) == set(LANGUAGES)
    assert [name for name, spec in LANGUAGES.items() if not spec.assertion] == []


@pytest.mark.integration
@pytest.mark.parametrize("language", list(ASSERTING))
def test_a_false_assertion_fails_the_program(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, ASSERTING[language].replace("{expected}", "3"))
    assert result.verdict is not Verdict.AC, result.model_dump_json(indent=1)[:3000]
    assert result.verdict in (Verdict.WA, Verdict.RE), result.model_dump_json(indent=1)[:3000]
    assert _ended_with_failure(result), result.model_dump_json(indent=1)[:3000]


@pytest.mark.integration
@pytest.mark.parametrize("language", list(ASSERTING))
def test_a_true_assertion_passes(pool: SandboxPool, language: str) -> None:
    result = _judge(pool, language, ASSERTING[language].replace("{expected}", "2"))
    assert result.verdict is Verdict.AC, result.model_dump_json(indent=1)[:3000]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("language", "code"),
    QUIET_ASSERTION_ATTACKS,
    ids=[f"{language}-{index}" for index, (language, _) in enumerate(QUIET_ASSERTION_ATTACKS)],
)
def test_no_form_of_a_false_assertion_is_accepted(
    pool: SandboxPool, language: str, code: str
) -> None:
    result = _judge(pool, language, code)
    assert result.verdict is not Verdict.AC, result.model_dump_json(indent=1)[:3000]
    assert _ended_with_failure(result), result.model_dump_json(indent=1)[:3000]
