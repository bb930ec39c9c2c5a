"""The service's wire format: problems, judge requests and results (HTTP, Celery, store)."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from judge_service import client_json
from judge_service.sandbox.models import Checker, TestMode, Verdict


class WireModel(BaseModel):
    """A model of client input: every key, and every field's raw value, must be JSON that
    :mod:`judge_service.client_json` accepts. A field that is not is an error naming it and the
    path within it, so nothing the store, a sandbox or a JSON reply cannot hold gets in."""

    @model_validator(mode="before")
    @classmethod
    def _keys_are_text(cls, data: Any) -> Any:
        # Values are checked field by field; a key no field has would reach an error's location.
        if isinstance(data, dict):
            _accept(dict.fromkeys(data))
        return data

    @field_validator("*", mode="before")
    @classmethod
    def _client_json(cls, value: Any) -> Any:
        _accept(value)
        return value


def _accept(value: Any) -> None:
    reason = client_json.problem(value)
    if reason is not None:
        raise PydanticCustomError("client_json", "{reason}", {"reason": reason})


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid")

    language: str
    code: str


class Problem(WireModel):
    """A problem: its tests, limits, and what the complexity judge compares against."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    mode: TestMode = TestMode.STDIN
    tests: list[dict[str, Any] | str] = Field(
        min_length=1,
        description='stdin: {"input", "output"}; function: {"args", "kwargs"?, "expected"}; '
        'assert: the test code (a string or {"code"}).',
    )
    entry_point: str | None = Field(None, description="Function name or Solution.method.")
    checker: Checker = Field(default_factory=Checker)
    time_limit_ms: int = Field(2000, ge=1)
    memory_limit_mb: int = Field(256, ge=8)
    reference: Reference | None = Field(None, description="The optimal solution.")
    # Bounded: a class name is short, and parsing one is quadratic in the number of "O(" in it.
    optimal_complexity: str | None = Field(
        None, max_length=100, description='For example "O(n log n)".'
    )
    input_generator: str | None = Field(
        None, description="Python code defining generate(n) -> an input of size n."
    )
    prompt: str | None = Field(
        None,
        description="The code submissions continue (a HumanEval-style prompt): assert-mode "
        "tests that call its helpers (such as poly) get the prompt's, never the submission's.",
    )

    @model_validator(mode="after")
    def _entry_point_for_call_modes(self) -> Problem:
        if self.mode is not TestMode.STDIN and not self.entry_point:
            raise ValueError(f"{self.mode.value} mode needs an entry_point")
        return self

    def test_cases(self) -> list[dict[str, Any]]:
        """Tests in the engine's shape (an assert test given as a string becomes {"code"})."""
        return [{"code": test} if isinstance(test, str) else test for test in self.tests]

    def content_hash(self) -> str:
        """Identifies a version: any edit of any field makes a new version."""
        # Unset later fields stay out, so that a problem stored before they existed keeps its
        # version.
        fields = self.model_dump(mode="json", exclude={"prompt"} if self.prompt is None else None)
        canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()


class ComplexityMode(StrEnum):
    AUTO = "auto"
    OFF = "off"
    REQUIRED = "required"


class JudgeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stop_on_first_failure: bool = False
    complexity: ComplexityMode = ComplexityMode.AUTO


class SubmissionIn(WireModel):
    """One candidate: a problem (by id or inline), a language, and code or a raw completion."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    problem_id: str | None = None
    problem: Problem | None = None
    problem_hash: str | None = Field(
        None,
        pattern="^[0-9a-f]{64}$",
        description="An inline problem sent before, by the SHA-256 of its JSON with sorted keys, "
        "no whitespace and ASCII escapes (Python's json.dumps(problem, sort_keys=True, "
        "separators=(',', ':'))). An error starting 'unknown problem_hash' means: send it inline.",
    )
    language: str
    code: str | None = None
    completion: str | None = None


class JudgeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Items stay loosely typed here so that one malformed item fails alone (status "error").
    submissions: list[Any]
    options: JudgeOptions = Field(default_factory=JudgeOptions)

    def for_store(self, submissions: list[Any] | None = None) -> dict[str, Any]:
        """The request as a queued job keeps it, to be resumed, with ``submissions`` in place of
        its own when given. An item no store can hold (one client_json refuses, so its result
        is an error) is kept as null, which a resumed job rejects as well; the result already
        stored for it stands."""
        items = self.submissions if submissions is None else submissions
        return {
            "submissions": [None if client_json.problem(item) else item for item in items],
            "options": self.options.model_dump(mode="json"),
        }


class TestOut(BaseModel):
    __test__ = False

    verdict: Verdict
    time_ms: float
    memory_kb: int
    limit: Literal["cpu", "wall", "budget"] | None = Field(
        None, description="Which time limit stopped the test (TLE only)."
    )


class RewardOut(BaseModel):
    format: float
    correctness: float
    time: float
    total: float


class ComplexityOut(BaseModel):
    predicted: str
    reference: str | None
    method: str
    confidence: float
    decided_by: str | None = None
    signals: list[dict[str, Any]] = Field(default_factory=list)
    time_reward_abstained: str | None = Field(
        None,
        description="Why the class that decided may not pay R_time (a static estimate in a "
        "bucket whose held-out precision is below the bar): R_time is 0, as for 'unknown'.",
    )


class SubmissionResult(BaseModel):
    id: str | None
    status: Literal["ok", "error", "system_error"]
    error: str | None = None
    verdict: Verdict | None = None
    pass_rate: float | None = None
    tests: list[TestOut] = Field(default_factory=list)
    compile_output: str | None = None
    truncated: bool = Field(
        False,
        description="compile_output is cut: the reply's compiler output reached the "
        "max_reply_output_bytes setting.",
    )
    reward: RewardOut | None = None
    complexity: ComplexityOut | None = None
    cached: bool = False
    load_dependent: bool = Field(
        False,
        description="A wall-clock limit decided part of the verdict even after judging again "
        "with more time: it may depend on how busy the host was, so it was not cached.",
    )


class JudgeResponse(BaseModel):
    results: list[SubmissionResult]


class SubmitResponse(BaseModel):
    job_id: str
    status: str
    total: int


class JobStatus(BaseModel):
    job_id: str
    status: Literal["queued", "running", "done", "failed"]
    total: int
    completed: int
    results: list[SubmissionResult] | None = None
    error: str | None = None
