"""Private brokers and databases the fault tests may kill: each on a free loopback port, its
data in a temporary directory, started and stopped by the test alone.

The machine's own Redis, RabbitMQ and PostgreSQL serve everything else running here; a fault
test never touches them. "Restarted empty" means what it says: the data directory is wiped
between the kill and the new start, so every queued message and stored result is gone.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.api._cluster import free_port


def wait_for_port(port: int, timeout_s: float, process: subprocess.Popen[bytes] | None) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout_s} s")


@contextmanager
def _scratch(kind: str, owner: str | None) -> Iterator[Path]:
    """A directory outside pytest's (which is private to root) that ``owner`` may write."""
    directory = Path(tempfile.mkdtemp(prefix=f"judge-fault-{kind}-"))
    directory.chmod(0o755)
    if owner is not None and os.geteuid() == 0:
        shutil.chown(directory, owner, owner)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
        process.wait(timeout=10)


class PrivateRedis:
    """A ``redis-server`` that keeps nothing on disk: a restart is an empty Redis."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.directory),
            ],  # fmt: skip
            stdout=(self.directory / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, 10, self.process)

    def kill(self) -> None:
        """``kill -9``: no save, no goodbye to the clients."""
        _stop(self.process)


@contextmanager
def private_redis() -> Iterator[PrivateRedis]:
    with _scratch("redis", None) as directory:
        yield from _running_redis(directory)


def _running_redis(directory: Path) -> Iterator[PrivateRedis]:
    redis = PrivateRedis(directory)
    redis.start()
    try:
        yield redis
    finally:
        redis.kill()


def _postgres_bin(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if found is None:
        raise RuntimeError(f"PostgreSQL's {name} is not installed")
    return found


def _as_postgres(argv: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the ``postgres`` user."""
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


class PrivatePostgres:
    """A PostgreSQL cluster of its own (initdb under ``directory``), trust auth on loopback."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.data = directory / "data"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        subprocess.run(
            _as_postgres(
                [
                    _postgres_bin("initdb"),
                    "-D",
                    str(self.data),
                    "-A",
                    "trust",
                    "-U",
                    "postgres",
                    "--no-sync",
                    "-E",
                    "UTF8",
                ]
            ),  # fmt: skip
            check=True,
            capture_output=True,
        )

    def _ctl(self, *args: str) -> None:
        subprocess.run(_as_postgres([_postgres_bin("pg_ctl"), "-D", str(self.data), *args]),
                       check=True, capture_output=True)  # fmt: skip

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._ctl("-o", options, "-l", str(self.directory / "postgres.log"), "-w", "start")

    def stop(self) -> None:
        """Down at once (``immediate``: no checkpoint, every connection cut)."""
        self._ctl("-m", "immediate", "-w", "stop")


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    with _scratch("postgres", "postgres") as directory:
        yield from _running_postgres(directory)


def _running_postgres(directory: Path) -> Iterator[PrivatePostgres]:
    postgres = PrivatePostgres(directory)
    postgres.start()
    try:
        yield postgres
    finally:
        try:
            postgres.stop()
        except subprocess.CalledProcessError:
            pass  # already down


class PrivateRabbitMQ:
    """A RabbitMQ node of its own name, ports and Mnesia directory beside the machine's.

    The packaged ``rabbitmq-server`` drops to the ``rabbitmq`` user, so its directory is
    theirs. ``kill`` is ``kill -9`` of the node's VM; ``start`` after ``wipe`` is a broker that
    never heard of any queue or message."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.name = f"judgefault{self.port}@localhost"
        self.url = f"amqp://guest:guest@127.0.0.1:{self.port}//"
        self.process: subprocess.Popen[bytes] | None = None
        (directory / "enabled_plugins").write_text("[].\n")
        (directory / "rabbitmq.conf").write_text("loopback_users = none\n")
        if os.geteuid() == 0:
            for path in (directory / "enabled_plugins", directory / "rabbitmq.conf"):
                shutil.chown(path, "rabbitmq", "rabbitmq")

    def _env(self) -> dict[str, str]:
        base = self.directory
        return {
            **os.environ,
            "RABBITMQ_NODENAME": self.name,
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
            "RABBITMQ_MNESIA_DIR": str(base / "mnesia" / "node"),
            "RABBITMQ_FEATURE_FLAGS_FILE": str(base / "mnesia" / "feature_flags"),
            "RABBITMQ_QUORUM_DIR": str(base / "mnesia" / "quorum"),
            "RABBITMQ_PLUGINS_EXPAND_DIR": str(base / "plugins-expand"),
            "RABBITMQ_LOG_BASE": str(base),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
            "RABBITMQ_PID_FILE": str(base / "node.pid"),
            "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(base / "advanced.config"),
        }

    def start(self, timeout_s: float = 60) -> None:
        self.process = subprocess.Popen(
            ["rabbitmq-server"],
            env=self._env(),
            cwd=self.directory,
            stdout=(self.directory / "out.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, timeout_s, self.process)

    def kill(self) -> None:
        pid_file = self.directory / "node.pid"
        if pid_file.exists() and pid_file.read_text().strip():
            try:
                os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid_file.unlink()
        _stop(self.process)

    def wipe(self) -> None:
        shutil.rmtree(self.directory / "mnesia", ignore_errors=True)


@contextmanager
def private_rabbitmq() -> Iterator[PrivateRabbitMQ]:
    with _scratch("rabbitmq", "rabbitmq") as directory:
        yield from _running_rabbitmq(directory)


def _running_rabbitmq(directory: Path) -> Iterator[PrivateRabbitMQ]:
    rabbit = PrivateRabbitMQ(directory)
    rabbit.start()
    try:
        yield rabbit
    finally:
        rabbit.kill()
