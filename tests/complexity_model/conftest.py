"""Sandboxes for the empirical judge's integration tests: one per language, per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.pool import SandboxPool


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as shared:
        yield shared


@pytest.fixture(scope="module")
def judge(pool: SandboxPool) -> EmpiricalComplexityJudge:
    return EmpiricalComplexityJudge(pool)
