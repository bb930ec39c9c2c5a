"""The adversarial tests' pools and host fixtures."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    EVENTS,
    HOST_SERVICES,
    host_port_open,
)


# ---- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spool(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool
        summary = (
            f"adversarial pool: {pool.stats.jobs} jobs, {pool.stats.sandboxes_started} "
            f"sandboxes started, {pool.stats.sandboxes_destroyed} destroyed"
        )
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            reporter.write_line(summary)
            for event in EVENTS:
                reporter.write_line("  " + event)
    EVENTS.clear()  # the next module's summary has its own


@pytest.fixture
def fresh_pool() -> Iterator[SandboxPool]:
    """A pool of its own, for attacks whose damage would otherwise leak into later tests."""
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool


@pytest.fixture(scope="module")
def host_services() -> dict[str, bool]:
    """Which host services on loopback were reachable from the host before the attacks."""
    return {name: host_port_open(port) for name, port in HOST_SERVICES.items()}


@pytest.fixture
def host_listener() -> Iterator[socket.socket]:
    """A TCP listener on the host's 127.0.0.1, so 'blocked' is meaningful even without Redis."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    yield listener
    listener.close()
