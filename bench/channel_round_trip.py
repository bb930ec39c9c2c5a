"""Host-agent round trips: Docker's attach stream against the two FIFOs of ``_channel``.

One container per channel runs an echo loop (the agent's part: read a frame, write it back); the
host sends ``--size``-byte frames and waits for each echo. Prints the wall time per round trip,
the CPU dockerd and containerd (with its shims) spent on it, and the host process's own CPU.

    .venv/bin/python bench/channel_round_trip.py [--round-trips 3000] [--size 600]
"""

from __future__ import annotations

import argparse
import os
import select
import time
from collections.abc import Callable

import docker

from judge_service.sandbox._channel import FifoChannel

ECHO = r"""
import os, sys
if len(sys.argv) > 2:
    out = os.open(sys.argv[2], os.O_WRONLY | os.O_NONBLOCK)
    inp = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(out, True)
    os.set_blocking(inp, True)
else:
    inp, out = 0, 1
os.write(out, b"r")
while data := os.read(inp, 1 << 16):
    os.write(out, data)
"""
IMAGE = "judge-sandbox-python"
SANDBOX_USER = "65534:65534"


def docker_cpu_ms() -> float:
    ticks = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                name = comm.read().strip()
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if name.startswith(("dockerd", "containerd")):
            ticks += int(fields[11]) + int(fields[12])
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def measure(name: str, round_trip: Callable[[], None], count: int) -> None:
    for _ in range(100):
        round_trip()
    docker_before, cpu_before, started = docker_cpu_ms(), time.process_time(), time.perf_counter()
    for _ in range(count):
        round_trip()
    wall = time.perf_counter() - started
    docker_us = (docker_cpu_ms() - docker_before) * 1000 / count
    host_us = (time.process_time() - cpu_before) * 1e6 / count
    print(
        f"{name:7s} {wall / count * 1e6:7.1f} us a round trip; CPU: docker {docker_us:6.1f} us, "
        f"host process {host_us:5.1f} us"
    )


def attach(client: docker.DockerClient, frame: bytes, count: int) -> None:
    container = client.containers.create(
        IMAGE, ["python3", "-c", ECHO], stdin_open=True, network_mode="none", user=SANDBOX_USER
    )
    try:
        attached = container.attach_socket(params={"stdin": 1, "stdout": 1, "stream": 1})
        sock = getattr(attached, "_sock", attached)
        container.start()
        sock.recv(16)

        def round_trip() -> None:
            sock.sendall(frame)
            received = 0
            while received < len(frame) + 8:  # the stream's 8-byte header
                received += len(sock.recv(1 << 16))

        measure("attach", round_trip, count)
    finally:
        container.remove(force=True)


def fifos(client: docker.DockerClient, frame: bytes, count: int) -> None:
    channel = FifoChannel.create(SANDBOX_USER)
    if channel is None:
        print("fifo    not available (needs root and a numeric sandbox user)")
        return
    paths = channel.agent_paths()
    container = client.containers.create(
        IMAGE,
        ["python3", "-c", ECHO, paths["to_agent"], paths["from_agent"]],
        network_mode="none",
        user=SANDBOX_USER,
        read_only=True,
        mounts=channel.docker_mounts(),
    )
    try:
        container.start()
        # The echo opens its end after start: till then a read sees no writer (an end).
        select.select([channel._reader], [], [], 30)
        assert channel.receive(time.monotonic() + 30) == b"r"
        channel.connect()

        def round_trip() -> None:
            deadline = time.monotonic() + 10
            channel.send(frame, deadline)
            received = 0
            while received < len(frame):
                received += len(channel.receive(deadline))

        measure("fifo", round_trip, count)
    finally:
        channel.close()
        container.remove(force=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--round-trips", type=int, default=3000)
    parser.add_argument("--size", type=int, default=600, help="frame bytes (a job's is 0.5-2 KB)")
    args = parser.parse_args()
    client = docker.from_env()
    frame = os.urandom(args.size)
    attach(client, frame, args.round_trips)
    fifos(client, frame, args.round_trips)


if __name__ == "__main__":
    main()
