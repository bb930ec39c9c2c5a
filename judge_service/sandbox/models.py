"""The engine's typed API: a job goes in, a result comes out; verdicts are data."""

from __future__ import annotations

import base64
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, model_validator


def _bytes_from_wire(value: Any) -> Any:
    """A str is what a JSON dump of these models wrote: base64 (see :data:`WireBytes`)."""
    if isinstance(value, str):
        return base64.b64decode(value, validate=True)
    return value


# File contents are arbitrary bytes. Jobs and results cross JSON (Celery, the dispatcher), where
# pydantic's default would write bytes as UTF-8 text and fail on binary content; these travel as
# base64 in JSON and are read back from it.
WireBytes = Annotated[
    bytes,
    BeforeValidator(_bytes_from_wire),
    PlainSerializer(
        lambda content: base64.b64encode(content).decode("ascii"), return_type=str, when_used="json"
    ),
]


class Verdict(StrEnum):
    """A test's or a job's outcome. SE means the judge failed, never the program."""

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    TLE = "TLE"  # CPU or wall time limit exceeded
    MLE = "MLE"  # memory limit exceeded
    RE = "RE"  # runtime error: non-zero exit, signal, uncaught exception
    CE = "CE"  # compilation error
    OLE = "OLE"  # output limit exceeded
    SE = "SE"  # system error: the judge itself failed


class TestMode(StrEnum):
    STDIN = "stdin"  # program reads stdin, output is checked
    FUNCTION = "function"  # LeetCode style: call entry_point with JSON args, compare the return
    ASSERT = "assert"  # HumanEval style: append the test code, run check(entry_point)


class CheckerKind(StrEnum):
    EXACT = "exact"
    TOKENS = "tokens"
    FLOAT = "float"
    CASE_INSENSITIVE = "case_insensitive"
    # SandboxFusion's stdio rule: line by line, case-insensitive, numbers within rel_tol.
    LINES = "lines"
    CUSTOM = "custom"


class Checker(BaseModel):
    """How stdin-mode output (and, for tolerance, function-mode returns) is compared.

    A custom checker is a Python 3 program run sandboxed as
    ``checker.py INPUT EXPECTED ACTUAL``; exit 0 accepts, 1 or 2 rejects, anything else is a
    system error (the checker, not the submission, failed). What it prints is the message.
    """

    model_config = ConfigDict(extra="forbid")

    kind: CheckerKind = CheckerKind.TOKENS
    abs_tol: float = Field(1e-6, ge=0)
    rel_tol: float = Field(1e-6, ge=0)
    code: str | None = None

    @model_validator(mode="after")
    def _custom_needs_code(self) -> Checker:
        if self.kind is CheckerKind.CUSTOM and not (self.code and self.code.strip()):
            raise ValueError("a custom checker needs its Python source in 'code'")
        return self


class TestCase(BaseModel):
    """stdin: ``input``/``output``; function: ``args``/``kwargs``/``expected``; assert: ``code``."""

    model_config = ConfigDict(extra="forbid")
    __test__ = False  # not a pytest class

    input: str = ""
    output: str | None = None
    args: list[Any] | None = None
    kwargs: dict[str, Any] | None = None
    expected: Any = None
    code: str | None = None

    def has_expected(self) -> bool:
        return "expected" in self.model_fields_set


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    time_limit_ms: int = Field(2000, ge=1, description="CPU time (user + system) per test.")
    wall_time_limit_ms: int | None = Field(
        None, ge=1, description="Wall time per test; default 2x CPU + 1 s (catches sleepers)."
    )
    memory_limit_mb: int = Field(256, ge=8, description="Peak resident memory per test.")
    output_limit_kb: int = Field(65536, ge=1, description="stdout (and stderr) size per test.")
    compile_time_limit_ms: int = Field(
        20000,
        ge=100,
        description="CPU time of the compiler (a wall-clock backstop of 4x stops one that blocks).",
    )
    compile_memory_limit_mb: int = Field(1536, ge=64)
    report_bytes: int | None = Field(
        None,
        ge=0,
        description="stdout/stderr kept per test in the result; default the report_bytes setting.",
    )

    @property
    def wall_ms(self) -> int:
        return self.wall_time_limit_ms or 2 * self.time_limit_ms + 1000


