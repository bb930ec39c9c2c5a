"""Between result dumps (SubmissionResult-shaped dicts) and rows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from judge_service.store.models import BatchJobRow, ResultRow, SubmissionRow


def as_plain(value: Any) -> Any:
    """A pydantic model as its JSON-mode dump; anything else as it is."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def submission_row(job_id: str | None, item: Mapping[str, Any]) -> SubmissionRow:
    """A submission with its result from an ``add_results`` item (result nested or flat)."""
    result: Mapping[str, Any] = as_plain(item.get("result", item))
    tests = [as_plain(test) for test in result.get("tests") or []]
    return SubmissionRow(
        job_id=job_id,
        position=int(item["position"]),
        client_id=_text(item.get("client_id", result.get("id"))),
        problem_id=_text(item.get("problem_id")),
        problem_version=item.get("problem_version"),
        language=_text(item.get("language")),
        code_hash=_text(item.get("code_hash")),
        result=ResultRow(
            status=str(result["status"]),
            verdict=_text(result.get("verdict")),
            pass_rate=result.get("pass_rate"),
            reward=as_plain(result.get("reward")),
            complexity=as_plain(result.get("complexity")),
            tests=tests,
            compile_output=_text(result.get("compile_output")),
            error=_text(result.get("error")),
            cached=bool(result.get("cached", False)),
            load_dependent=bool(result.get("load_dependent", False)),
            truncated=bool(result.get("truncated", False)),
        ),
    )


def result_dump(submission: SubmissionRow, result: ResultRow) -> dict[str, Any]:
    """A stored result as a SubmissionResult dump (``id`` is the client id)."""
    return {
        "id": submission.client_id,
        "status": result.status,
        "error": result.error,
        "verdict": result.verdict,
        "pass_rate": result.pass_rate,
        "tests": result.tests,
        "compile_output": result.compile_output,
        "reward": result.reward,
        "complexity": result.complexity,
        "cached": result.cached,
        "load_dependent": result.load_dependent,
        "truncated": result.truncated,
    }


def job_dict(job: BatchJobRow, results: list[dict[str, Any]] | None) -> dict[str, Any]:
    return {
        "job_id": job.id,
        "status": job.status,
        "total": job.total,
        "completed": job.completed,
        "error": job.error,
        "options": job.options,
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        "results": results,
    }
