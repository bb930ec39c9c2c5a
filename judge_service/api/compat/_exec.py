"""Engine jobs from SandboxFusion's limits, and engine results in SandboxFusion's shape.

SandboxFusion times a command by wall clock only and caps memory as address space; the engine
caps CPU, wall time and peak RSS. A ``run_timeout`` becomes both the wall and the CPU limit, and
``memory_limit_MB`` (or -1, "no limit") becomes the RSS limit, cut to the largest this service
allows (a program's RSS never exceeds its address space, so this only refuses what the operator
chose not to run). Timeouts above the service's maxima are cut to them likewise.
"""

from __future__ import annotations

import base64
import binascii
import math

from judge_service.api.compat._languages import engine_language
from judge_service.api.compat.schemas import (
    CommandRunResult,
    CommandStatus,
    RunCodeRequest,
    RunCodeResponse,
    RunStatus,
    path_parts,
)
from judge_service.exceptions import InvalidJobError
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import (
    CompileResult,
    Job,
    JobResult,
    Limits,
    TestCase,
    TestResult,
    Verdict,
)
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB
from judge_service.settings import Settings

# What the agent appends to the compiler's output when it killed a compilation for time.
_COMPILE_TIMEOUT_MARK = "[judge] compilation exceeded its time limit"


def limits_for(
    language: str,
    settings: Settings,
    *,
    run_timeout_s: float,
    compile_timeout_s: float,
    memory_limit_mb: int,
    report_bytes: int | None = None,
) -> Limits:
    ceiling_ms = 4 * settings.max_time_limit_ms  # the engine's largest wall limit
    wall_ms = _milliseconds(run_timeout_s, 1, ceiling_ms)
    memory_ceiling = min(
        settings.max_memory_limit_mb,
        settings.sandbox_memory_mb - SANDBOX_OVERHEAD_MB - LANGUAGES[language].rss_allowance_mb,
    )
    memory = (
        memory_ceiling if memory_limit_mb <= 0 else min(max(memory_limit_mb, 8), memory_ceiling)
    )
    return Limits(
        time_limit_ms=min(wall_ms, settings.max_time_limit_ms),
        wall_time_limit_ms=wall_ms,
        memory_limit_mb=memory,
        compile_time_limit_ms=_milliseconds(compile_timeout_s, 100, ceiling_ms),
        report_bytes=report_bytes,
    )


def _milliseconds(seconds: float, least: int, most: int) -> int:
    # Cut before scaling: 1e308 seconds is a finite float, 1e311 milliseconds is not.
    return min(most, max(least, math.ceil(min(seconds, most / 1000) * 1000)))


def run_code_job(
    request: RunCodeRequest, settings: Settings, *, report_bytes: int, answer_by: float | None
) -> Job:
    """The engine job for a /run_code request; InvalidJobError naming the field if none."""
    language = engine_language(request.language)
    source = LANGUAGES[language].source_file(request.code)
    clash = file_clash([*request.files, source])
    if clash is not None:
        raise InvalidJobError(f"files: {clash}")
    return Job(
        language=language,
        code=request.code,
        tests=[TestCase(input=request.stdin or "", output="")],  # output unused: no checking
        limits=limits_for(
            language,
            settings,
            run_timeout_s=request.run_timeout,
            compile_timeout_s=request.compile_timeout,
            memory_limit_mb=request.memory_limit_MB,
            report_bytes=report_bytes,
        ),
        files=decode_files(request.files),
        fetch_files=request.fetch_files,
        answer_by=answer_by,
    )


def file_clash(names: list[str]) -> str | None:
    """Why ``names`` cannot all be written (one of them needs another, a file, as a directory);
    None when they can. Sorted with "/" as the smallest character, a path that lies under
    another file comes right after it, so neighbours are all that need comparing."""
    ordered = sorted({"\0".join(path_parts(name)): name for name in names}.items())
    for (path, name), (next_path, next_name) in zip(ordered, ordered[1:], strict=False):
        if next_path.startswith(path + "\0"):
            return f"{next_name!r} needs {name!r}, a file, to be a directory"
    return None


