"""Shared fixtures. Integration tests use real Docker sandboxes; they fail, never skip,
when Docker or the images are missing (CI must run them: see .ci/run)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import judge_service.sandbox._jobs as jobs_module
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, JobResult
from judge_service.sandbox.pool import SandboxPool


@pytest.fixture(scope="session")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=2)) as sandbox_pool:
        yield sandbox_pool


@pytest.fixture
def judge(pool: SandboxPool) -> Any:
    """``judge(language, code, tests, **job_fields) -> JobResult``."""

    def run(language: str, code: str, tests: list[dict[str, Any]], **fields: Any) -> JobResult:
        return pool.judge(Job(language=language, code=code, tests=tests, **fields))

    return run


@pytest.fixture(params=["planned", "runner"])
def assert_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Python assert-mode tests both ways: judged as planned calls when the test code allows
    it (judge_service/sandbox/_assert_plan.py), and always through the runner process."""
    if request.param == "runner":
        monkeypatch.setattr(jobs_module, "plan", lambda *_: None)
    return str(request.param)
