"""The docker-compose stack end to end: ``scripts/compose-smoke`` builds its images, judges one
submission through api -> Redis -> worker -> sibling sandbox (PostgreSQL as the store), and
tears the stack down. About 50 s on a machine without the stack images, 10 s with them."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import docker
import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "judge-smoke-test"


def _free_ports(count: int) -> list[int]:
    """Ports free right now, so that a second suite running on this host does not collide
    with this one on the script's fixed defaults (the stack binds the host's network)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.integration
def test_compose_stack_judges_a_submission_and_leaves_nothing_behind() -> None:
    api, redis, postgres = _free_ports(3)
    env = {
        **os.environ,
        "JUDGE_STACK_PROJECT": f"{PROJECT}-{os.getpid()}",
        "JUDGE_STACK_API_PORT": str(api),
        "JUDGE_STACK_REDIS_PORT": str(redis),
        "JUDGE_STACK_POSTGRES_PORT": str(postgres),
    }
    env.pop("JUDGE_API_KEYS", None)
    done = subprocess.run(
        [str(ROOT / "scripts" / "compose-smoke")],
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "verdict AC, pass_rate 1.0" in done.stdout
    assert '"total": 1.0' in done.stdout
    client = docker.from_env()
    project = f"com.docker.compose.project={env['JUDGE_STACK_PROJECT']}"
    assert client.containers.list(all=True, filters={"label": project}) == []
    assert client.volumes.list(filters={"label": project}) == []
