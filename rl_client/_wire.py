"""What the sync and the async client share: request bodies, batches, answers read back."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from rl_client.errors import JudgeClientError
from rl_client.rows import RowSource, problem_of_row, read_rows
from rl_client.types import JudgeOptions, Result

__all__ = [
    "DEFAULT_TIMEOUT",
    "Submission",
    "SubmissionLike",
    "UpsertedProblem",
    "batches",
    "headers",
    "judge_body",
    "problem_batches",
    "read_results",
    "read_upserted",
]

# Connecting should be quick; a batch may take minutes when its programs run long.
DEFAULT_TIMEOUT = httpx.Timeout(600.0, connect=10.0)
_PROBLEMS_PER_REQUEST = 256


@dataclass(frozen=True)
class Submission:
    """One candidate: a problem by id or inline, a language, and ``code`` or a model's raw
    ``completion`` (the service extracts the code from it)."""

    language: str = "python"
    problem_id: str | None = None
    problem: Mapping[str, Any] | None = None
    code: str | None = None
    completion: str | None = None
    id: str | None = None

    def to_wire(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


SubmissionLike = Submission | Mapping[str, Any]


@dataclass(frozen=True)
class UpsertedProblem:
    id: str
    version: int
    new_version: bool


def headers(api_key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def _wire(item: SubmissionLike) -> dict[str, Any]:
    return item.to_wire() if isinstance(item, Submission) else dict(item)


def batches(items: Iterable[SubmissionLike], size: int) -> list[list[dict[str, Any]]]:
    if size < 1:
        raise ValueError("batch_size must be at least 1")
    wire = [_wire(item) for item in items]
    return [wire[start : start + size] for start in range(0, len(wire), size)]


def judge_body(batch: list[dict[str, Any]], options: JudgeOptions) -> dict[str, Any]:
    return {"submissions": batch, "options": options.to_wire()}


def read_results(body: Any, sent: int) -> list[Result]:
    results = body.get("results") if isinstance(body, dict) else None
    if not isinstance(results, list) or len(results) != sent:
        raise JudgeClientError(
            f"the service answered {sent} submissions with "
            f"{len(results) if isinstance(results, list) else 'no'} results"
        )
    return [Result.from_wire(result) for result in results]


def problem_batches(rows: RowSource) -> list[list[dict[str, Any]]]:
    problems = [problem_of_row(row) for row in read_rows(rows)]
    return [
        problems[start : start + _PROBLEMS_PER_REQUEST]
        for start in range(0, len(problems), _PROBLEMS_PER_REQUEST)
    ]


def read_upserted(body: Any) -> list[UpsertedProblem]:
    if not isinstance(body, list):
        raise JudgeClientError("the service answered POST /v1/problems with no list")
    return [
        UpsertedProblem(item["id"], int(item["version"]), bool(item["new_version"]))
        for item in body
    ]
