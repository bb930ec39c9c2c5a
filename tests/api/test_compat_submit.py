"""/submit's job and answer, without sandboxes: the job /submit sends, and the answer built from
an engine result in SandboxFusion's shape (a passed case's strings cut as SandboxFusion cuts
them, a failed case whole, the list ending at the first failure)."""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.api.compat._submit import (
    TEST_INFO_CHARS,
    eval_result,
    prepare,
    shorten,
)
from judge_service.api.compat.schemas import SubmitRequest
from judge_service.sandbox.models import CheckerKind, JobResult, TestResult, Verdict
from judge_service.settings import Settings

BIG = "7 " * 5000


def _request(tests: list[tuple[str, str]], **extra: Any) -> SubmitRequest:
    return SubmitRequest.model_validate(
        {
            "dataset": "inline",
            "id": 3,
            "completion": "```python\nprint(input())\n```",
            "config": {
                "dataset_type": "CommonOJDataset",
                "language": "python",
                "provided_data": {
                    "id": 3,
                    "test": [{"input": {"stdin": i}, "output": {"stdout": o}} for i, o in tests],
                },
                "extra": extra,
            },
        }
    )


def _result(verdicts: list[Verdict]) -> JobResult:
    tests = [TestResult(verdict=v, time_ms=1.0, wall_ms=1.0, memory_kb=1) for v in verdicts]
    passed = sum(v is Verdict.AC for v in verdicts)
    overall = Verdict.AC if passed == len(verdicts) else Verdict.WA
    return JobResult(verdict=overall, passed=passed, total=len(verdicts), tests=tests)


def _answer(request: SubmitRequest, verdicts: list[Verdict]) -> dict[str, Any]:
    read = prepare(request, Settings())
    answer = eval_result(request, read.language, read.code, read.cases, _result(verdicts))
    return answer.model_dump(mode="json")


def test_shorten_keeps_both_ends_as_sandboxfusion_does() -> None:
    assert shorten("x" * TEST_INFO_CHARS) == "x" * TEST_INFO_CHARS
    cut = shorten("a" * 600 + "b" * 600)
    assert cut == "a" * 498 + "..." + "b" * 498 and len(cut) == 999


def test_passed_cases_are_cut_and_the_failed_one_comes_whole() -> None:
    request = _request([(BIG, BIG), (BIG, "1"), (BIG, "2")])
    body = _answer(request, [Verdict.AC, Verdict.WA, Verdict.AC])
    assert body["accepted"] is False
    assert [t["passed"] for t in body["tests"]] == [True, False]  # stops at the first failure
    passed, failed = body["tests"][0]["test_info"], body["tests"][1]["test_info"]
    assert passed == {"input": {"stdin": shorten(BIG)}, "output": {"stdout": shorten(BIG)}}
    assert len(passed["input"]["stdin"]) < TEST_INFO_CHARS
    assert failed == {"input": {"stdin": BIG}, "output": {"stdout": "1"}}


def test_return_full_case_keeps_passed_cases_whole() -> None:
    request = _request([(BIG, BIG), (BIG, "1")], return_full_case=True, run_all_cases=True)
    body = _answer(request, [Verdict.AC, Verdict.AC])
    assert body["accepted"] is True
    assert [t["test_info"]["input"]["stdin"] for t in body["tests"]] == [BIG, BIG]


def test_a_program_that_does_not_compile_fails_every_case_whole() -> None:
    request = _request([(BIG, "1"), (BIG, "2")], run_all_cases=True)
    read = prepare(request, Settings())
    failed = JobResult(verdict=Verdict.CE, passed=0, total=2)
    body = eval_result(request, read.language, read.code, read.cases, failed).model_dump()
    assert [t["test_info"]["input"]["stdin"] for t in body["tests"]] == [BIG, BIG]


@pytest.mark.parametrize("run_all", [False, True])
def test_both_paths_compare_in_the_sandbox_with_sandboxfusions_rule(run_all: bool) -> None:
    job = prepare(_request([("1\n", "1")], run_all_cases=run_all), Settings()).job
    assert job is not None and job.checker.kind is CheckerKind.LINES
    assert job.checker.rel_tol == 1e-5 and job.stop_on_first_failure is not run_all
    assert job.limits.report_bytes == 1 << 20  # each run's output as SandboxFusion keeps it


def test_a_test_string_with_raw_newlines_is_read_as_sandboxfusion_reads_it() -> None:
    request = _request([("1\n", "1")])
    raw = '[{"input": {"stdin": "1\n2\n"}, "output": {"stdout": "3\n"}}]'  # not escaped
    assert isinstance(request.config.provided_data, dict)
    request.config.provided_data["test"] = raw
    job = prepare(request, Settings()).job
    assert job is not None and [t.input for t in job.tests] == ["1\n2\n"]
