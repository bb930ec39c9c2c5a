"""Sandboxes a dead judge process left behind are removed; another process's never, and one that
another process removes meanwhile fails nothing."""

from __future__ import annotations

import os
import socket
import subprocess
from typing import Any

import docker
import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.sandbox import OWNER_LABEL, SANDBOX_LABEL, remove_stale_sandboxes


def _dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


class _RacingApi:
    """The Engine API as another judge process destroys one of its sandboxes meanwhile: the
    container is listed, then gone by the time it is asked about or removed."""

    def __init__(self, dead_owner: str) -> None:
        self.entries = [
            {"Id": "gone", "Labels": {SANDBOX_LABEL: "1", OWNER_LABEL: dead_owner}},
            {"Id": "stale", "Labels": {SANDBOX_LABEL: "1", OWNER_LABEL: dead_owner}},
            {"Id": "live", "Labels": {SANDBOX_LABEL: "1", OWNER_LABEL: _owner(os.getpid())}},
        ]
        self.removed: list[str] = []

    def containers(self, all: bool, filters: dict[str, Any]) -> list[dict[str, Any]]:
        assert all and filters == {"label": SANDBOX_LABEL}
        return self.entries

    def remove_container(self, container: str, force: bool) -> None:
        if container == "gone":
            raise docker.errors.NotFound("No such container: gone")
        self.removed.append(container)


class _RacingClient:
    def __init__(self, dead_owner: str) -> None:
        self.api = _RacingApi(dead_owner)

    @property
    def containers(self) -> Any:
        # docker-py's containers.list() inspects every container it lists: here, as in the
        # race, one of them is gone by then.
        raise docker.errors.NotFound("No such container: gone")


def _owner(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}"


def test_a_sandbox_removed_meanwhile_fails_nothing() -> None:
    client = _RacingClient(_owner(_dead_pid()))
    assert remove_stale_sandboxes(client) == 1  # type: ignore[arg-type]
    assert client.api.removed == ["stale"]


@pytest.mark.integration
def test_only_sandboxes_of_dead_judge_processes_are_removed() -> None:
    client = docker.from_env()
    image = SandboxConfig().image_prefix + "base"
    made = {
        owner: client.containers.create(
            image, ["true"], labels={SANDBOX_LABEL: "1", OWNER_LABEL: _owner(pid)}
        )
        for owner, pid in (("dead", _dead_pid()), ("live", os.getpid()))
    }
    try:
        assert remove_stale_sandboxes(client) >= 1
        left = {container.id for container in client.containers.list(all=True)}
        assert made["dead"].id not in left
        assert made["live"].id in left
    finally:
        for container in made.values():
            try:
                container.remove(force=True)
            except docker.errors.NotFound:
                pass
