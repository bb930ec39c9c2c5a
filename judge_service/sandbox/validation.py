"""What a job must be for the engine to judge it: checked before anything runs.

:func:`validate_job` is what ``SandboxPool.judge`` runs first; a caller that wants to refuse a
job early (before queueing it) runs the same check.
"""

from __future__ import annotations

import posixpath

from judge_service.sandbox._prompt import prompt_helpers
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.languages import LANGUAGES, LanguageSpec
from judge_service.sandbox.models import Job, TestMode

__all__ = ["MAX_FILES_BYTES", "SANDBOX_OVERHEAD_MB", "validate_job"]

MAX_FILES_BYTES = 32 << 20
# Room for the agent, the zygote and captured output above a test's own memory limit.
SANDBOX_OVERHEAD_MB = 192


def validate_job(job: Job, settings: SandboxConfig) -> LanguageSpec:
    """Reject what cannot be judged, before anything runs; return the language's spec."""
    spec = LANGUAGES.get(job.language)
    if spec is None:
        raise InvalidJobError(
            f"unknown language {job.language!r}; choose one of {', '.join(LANGUAGES)}"
        )
    if not job.code.strip():
        raise InvalidJobError("code is empty")
    size = len(job.code.encode())
    if size > settings.max_source_bytes:
        raise InvalidJobError(f"code is {size} bytes; the limit is {settings.max_source_bytes}")
    if len(job.tests) > settings.max_tests:
        raise InvalidJobError(f"{len(job.tests)} tests; the limit is {settings.max_tests}")
    if job.mode not in spec.modes:
        supported = sorted(name for name, s in LANGUAGES.items() if job.mode in s.modes)
        raise InvalidJobError(f"{job.mode.value} mode is supported for {', '.join(supported)}")
    if job.mode is TestMode.ASSERT and spec.appends_asserts and not settings.appended_asserts:
        raise InvalidJobError(
            f"assert mode for {job.language} appends the tests to the program and runs them in "
            "its process, where a program can pass without being right (exit before the test, "
            "redefine assert); it is off on this service. Use stdin or function mode, or set "
            "JUDGE_APPENDED_ASSERTS=1 where no policy is trained on the verdicts"
        )
    _validate_tests(job, spec)
    _validate_limits(job, spec, settings)
    if job.prompt is not None:
        if len(job.prompt.encode()) > settings.max_source_bytes:
            raise InvalidJobError(f"the prompt exceeds {settings.max_source_bytes} bytes")
        if job.mode is TestMode.ASSERT:
            prompt_helpers(spec.name, job.prompt, job.entry_point or "")  # raises if unreadable
    for name in [*job.files, *job.fetch_files]:
        if _unsafe(name):
            raise InvalidJobError(f"file name {name!r} must be a relative path inside /work")
    if sum(len(content) for content in job.files.values()) > MAX_FILES_BYTES:
        raise InvalidJobError(f"files exceed {MAX_FILES_BYTES} bytes")
    return spec


def _validate_tests(job: Job, spec: LanguageSpec) -> None:
    # An appended test names the function itself (MultiPL-E's tests do).
    appended = job.mode is TestMode.ASSERT and spec.appends_asserts
    if job.mode is not TestMode.STDIN and not appended and not job.entry_point:
        raise InvalidJobError(f"{job.mode.value} mode needs an entry_point")
    # A test suite's verdict is its exit status: it has no expected output to compare.
    needs_output = job.mode is TestMode.STDIN and spec.suite_failure_exit is None
    for index, test in enumerate(job.tests):
        where = f"test {index}"
        if needs_output and test.output is None:
            raise InvalidJobError(f"{where} has no expected 'output'")
        if job.mode is TestMode.FUNCTION and (test.args is None or not test.has_expected()):
            raise InvalidJobError(f"{where} needs 'args' and 'expected' in function mode")
        if job.mode is TestMode.ASSERT and not (test.code and test.code.strip()):
            raise InvalidJobError(f"{where} needs the test 'code' in assert mode")


def _validate_limits(job: Job, spec: LanguageSpec, settings: SandboxConfig) -> None:
    limits = job.limits
    if limits.time_limit_ms > settings.max_time_limit_ms:
        raise InvalidJobError(
            f"time_limit_ms {limits.time_limit_ms} exceeds the maximum {settings.max_time_limit_ms}"
        )
    if limits.wall_ms < limits.time_limit_ms:
        raise InvalidJobError("wall_time_limit_ms must be at least time_limit_ms")
    if limits.wall_ms > 4 * settings.max_time_limit_ms:
        raise InvalidJobError(f"wall_time_limit_ms exceeds {4 * settings.max_time_limit_ms}")
    ceiling = min(
        settings.max_memory_limit_mb,
        settings.sandbox_memory_mb - SANDBOX_OVERHEAD_MB - spec.rss_allowance_mb,
    )
    if limits.memory_limit_mb > ceiling:
        raise InvalidJobError(
            f"memory_limit_mb {limits.memory_limit_mb} exceeds the maximum {ceiling}"
        )
    if limits.output_limit_kb > settings.max_output_limit_kb:
        raise InvalidJobError(
            f"output_limit_kb {limits.output_limit_kb} exceeds the maximum "
            f"{settings.max_output_limit_kb}"
        )
    if limits.compile_memory_limit_mb > settings.sandbox_memory_mb - SANDBOX_OVERHEAD_MB:
        raise InvalidJobError("compile_memory_limit_mb exceeds the sandbox's memory")


def _unsafe(name: str) -> bool:
    normal = posixpath.normpath(name)
    return not name or name.startswith("/") or normal == "." or normal.startswith("..")
