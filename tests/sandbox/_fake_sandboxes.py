"""A sandbox factory for pool tests that need no Docker: sandboxes that only record whether
they were closed."""

from __future__ import annotations

from typing import Any

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.pool import SandboxPool


class FakeSandbox:
    def __init__(self, language: str) -> None:
        self.language = language
        self.closed = False
        self.jobs_run = 0

    def close(self) -> None:
        self.closed = True


def fake_pool(config: SandboxConfig) -> tuple[SandboxPool, list[FakeSandbox]]:
    """A pool whose sandboxes are fakes, and the list of those it started, in order."""
    started: list[FakeSandbox] = []

    def start(language: str) -> Any:
        started.append(FakeSandbox(language))
        return started[-1]

    return SandboxPool(config, sandbox_factory=start), started