def decode_files(files: dict[str, str | None]) -> dict[str, bytes]:
    """``{path: base64}`` to contents; a None content is skipped, as SandboxFusion does."""
    decoded = {}
    for name, content in files.items():
        if content is None:
            continue
        try:
            decoded[name] = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as error:
            raise InvalidJobError(f"files[{name!r}] is not valid base64: {error}") from error
    return decoded


def fetched_files(result: JobResult) -> dict[str, str]:
    """Fetched files as ``{path: base64}``; files that did not exist are left out."""
    return {
        f.name: base64.b64encode(f.content).decode("ascii")
        for f in result.files
        if f.content is not None
    }


def exec_info(language: str, result: JobResult, test: TestResult | None) -> RunCodeResponse:
    """One command's run (``test``, or the compilation that stopped it) as /run_code answers.

    Success means compiled and exited 0. A program that failed is ``Failed``, with its exit code
    (minus the signal number when killed) and ``Finished``, or ``TimeLimitExceeded``; only the
    judge's own failure is ``SandboxError``.
    """
    if result.verdict is Verdict.SE or result.system_error:
        return _sandbox_error(result.system_error or "the judge failed")
    compiled = LANGUAGES[language].compiled
    compile_result = _compile_result(result.compile) if compiled and result.compile else None
    if result.verdict is Verdict.CE:
        output = result.compile.output if result.compile else ""
        if compiled:
            return RunCodeResponse(
                status=RunStatus.FAILED, message="compilation failed", compile_result=compile_result
            )
        # An interpreter rejecting the source is a run that exited 1, as under SandboxFusion.
        run = CommandRunResult(
            status=CommandStatus.FINISHED, execution_time=0.0, return_code=1, stderr=output
        )
        return RunCodeResponse(status=RunStatus.FAILED, message=output, run_result=run)
    if test is None:
        return _sandbox_error("the judge returned no result for the run")
    run = _run_result(test)
    ok = run.status is CommandStatus.FINISHED and run.return_code == 0
    return RunCodeResponse(
        status=RunStatus.SUCCESS if ok else RunStatus.FAILED,
        message="" if ok else test.message,
        compile_result=compile_result,
        run_result=run,
    )


def _sandbox_error(message: str) -> RunCodeResponse:
    return RunCodeResponse(status=RunStatus.SANDBOX_ERROR, message=f"system error: {message}")


def _compile_result(compiled: CompileResult) -> CommandRunResult:
    timed_out = _COMPILE_TIMEOUT_MARK in compiled.output[-200:]
    return CommandRunResult(
        status=CommandStatus.TIME_LIMIT_EXCEEDED if timed_out else CommandStatus.FINISHED,
        execution_time=round(compiled.time_ms / 1000, 6),
        return_code=None if timed_out else (0 if compiled.ok else 1),
        stderr=compiled.output,
    )


def _run_result(test: TestResult) -> CommandRunResult:
    seconds = round(test.wall_ms / 1000, 6)
    if test.verdict is Verdict.TLE:
        return CommandRunResult(
            status=CommandStatus.TIME_LIMIT_EXCEEDED,
            execution_time=seconds,
            stdout=test.stdout,
            stderr=test.stderr,
            truncated=test.truncated,
        )
    return CommandRunResult(
        status=CommandStatus.FINISHED,
        execution_time=seconds,
        return_code=_return_code(test),
        stdout=test.stdout,
        stderr=test.stderr,
        truncated=test.truncated,
    )


def _return_code(test: TestResult) -> int:
    if test.exit_code:
        return test.exit_code  # a failed test suite's WA among them: its tests failed
    if test.verdict in (Verdict.AC, Verdict.WA):
        return 0  # it exited 0; the checker's opinion is not the program's status
    if test.signal:
        return -test.signal
    return 1  # stopped by the judge (memory, output) without a status of its own
