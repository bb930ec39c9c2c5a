"""SandboxFusion ``/submit`` for an inline CommonOJDataset problem, on one engine job.

SandboxFusion runs one ``/run_code`` per test, compiling each time, and compares the output
itself. Here the whole submission is one engine job (compiled once) and the comparison is
SandboxFusion's own rule, run by the agent (the ``lines`` checker).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from judge_service import client_json
from judge_service.api.compat._exec import exec_info, limits_for
from judge_service.api.compat._languages import engine_language
from judge_service.api.compat.schemas import (
    EvalResult,
    EvalTestCase,
    RunCodeResponse,
    RunStatus,
    StdioCase,
    SubmitRequest,
)
from judge_service.exceptions import InvalidJobError, TooLarge
from judge_service.reward import extract_code
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import (
    Checker,
    CheckerKind,
    Job,
    JobResult,
    TestCase,
    Verdict,
)
from judge_service.settings import Settings

NO_CODE = "no code could be extracted from the completion"
# SandboxFusion returns at most 1 MiB of a program's output.
HOST_REPORT_BYTES = 1 << 20
SANDBOXFUSION_REL_TOL = 1e-5
# SandboxFusion cuts a passed case's input and output strings in its answer to this many
# characters (all of them with config.extra.return_full_case); a failed case comes whole.
TEST_INFO_CHARS = 1000
_CUT_MARK = "..."


@dataclass(frozen=True)
class Prepared:
    """A /submit request read: the problem's tests, the extracted code and its job (None
    when no code could be extracted)."""

    language: str
    cases: list[StdioCase]
    code: str | None
    job: Job | None


def prepare(request: SubmitRequest, settings: Settings) -> Prepared:
    """The request read and its code extracted (CPU work: run it off the event loop).
    InvalidJobError when it cannot be judged, TooLarge when the completion is over its cap."""
    language, cases = problem_cases(request)
    size, cap = len(request.completion), settings.max_completion_chars
    if size > cap:
        raise TooLarge(f"completion: {size} characters; the limit is {cap}")
    code = extract_code(request.completion, language, settings.reward)
    job = None if code is None else submit_job(request, language, code, cases, settings)
    return Prepared(language, cases, code, job)


def problem_cases(request: SubmitRequest) -> tuple[str, list[StdioCase]]:
    """The engine language and the test cases of the inline problem; InvalidJobError if none."""
    config = request.config
    if config.dataset_type != "CommonOJDataset" or config.provided_data is None:
        raise InvalidJobError(
            "only inline problems are judged here: config.dataset_type 'CommonOJDataset' with "
            "the problem in config.provided_data"
        )
    if config.custom_extract_logic:
        raise InvalidJobError(
            "config.custom_extract_logic is not supported (it is code run on the server); the "
            "completion's last fenced block in the language is the code"
        )
    if not config.language:
        raise InvalidJobError("config.language is required for CommonOJDataset")
    language = engine_language(config.language)
    raw = _row(config.provided_data, request.id).get("test")
    if isinstance(raw, str):
        try:
            # SandboxFusion reads it with json.loads(strict=False): raw newlines in strings.
            raw = client_json.loads(raw, strict=False)
        except ValueError as error:
            raise InvalidJobError(f"config.provided_data.test: {error}") from error
    if not isinstance(raw, list) or not raw:
        raise InvalidJobError("provided_data.test must be a non-empty list of test cases")
    try:
        cases = [StdioCase.model_validate(case) for case in raw]
    except ValidationError as error:
        raise InvalidJobError(f"provided_data.test: {error.errors()[0]['msg']}") from error
    for index, case in enumerate(cases):
        if "stdin" not in case.input or "stdout" not in case.output:
            raise InvalidJobError(f"test {index} needs input.stdin and output.stdout")
    return language, cases


def _row(provided: list[dict[str, Any]] | dict[str, Any], wanted: int | str) -> dict[str, Any]:
    if isinstance(provided, dict):
        return provided
    for row in provided:
        if str(row.get("id")) == str(wanted):
            return row
    raise InvalidJobError(f"provided_data has no row with id {wanted!r}")


def submit_job(
    request: SubmitRequest, language: str, code: str, cases: list[StdioCase], settings: Settings
) -> Job:
    config = request.config
    compiled = LANGUAGES[language].compiled
    # SandboxFusion's defaults: 10 s to compile and to run compiled code, 20 s otherwise.
    run_timeout = config.run_timeout or (10 if compiled else 20)
    compile_timeout = config.compile_timeout or 10
    # SandboxFusion's comparison, run by the agent as it streams over the output: no process
    # per test, and no output too large to compare.
    checker = Checker(kind=CheckerKind.LINES, rel_tol=SANDBOXFUSION_REL_TOL)
    expected = [case.output["stdout"] for case in cases]
    return Job(
        language=language,
        code=code,
        tests=[
            TestCase(input=case.input["stdin"], output=want)
            for case, want in zip(cases, expected, strict=True)
        ],
        checker=checker,
        limits=limits_for(
            language,
            settings,
            run_timeout_s=run_timeout,
            compile_timeout_s=compile_timeout,
            memory_limit_mb=-1,
            # Each run's output comes back as SandboxFusion captures it (1 MiB).
            report_bytes=HOST_REPORT_BYTES,
        ),
        stop_on_first_failure=not run_all_cases(request),
    )


def shorten(text: str, limit: int = TEST_INFO_CHARS) -> str:
    """SandboxFusion's cut of a passed case's strings: the first and last characters around
    "...", ``limit`` characters in all (less one when the two halves are uneven)."""
    if len(text) <= limit:
        return text
    keep = (limit - len(_CUT_MARK)) // 2
    return text[:keep] + _CUT_MARK + text[-keep:]


def _shortened(info: dict[str, Any]) -> dict[str, Any]:
    return {
        part: {name: shorten(value) for name, value in fields.items()}
        for part, fields in info.items()
    }


def run_all_cases(request: SubmitRequest) -> bool:
    return bool(request.config.extra.get("run_all_cases", False))


def eval_result(
    request: SubmitRequest,
    language: str,
    code: str | None,
    cases: list[StdioCase],
    result: JobResult | None,
) -> EvalResult:
    """Per test: passed, its run as /run_code answers, the case. Without ``run_all_cases`` the
    list ends at the first failure, as SandboxFusion's does."""
    full = bool(request.config.extra.get("return_full_case", False))
    infos = [case.model_dump() for case in cases]
    if result is None or not result.tests:
        # Nothing ran per test (no code, or it did not compile): every case failed alike.
        info = (
            RunCodeResponse(status=RunStatus.FAILED, message=NO_CODE)
            if result is None
            else exec_info(language, result, None)
        )
        tests = [EvalTestCase(passed=False, exec_info=info, test_info=i) for i in infos]
    else:
        tests = [
            EvalTestCase(
                passed=test.verdict is Verdict.AC,
                exec_info=exec_info(language, result, test),
                # As SandboxFusion answers: a passed case's strings cut to 1000 characters.
                test_info=info if full or test.verdict is not Verdict.AC else _shortened(info),
            )
            for test, info in zip(result.tests, infos, strict=False)
        ]
    if not run_all_cases(request):
        failed = next((index for index, test in enumerate(tests) if not test.passed), None)
        tests = tests if failed is None else tests[: failed + 1]
    return EvalResult(
        id=request.id,
        accepted=len(tests) == len(cases) and all(test.passed for test in tests),
        extracted_code=code or "",
        tests=tests,
    )
