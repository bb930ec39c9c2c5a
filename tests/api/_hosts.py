"""Separate hosts on one machine: a network namespace per worker host, joined by a bridge.

Each host is a network namespace the test makes, with a veth pair to a bridge the test makes;
the broker (a redis-server of the test's own) listens on the bridge's address, the only address
outside the hosts, on a link the test made and that has no way off the machine. A host is lost
by killing every process in its namespace and deleting it (its links go with it), and comes
back as a fresh namespace on the same address.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# A private range no route on this machine uses (checked when the bridge is made).
SUBNET = "10.231.{}.{}"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def can_make_hosts() -> str:
    """Why these tests cannot run here ('' when they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "nsenter", "redis-server"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    return ""


class Hosts:
    """``count`` worker hosts on a bridge; ``broker_url`` is a redis-server on the bridge."""

    def __init__(self, count: int, log_dir: Path) -> None:
        tag = uuid.uuid4().hex[:6]
        self.tag = tag
        self.log_dir = log_dir
        self.bridge = f"jb{tag}"
        self.octet = 100 + int(tag, 16) % 150
        self.names = [f"judge-{tag}-{index}" for index in range(count)]
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.broker: subprocess.Popen[bytes] | None = None
        self.broker_url = ""

    def address(self, last: int) -> str:
        return SUBNET.format(self.octet, last)

    def start(self, broker_port: int) -> None:
        routes = subprocess.run(["ip", "route"], capture_output=True, text=True).stdout
        if SUBNET.format(self.octet, "") in routes:
            raise RuntimeError(f"{self.address(0)}/24 is routed on this machine already")
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.address(1)}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for index in range(len(self.names)):
            self.bring_up(index)
        log = (self.log_dir / "broker.log").open("wb")
        self.broker = subprocess.Popen(
            ["redis-server", "--bind", self.address(1), "--port", str(broker_port), "--save", ""]
            + ["--appendonly", "no", "--protected-mode", "no"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.broker_url = f"redis://{self.address(1)}:{broker_port}/0"
        for _ in range(100):
            ping = subprocess.run(
                ["redis-cli", "-h", self.address(1), "-p", str(broker_port), "ping"],
                capture_output=True,
                text=True,
            )
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.1)
        raise RuntimeError("the test's redis-server did not start")

    def bring_up(self, index: int) -> None:
        """The host's namespace, its veth to the bridge, its address (a host that comes back
        gets the one it had)."""
        name = self.names[index]
        outside = f"jv{self.tag}{index}"
        # A lost host's veth goes when the kernel frees its namespace, a moment after.
        subprocess.run(["ip", "link", "del", outside], capture_output=True)
        _ip("netns", "add", name)
        _ip("link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", name)
        _ip("link", "set", outside, "master", self.bridge, "up")
        _ip("-n", name, "addr", "add", f"{self.address(10 + index)}/24", "dev", "eth0")
        _ip("-n", name, "link", "set", "eth0", "up")
        _ip("-n", name, "link", "set", "lo", "up")

    def start_worker(self, index: int, env: dict[str, str], label: str = "") -> None:
        """``judge worker`` on the host (Docker through the machine's socket, as a worker on a
        node drives the node's daemon). Entered with nsenter, the network namespace only:
        ``ip netns exec`` mounts a sysfs of its own, without the cgroup files a judge reads
        and writes."""
        name = self.names[index]
        node = f"host{index}{label}"
        log = (self.log_dir / f"{node}.log").open("wb")
        self.workers[node] = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{name}", sys.executable, "-m", "judge_service"]
            + ["worker", "-n", f"{node}@%h"],
            env={**os.environ, **env, "JUDGE_BROKER_URL": self.broker_url},
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def worker_log(self, node: str) -> str:
        return (self.log_dir / f"{node}.log").read_text(errors="replace")

    def pids(self, index: int) -> list[int]:
        listed = subprocess.run(
            ["ip", "netns", "pids", self.names[index]], capture_output=True, text=True
        )
        return [int(pid) for pid in listed.stdout.split()]

    def lose(self, index: int) -> list[int]:
        """The host is gone: every process in its namespace killed at once, its links deleted.
        The pids that were killed."""
        pids = self.pids(index)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while self.pids(index) and time.monotonic() < deadline:
            time.sleep(0.05)
        for process in self.workers.values():  # reaped, as a host's init would
            if process.pid in pids:
                process.wait(timeout=10)
        _ip("netns", "del", self.names[index])
        return pids

    def stop(self) -> None:
        for process in self.workers.values():
            if process.poll() is None:
                process.terminate()
        for process in self.workers.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.broker is not None:
            self.broker.kill()
            self.broker.wait()
        for index, name in enumerate(self.names):
            for pid in self.pids(index):
                os.kill(pid, signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)


@contextmanager
def worker_hosts(count: int, log_dir: Path, broker_port: int) -> Iterator[Hosts]:
    hosts = Hosts(count, log_dir)
    try:
        hosts.start(broker_port)
        yield hosts
    finally:
        hosts.stop()
