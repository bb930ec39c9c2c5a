"""MultiPL-E style assert mode's bookkeeping (judge_service/sandbox/_appended.py): each test is
appended to the program as a job of its own, and their results make the job's."""

from __future__ import annotations

import pytest

from judge_service.sandbox import _appended
from judge_service.sandbox._jobs import agent_header
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import (
    CompileResult,
    Job,
    JobResult,
    TestResult,
    Verdict,
)
from judge_service.sandbox.validation import validate_job

SETTINGS = SandboxConfig(sandboxes_per_language=1, appended_asserts=True)
CODE = "fn add(a: i64, b: i64) -> i64 { a + b }\n"
TESTS = [{"code": "fn main() { assert_eq!(add(2, 3), 5); }"}, {"code": "fn main() {}"}]


def _job(**fields: object) -> Job:
    values: dict[str, object] = {"language": "rust", "code": CODE, "mode": "assert"}
    values["tests"] = TESTS
    values.update(fields)
    return Job.model_validate(values)


def _result(verdict: Verdict, compiled: bool = True) -> JobResult:
    test = TestResult(verdict=verdict, time_ms=1.0, wall_ms=1.0, memory_kb=1)
    return JobResult(
        verdict=verdict,
        passed=int(verdict is Verdict.AC),
        total=1,
        tests=[test] if compiled else [],
        compile=CompileResult(ok=compiled),
        duration_ms=5.0,
    )


def test_the_mode_is_off_unless_the_service_turns_it_on() -> None:
    with pytest.raises(InvalidJobError, match="JUDGE_APPENDED_ASSERTS"):
        validate_job(_job(), SandboxConfig())


def test_an_assert_job_of_an_appending_language_needs_no_entry_point() -> None:
    assert validate_job(_job(), SETTINGS).appends_asserts
    assert _appended.appends_tests(_job())
    assert not _appended.appends_tests(_job(language="python", entry_point="f"))
    assert not _appended.appends_tests(_job(mode="stdin", tests=[{"output": ""}]))


def test_each_test_is_the_program_with_that_test_after_it() -> None:
    whole = _appended.whole_program(_job(prompt="// the prompt"), 0)
    assert whole.code == CODE + "\n" + TESTS[0]["code"] + "\n"
    assert [test.code for test in whole.tests] == [TESTS[0]["code"]]
    assert whole.prompt is None and whole.mode.value == "assert"


def test_the_agent_runs_the_whole_program_as_a_suite() -> None:
    """Its exit status is the verdict (rust: 101, a panic); the test code is not sent again."""
    header, _, _ = agent_header(
        _appended.whole_program(_job(), 0), LANGUAGES["rust"], SETTINGS, None
    )
    assert header["mode"] == "stdin" and header["tests"] == [{"input": ""}]
    assert header["suite_failure_exit"] == 101
    assert "assert_eq!(add(2, 3), 5)" in header["source"]


def test_merged_results_keep_the_order_and_the_first_failure() -> None:
    merged = _appended.merge(_job(), [_result(Verdict.AC), _result(Verdict.WA)])
    assert (merged.verdict, merged.passed, merged.total) == (Verdict.WA, 1, 2)
    assert [test.verdict for test in merged.tests] == [Verdict.AC, Verdict.WA]
    assert merged.duration_ms == 10.0


def test_a_test_that_does_not_compile_makes_the_job_a_compile_error() -> None:
    merged = _appended.merge(_job(), [_result(Verdict.AC), _result(Verdict.CE, compiled=False)])
    assert merged.verdict is Verdict.CE and merged.compile is not None and not merged.compile.ok
    assert _appended.stops_after(_job(), _result(Verdict.CE, compiled=False))


def test_stop_on_first_failure_stops_after_a_wrong_answer_only_when_asked() -> None:
    assert not _appended.stops_after(_job(), _result(Verdict.WA))
    assert _appended.stops_after(_job(stop_on_first_failure=True), _result(Verdict.WA))
    assert not _appended.stops_after(_job(stop_on_first_failure=True), _result(Verdict.AC))