class Job(BaseModel):
    """One submission against one problem's tests."""

    model_config = ConfigDict(extra="forbid")

    language: str
    code: str
    tests: list[TestCase] = Field(min_length=1)
    mode: TestMode = TestMode.STDIN
    entry_point: str | None = None
    checker: Checker = Field(default_factory=Checker)
    limits: Limits = Field(default_factory=Limits)
    stop_on_first_failure: bool = False
    prompt: str | None = Field(
        None,
        description="The code the program continues (a HumanEval-style prompt). In assert "
        "mode (Python, JavaScript), a test that names one of its helpers gets the prompt's "
        "definition, never the program's: a program cannot redefine the helper that checks "
        "its answer.",
    )
    files: dict[str, WireBytes] = Field(
        default_factory=dict, description="Copied into /work first."
    )
    fetch_files: list[str] = Field(default_factory=list, description="Copied out after the run.")
    answer_by: float | None = Field(
        None,
        allow_inf_nan=False,
        description="Unix time after which the caller stops waiting (verl gives up after compile "
        "+ run timeout + 10 s): a job that cannot get a sandbox in time to run fails fast "
        "(SandboxUnavailable), and judging again for host load stops in time to answer.",
    )


class TestResult(BaseModel):
    __test__ = False

    verdict: Verdict
    time_ms: float = Field(description="CPU time, user + system.")
    wall_ms: float
    memory_kb: int = Field(
        description="Peak resident set size, plus shared memory the program held unmapped "
        "(SysV segments, /dev/shm files, memfds)."
    )
    exit_code: int | None = None
    signal: int | None = None
    stdout: str = ""
    stderr: str = ""
    truncated: bool = Field(
        False,
        description="stdout or stderr is cut: past report_bytes, or past the job's share of "
        "the max_reply_output_bytes setting.",
    )
    message: str = ""
    limit: Literal["cpu", "wall", "budget", "host_memory"] | None = Field(
        None,
        description="Which time limit stopped the test (TLE only): its CPU or wall limit, or the "
        "job's wall-clock budget, spent before the test ran; host_memory: the kernel's OOM "
        "killer took a process of the test within its memory limit, and the verdict is that of "
        "the test judged again alone on the host.",
    )
    cpu_wait_ms: float | None = Field(
        None,
        description="Time the program was runnable but waiting for a CPU, when the wall limit "
        "stopped it: much of it means the host was busy.",
    )


class CompileResult(BaseModel):
    ok: bool
    output: str = ""
    time_ms: float = 0.0
    cached: bool = False
    limit: Literal["cpu", "wall", "host_memory"] | None = Field(
        None,
        description="Which time limit stopped the compiler, if one did; host_memory: the "
        "kernel's OOM killer did.",
    )


class FetchedFile(BaseModel):
    name: str
    content: WireBytes | None = None
    error: str | None = None


class JobResult(BaseModel):
    verdict: Verdict
    passed: int
    total: int
    tests: list[TestResult] = Field(default_factory=list)
    compile: CompileResult | None = None
    files: list[FetchedFile] = Field(default_factory=list)
    system_error: str | None = None
    duration_ms: float = 0.0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    @property
    def load_dependent(self) -> bool:
        """A wall-clock limit or the host's memory decided part of it: the verdict may depend
        on how busy the host was, so it is never cached."""
        compile_load = self.compile is not None and self.compile.limit in ("wall", "host_memory")
        return compile_load or any(
            test.limit is not None and test.limit != "cpu" for test in self.tests
        )

    @classmethod
    def system_failure(cls, total: int, message: str) -> JobResult:
        return cls(verdict=Verdict.SE, passed=0, total=total, system_error=message)
