"""Wire formats of the compatibility endpoints: SandboxFusion and OpenRLHF, field for field.

Field names (``memory_limit_MB`` included) and defaults are the other projects' own, so that
their clients work unchanged. Unknown request fields are ignored, as SandboxFusion does.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judge_service.api.errors import FieldError
from judge_service.schemas import WireModel

# Linux's limits on one name in a path and on a whole path, in bytes (NAME_MAX, PATH_MAX - 1).
_NAME_BYTES, _PATH_BYTES = 255, 4095


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


def path_parts(name: str) -> list[str]:
    """The components of ``name`` as the sandbox writes it (empty and "." ones dropped)."""
    return [part for part in name.split("/") if part not in ("", ".")]


def _file_name(name: str) -> str:
    """``name`` if a sandbox can create it under its working directory; ValueError otherwise."""
    shown = repr(name[:60] + ("..." if len(name) > 60 else ""))
    parts = path_parts(name)
    if name.startswith("/") or not parts or ".." in parts:
        raise ValueError(f"{shown} is not a relative path inside the working directory")
    if "\0" in name:
        raise ValueError(f"{shown} holds a NUL character")
    if len(name.encode()) > _PATH_BYTES:
        raise ValueError(f"{shown} is longer than {_PATH_BYTES} bytes")
    if any(len(part.encode()) > _NAME_BYTES for part in parts):
        raise ValueError(f"{shown} has a component longer than {_NAME_BYTES} bytes")
    return name


class RunCodeRequest(WireModel):
    model_config = ConfigDict(extra="ignore")

    code: str = Field(examples=["print(input()[::-1])"])
    language: str = Field(
        description="A language of the README's table, by any of its names "
        "(SandboxFusion's: python, cpp, nodejs, typescript, csharp, R, bash, ...).",
        examples=["python"],
    )
    stdin: str | None = Field(None, examples=["abc\n"])
    compile_timeout: float = Field(10, gt=0, description="Seconds.")
    run_timeout: float = Field(10, gt=0, description="Seconds of wall time (also the CPU cap).")
    memory_limit_MB: int = Field(-1, description="-1: the largest this service allows.")
    files: dict[str, str | None] = Field(
        default_factory=dict, description="Relative path -> base64 content, written first."
    )
    fetch_files: list[str] = Field(
        default_factory=list, description="Relative paths copied back (missing ones omitted)."
    )

    @field_validator("files")
    @classmethod
    def _file_names(cls, files: dict[str, str | None]) -> dict[str, str | None]:
        for name in files:
            _file_name(name)
        return files

    @field_validator("fetch_files")
    @classmethod
    def _fetched_names(cls, names: list[str]) -> list[str]:
        return [_file_name(name) for name in names]


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


class SubmitRequest(WireModel):
    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            "examples": [
                {
                    "dataset": "inline",
                    "id": 1,
                    "completion": "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
                    "config": {
                        "dataset_type": "CommonOJDataset",
                        "language": "python",
                        "provided_data": {
                            "id": 1,
                            "test": [{"input": {"stdin": "1 2\n"}, "output": {"stdout": "3\n"}}],
                        },
                    },
                }
            ]
        },
    )

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


class RewardRequest(WireModel):
    """OpenRLHF's remote reward call; ``query`` is prompt + response as the trainer decoded it."""

    model_config = ConfigDict(extra="ignore")

    query: list[str]
    prompts: list[str] | None = None
    labels: list[str | dict[str, Any]] | None = None


class RewardResponse(BaseModel):
    rewards: list[float]
    scores: list[float]
    extra_logs: dict[str, list[float]]


class RowError(BaseModel):
    index: int | None = Field(description="The row; null when the request's shape is at fault.")
    error: str


class BadRowsDetail(BaseModel):
    message: str
    rows: list[RowError]


class RewardErrorOut(BaseModel):
    """An error of /openrlhf/reward: a message, invalid fields, or the rows that cannot be
    scored (HTTP 422, nothing scored)."""

    detail: str | list[FieldError] | BadRowsDetail
