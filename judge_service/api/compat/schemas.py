"""Wire formats of the compatibility endpoints: SandboxFusion and OpenRLHF, field for field.

Field names (``memory_limit_MB`` included) and defaults are the other projects' own, so that
their clients work unchanged. Unknown request fields are ignored, as SandboxFusion does.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RunStatus(StrEnum):
    SUCCESS = "Success"  # compiled (if compiled) and ran to exit code 0
    FAILED = "Failed"  # compile error, non-zero exit, signal, time limit
    SANDBOX_ERROR = "SandboxError"  # the judge failed; never the program's fault


class CommandStatus(StrEnum):
    FINISHED = "Finished"  # the command ran to its end (any exit code)
    ERROR = "Error"  # SandboxFusion's sandbox-side failure; here that is a SandboxError instead
    TIME_LIMIT_EXCEEDED = "TimeLimitExceeded"


class CommandRunResult(BaseModel):
    status: CommandStatus
    execution_time: float | None = Field(None, description="Wall time in seconds.")
    return_code: int | None = Field(
        None, description="Exit code; minus the signal number when killed; null on a timeout."
    )
    stdout: str = ""
    stderr: str = ""
    # Not in SandboxFusion's schema (it cuts each stream at 1 MiB silently); its clients ignore
    # a field they do not know.
    truncated: bool = Field(
        False, description="stdout or stderr is cut: past 1 MiB, or past the reply's output cap."
    )


class RunCodeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    code: str
    language: str = Field(description="python, cpp, c, java, go, nodejs (javascript), rust.")
    stdin: str | None = None
    compile_timeout: float = Field(10, gt=0, description="Seconds.")
    run_timeout: float = Field(10, gt=0, description="Seconds of wall time (also the CPU cap).")
    memory_limit_MB: int = Field(-1, description="-1: the largest this service allows.")
    files: dict[str, str | None] = Field(
        default_factory=dict, description="Relative path -> base64 content, written first."
    )
    fetch_files: list[str] = Field(
        default_factory=list, description="Relative paths copied back (missing ones omitted)."
    )


class RunCodeResponse(BaseModel):
    status: RunStatus
    message: str = ""
    compile_result: CommandRunResult | None = None
    run_result: CommandRunResult | None = None
    executor_pod_name: str | None = None
    files: dict[str, str] = Field(default_factory=dict, description="Path -> base64 content.")


class SubmitConfig(BaseModel):
    model_config = ConfigDict(extra="ignore")

    dataset_type: str | None = None
    language: str | None = None
    locale: str | None = None
    is_fewshot: bool | None = None
    compile_timeout: float | None = Field(None, gt=0)
    run_timeout: float | None = Field(None, gt=0)
    custom_extract_logic: str | None = None
    provided_data: list[dict[str, Any]] | dict[str, Any] | None = Field(
        None, description='The problem row (or rows): {"id", "test": [{"input", "output"}]}.'
    )
    extra: dict[str, Any] = Field(default_factory=dict, description='{"run_all_cases": bool}')


class SubmitRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    dataset: str
    id: int | str
    completion: str
    config: SubmitConfig


class StdioCase(BaseModel):
    """One CommonOJ test: ``input["stdin"]`` in, ``output["stdout"]`` expected."""

    input: dict[str, str]
    output: dict[str, str]


class EvalTestCase(BaseModel):
    __test__ = False

    passed: bool
    exec_info: RunCodeResponse
    test_info: dict[str, Any] | None = None


class EvalResult(BaseModel):
    id: int | str
    accepted: bool
    extracted_code: str
    tests: list[EvalTestCase]


class RewardRequest(BaseModel):
    """OpenRLHF's remote reward call; ``query`` is prompt + response as the trainer decoded it."""

    model_config = ConfigDict(extra="ignore")

    query: list[str]
    prompts: list[str] | None = None
    labels: list[str | dict[str, Any]] | None = None


class RewardResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]]
