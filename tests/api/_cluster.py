"""Real infrastructure for the API's integration tests: a throwaway PostgreSQL database and
Celery workers in their own processes, on this machine's PostgreSQL and Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import docker
import httpx
import psycopg

from judge_service.sandbox.sandbox import OWNER_LABEL, remove_stale_sandboxes

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty database; yields its SQLAlchemy URL and drops it afterwards."""
    name = f"judge_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def set_connections_allowed(url: str, allowed: bool) -> None:
    """Take a database down (refuse and cut every connection) or bring it back."""
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_ADMIN, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )


def flush_redis(database: int) -> None:
    subprocess.run(["redis-cli", "-n", str(database), "FLUSHDB"], check=True, capture_output=True)


class Workers:
    """``judge worker`` processes with distinct node names; their logs go to files."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env = {**os.environ, **env}
        self.log_dir = log_dir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str) -> None:
        log = (self.log_dir / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "judge_service", "worker", "-n", f"{name}@%h"],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def log(self, name: str) -> str:
        return (self.log_dir / f"{name}.log").read_text(errors="replace")

    def kill_hard(self, name: str) -> None:
        """``kill -9``: the worker gets no chance to hand back what it holds."""
        self.processes[name].send_signal(signal.SIGKILL)
        self.processes[name].wait(timeout=10)

    def stop_gracefully(self, name: str) -> list[str]:
        """SIGTERM one worker, wait for it; the names of sandboxes it left behind."""
        process = self.processes[name]
        process.terminate()
        process.wait(timeout=60)
        owner = f"{socket.gethostname()}:{process.pid}"
        left = docker.from_env().containers.list(
            all=True, filters={"label": f"{OWNER_LABEL}={owner}"}
        )
        return [container.name for container in left]

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + 30
        for process in self.processes.values():
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        remove_stale_sandboxes(docker.from_env())  # a killed worker leaves its sandboxes


@contextmanager
def celery_workers(names: list[str], env: dict[str, str], log_dir: Path) -> Iterator[Workers]:
    workers = Workers(env, log_dir)
    try:
        for name in names:
            workers.start(name)
        yield workers
    finally:
        workers.stop()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ApiServer:
    """One ``judge serve`` process on a free loopback port; its log goes to a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "judge_service", "serve", "--port", str(self.port)],
            env={**os.environ, **env},
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout_s: float = 60) -> None:
        import httpx

        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"judge serve exited with {self.process.returncode}")
            try:
                httpx.get(f"{self.url}/health", timeout=2)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        raise TimeoutError("judge serve did not answer")

    def kill_hard(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextmanager
def serving(env: dict[str, str], log: Path) -> Iterator[ApiServer]:
    """A ready ``judge serve`` with ``env``, stopped afterwards."""
    api = ApiServer(env, log)
    try:
        api.wait_ready()
        yield api
    finally:
        api.stop()


def wait_for_workers(client: httpx.Client, count: int, timeout_s: float = 60) -> None:
    """Until the API's /health lists ``count`` Celery workers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if len(client.get("/health").json()["queue"].get("workers", [])) >= count:
            return
        time.sleep(0.5)
    raise AssertionError(f"{count} workers never answered: {client.get('/health').json()}")


def poll_job(client: httpx.Client, job_id: str, timeout_s: float = 300) -> dict[str, Any]:
    """The job once done (a TestClient is an httpx.Client too)."""
    deadline = time.monotonic() + timeout_s
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = client.get(f"/v1/submissions/{job_id}").json()
        if status["status"] == "done":
            return status
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} not done in {timeout_s} s: {status}")
