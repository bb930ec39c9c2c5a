"""The host-agent channel over two FIFOs (``_channel``): frames past Docker, no way in for a
program, and the attach stream where the FIFOs cannot be had."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from judge_service.sandbox._channel import FROM_AGENT, TO_AGENT, FifoChannel, _uid_gid
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxCrashed, SandboxTimeout
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.sandbox import DOCKER_STREAM_HEADER, STDERR, Sandbox

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the FIFOs are made for root only")


def test_only_numeric_sandbox_users_get_fifos() -> None:
    assert _uid_gid("65534:65534") == (65534, 65534)
    assert _uid_gid("1000") == (1000, 1000)
    assert _uid_gid("1000:27") == (1000, 27)
    for named in ("nobody", "nobody:nogroup", "1000:users", ""):
        assert _uid_gid(named) is None
        assert FifoChannel.create(named) is None


@pytest.fixture
def channel() -> Iterator[FifoChannel]:
    if os.geteuid() != 0:
        pytest.skip("the FIFOs are made for root only")
    made = FifoChannel.create("65534:65534")
    assert made is not None
    yield made
    made.close()


def _agent_ends(channel: FifoChannel) -> tuple[int, int]:
    """Open the agent's ends as the agent does (open_channel): never waiting."""
    write_fd = os.open(os.path.join(channel.directory, FROM_AGENT), os.O_WRONLY | os.O_NONBLOCK)
    read_fd = os.open(os.path.join(channel.directory, TO_AGENT), os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(write_fd, True)
    os.set_blocking(read_fd, True)
    return read_fd, write_fd


def test_the_fifos_belong_to_the_sandbox_uid_alone(channel: FifoChannel) -> None:
    for name in (TO_AGENT, FROM_AGENT):
        status = os.stat(os.path.join(channel.directory, name))
        assert (status.st_uid, status.st_gid) == (65534, 65534)
        assert status.st_mode & 0o077 == 0, name
    # The directory is root's, so that the sandbox's uid cannot swap a name in it.
    status = os.stat(channel.directory)
    assert status.st_uid == 0 and status.st_mode & 0o022 == 0
    (mount,) = channel.docker_mounts()
    assert (mount["Source"], mount["Target"]) == (channel.directory, "/run/judge")
    assert mount["Type"] == "bind" and mount["ReadOnly"] is True


def test_connect_removes_the_files_and_frames_flow_both_ways(channel: FifoChannel) -> None:
    read_fd, write_fd = _agent_ends(channel)
    channel.connect()
    assert not Path(channel.directory).exists()
    big = os.urandom(3 << 20)  # past the pipe's buffer: the writer waits for the reader
    received = bytearray()

    def agent() -> None:
        while len(received) < len(big):
            received.extend(os.read(read_fd, 1 << 20))
        os.write(write_fd, b"answer")

    reader = threading.Thread(target=agent)
    reader.start()
    channel.send(big, time.monotonic() + 10)
    reader.join(10)
    assert bytes(received) == big
    assert channel.receive(time.monotonic() + 10) == b"answer"
    os.close(read_fd)
    os.close(write_fd)


def test_a_silent_agent_is_a_time_out_and_a_gone_one_an_end(channel: FifoChannel) -> None:
    read_fd, write_fd = _agent_ends(channel)
    channel.connect()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        channel.receive(started + 0.2)
    assert 0.15 < time.monotonic() - started < 5
    with pytest.raises(TimeoutError):  # the agent reads nothing: the pipe fills, then waits
        channel.send(b"x" * (4 << 20), time.monotonic() + 0.2)
    os.close(write_fd)
    assert channel.receive(time.monotonic() + 5) == b""
    os.close(read_fd)
    with pytest.raises(BrokenPipeError):
        channel.send(b"frame", time.monotonic() + 5)


def test_sending_fails_when_the_agent_never_opened_its_end(channel: FifoChannel) -> None:
    channel.connect()
    with pytest.raises(BrokenPipeError):
        channel.send(b"frame", time.monotonic() + 5)


def test_an_agent_waiting_for_its_first_job_never_reads_an_end(channel: FifoChannel) -> None:
    """Between the placeholder writer and the plain one, the FIFO must never be without a
    writer: the agent, blocked reading, would take that as the host closing the channel."""
    read_fd, write_fd = _agent_ends(channel)
    ends: list[bytes] = []
    reader = threading.Thread(target=lambda: ends.append(os.read(read_fd, 100)))
    reader.start()
    time.sleep(0.2)  # the agent is blocked in read(2) before the host connects
    channel.connect()
    reader.join(0.5)
    assert not ends, "the agent read an end while the host swapped its writer"
    channel.send(b"job", time.monotonic() + 5)
    reader.join(5)
    assert ends == [b"job"]
    os.close(read_fd)
    os.close(write_fd)


# ---- a real sandbox -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as started:
        yield started


def _sandboxes(pool: SandboxPool) -> list[Sandbox]:
    return [box for language in pool._pools.values() for box in language.idle]


PROBE = """\
import os
listed = sorted(os.listdir("/run/judge")) if os.path.isdir("/run/judge") else "no mount"
done = []
for path in ("/run/judge/to-agent", "/run/judge/from-agent", "/run/judge/new"):
    for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK | os.O_CREAT):
        try:
            os.close(os.open(path, flags, 0o600))
            done.append("opened " + path)
        except OSError:
            pass
try:
    os.mkfifo("/run/judge/to-agent")
    done.append("made a FIFO")
except OSError:
    pass
print(listed, done)
"""


@pytest.mark.integration
@needs_root
@pytest.mark.parametrize("language", ["python", "c"])
def test_frames_bypass_docker_and_no_program_can_reach_the_channel(
    pool: SandboxPool, language: str
) -> None:
    source, shown = (PROBE, "[] []") if language == "python" else (_C_PROBE, "ok")
    # The mount is an empty, deleted directory: nothing to open, nothing to make.
    tests = [{"input": "", "output": shown + "\n"}]
    result = pool.judge_many([Job(language=language, code=source, tests=tests)])[0]
    assert result.verdict is Verdict.AC, result
    boxes = [box for box in _sandboxes(pool) if box.language == language]
    assert boxes and all(box._channel is not None and box._channel.connected for box in boxes)
    assert not any(Path(box._channel.directory).exists() for box in boxes if box._channel)


_C_PROBE = r"""
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) {
    const char *paths[] = {"/run/judge/to-agent", "/run/judge/from-agent", "/run/judge/new"};
    for (int i = 0; i < 3; i++) {
        if (open(paths[i], O_WRONLY | O_NONBLOCK | O_CREAT, 0600) >= 0
            || open(paths[i], O_RDONLY | O_NONBLOCK) >= 0) {
            printf("opened %s\n", paths[i]);
            return 0;
        }
    }
    if (mkfifo("/run/judge/to-agent", 0600) == 0) { printf("made a FIFO\n"); return 0; }
    printf("ok\n");
    return 0;
}
"""


def _mount_elsewhere(source: str) -> object:
    def mounts(self: FifoChannel) -> list[docker.types.Mount]:
        return [docker.types.Mount("/run/judge", source, type="bind", read_only=True)]

    return mounts


@pytest.mark.integration
@needs_root
@pytest.mark.parametrize("seen_by_docker", [True, False], ids=["no-fifos", "no-directory"])
def test_frames_stay_on_the_attach_stream_where_the_fifos_cannot_be_had(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seen_by_docker: bool
) -> None:
    """A daemon that does not see the host's directory: it mounts one without the FIFOs (the
    agent cannot open them), or refuses the mount (the container starts without it). Either
    way the jobs are judged, and the channel's files are gone."""
    source = tmp_path / "elsewhere"
    if seen_by_docker:
        source.mkdir()
    monkeypatch.setattr(FifoChannel, "docker_mounts", _mount_elsewhere(str(source)))
    made: list[str] = []
    create = FifoChannel.create

    def recorded(sandbox_user: str, parent: str | None = None) -> FifoChannel | None:
        channel = create(sandbox_user, parent)
        made.extend([channel.directory] if channel else [])
        return channel

    monkeypatch.setattr(FifoChannel, "create", staticmethod(recorded))
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as fallback:
        code = "print(int(input()) * 2)"
        tests = [{"input": f"{n}\n", "output": f"{2 * n}\n"} for n in range(3)]
        result = fallback.judge_many([Job(language="python", code=code, tests=tests)])[0]
        assert result.verdict is Verdict.AC, result
        boxes = _sandboxes(fallback)
        assert boxes and all(box._channel is None for box in boxes)
    assert len(made) == 1
    assert not Path(made[0]).exists()
    # Docker made no directory of its own for a source it could not find.
    assert source.exists() == seen_by_docker


@pytest.mark.integration
@needs_root
def test_the_channel_directory_can_be_set(tmp_path: Path) -> None:
    settings = SandboxConfig(sandboxes_per_language=1, sandbox_channel_dir=str(tmp_path))
    with SandboxPool(settings) as pool:
        result = pool.judge_many(
            [Job(language="python", code="print(1)", tests=[{"input": "", "output": "1\n"}])]
        )[0]
        assert result.verdict is Verdict.AC, result
        (box,) = _sandboxes(pool)
        assert box._channel is not None and box._channel.connected
        assert Path(box._channel.directory).parent.parent == tmp_path
    assert not list(tmp_path.iterdir())


@pytest.mark.integration
@needs_root
def test_a_killed_or_frozen_sandbox_is_told_at_once_not_at_the_deadline() -> None:
    settings = SandboxConfig(sandboxes_per_language=1)
    client = docker.from_env()
    pool = SandboxPool(settings)
    try:
        frozen = pool._start_sandbox("python")
        killed = pool._start_sandbox("python")
    finally:
        pool.close()
    try:
        assert frozen._channel is not None and killed._channel is not None
        client.containers.get(frozen.id).pause()
        started = time.monotonic()
        with pytest.raises(SandboxTimeout):
            frozen.request({"op": "ping", "nonce": "n"}, timeout=0.5)
        assert time.monotonic() - started < 3
        client.containers.get(killed.id).kill()
        started = time.monotonic()
        with pytest.raises(SandboxCrashed):
            killed.request({"op": "ping", "nonce": "n"}, timeout=30)
        assert time.monotonic() - started < 10
    finally:
        client.containers.get(frozen.id).unpause()
        frozen.close()
        killed.close()


def test_the_attach_stream_is_drained_before_each_job() -> None:
    """With frames on the FIFOs, the container's stderr still arrives on the attach stream; left
    unread, a full stream (Docker holds 1-4 MB) would stop the agent and its helpers."""
    ours, container = socket.socketpair()
    sandbox = Sandbox.__new__(Sandbox)
    sandbox.language = "python"
    sandbox._socket, sandbox._pending, sandbox._frames = ours, bytearray(), bytearray()
    sandbox._stderr = deque(maxlen=64)
    line = b"warning from a helper\n" * 1000
    frames = (DOCKER_STREAM_HEADER.pack(STDERR, len(line)) + line) * 400  # 8.8 MB
    writer = threading.Thread(target=container.sendall, args=(frames,))
    writer.start()
    try:
        while writer.is_alive():  # it blocks until drained: far more than a socket holds
            sandbox._drain_attach()
            writer.join(0.01)
        sandbox._drain_attach()
        assert sandbox.diagnostics().endswith("warning from a helper\n")
        with pytest.raises(BlockingIOError):
            ours.recv(1)  # nothing left unread
    finally:
        ours.close()
        container.close()
