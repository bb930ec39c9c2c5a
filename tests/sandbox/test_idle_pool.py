"""Languages cost nothing until used: a pool starts with its language's first job, its idle
sandboxes are closed after ``sandbox_idle_s``, and a missing image names its build command."""

from __future__ import annotations

import time

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxUnavailable
from judge_service.sandbox.images import build_command
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox._fake_sandboxes import FakeSandbox, fake_pool


def _pool(idle_s: float) -> tuple[SandboxPool, list[FakeSandbox]]:
    return fake_pool(SandboxConfig(sandboxes_per_language=3, sandbox_idle_s=idle_s))


def test_no_sandbox_starts_before_a_language_is_used() -> None:
    pool, started = _pool(300)
    with pool:
        assert started == [] and pool.occupancy() == {}
        pool.warm(["ruby"], count=2)
        assert [s.language for s in started] == ["ruby", "ruby"]
        assert set(pool.occupancy()) == {"ruby"}


def test_idle_sandboxes_are_closed_after_the_idle_time() -> None:
    pool, started = _pool(300)
    with pool:
        pool.warm(["php"], count=3)
        assert pool.reap_idle(time.monotonic() + 10) == 0  # not idle long enough
        assert pool.reap_idle(time.monotonic() + 301) == 3
        assert all(s.closed for s in started)
        assert pool.occupancy()["php"] == {"busy": 0, "idle": 0, "capacity": 3}
        assert pool.stats.sandboxes_destroyed == 3
        pool.warm(["php"], count=1)  # the language starts again on its next use
        assert len(started) == 4 and not started[-1].closed


def test_the_reaper_thread_shrinks_an_unused_pool() -> None:
    pool, started = _pool(0.2)
    with pool:
        pool.warm(["lua"], count=2)
        deadline = time.monotonic() + 5
        while pool.occupancy()["lua"]["idle"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool.occupancy()["lua"]["idle"] == 0
        assert all(s.closed for s in started)


def test_idle_zero_keeps_sandboxes() -> None:
    pool, started = _pool(0)
    with pool:
        pool.warm(["perl"], count=1)
        time.sleep(0.3)
        assert pool.occupancy()["perl"]["idle"] == 1 and not started[0].closed


def test_build_command_names_the_prefix_only_when_it_is_not_the_default() -> None:
    assert build_command("php", "judge-sandbox-") == "judge images build --lang php"
    assert build_command("cpp17", "x-") == "JUDGE_IMAGE_PREFIX=x- judge images build --lang cpp17"


@pytest.mark.integration
def test_a_missing_image_is_a_system_error_naming_its_build_command() -> None:
    config = SandboxConfig(sandboxes_per_language=1, image_prefix="judge-no-such-image-")
    job = Job(language="ruby", code="puts 1", tests=[{"input": "", "output": "1"}])
    with SandboxPool(config) as pool:
        with pytest.raises(SandboxUnavailable) as raised:
            pool.judge(job)
        message = str(raised.value)
        assert "judge-no-such-image-ruby is missing" in message
        assert "JUDGE_IMAGE_PREFIX=judge-no-such-image- judge images build --lang ruby" in message
        (result,) = pool.judge_many([job])
        assert result.verdict is Verdict.SE and "judge images build --lang ruby" in (
            result.system_error or ""
        )
