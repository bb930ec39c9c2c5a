"""Attacks on the host's side of the FIFO channel (``_channel``) by a process of the sandbox's
uid on the host (65534 is also the host's ``nobody``): between ``create`` and ``connect`` the
channel's directory belonged to that uid, so it could swap ``to-agent`` for a file of its
choosing, and ``connect`` (root) reopened the path: the job frames (code, inputs, expected
outputs) went to wherever the swapped name pointed."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_service.sandbox._channel import FROM_AGENT, TO_AGENT, FifoChannel

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the FIFOs are made for root only")


@pytest.fixture
def channel() -> Iterator[FifoChannel]:
    made = FifoChannel.create("65534:65534")
    assert made is not None
    yield made
    made.close()


def _as_sandbox_uid(action: object) -> bool:
    """Run ``action`` in a child of uid 65534 (a host process of the sandbox's uid); True
    when it completed."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            action()  # type: ignore[operator]
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _agent_ends(channel: FifoChannel) -> tuple[int, int]:
    write_fd = os.open(os.path.join(channel.directory, FROM_AGENT), os.O_WRONLY | os.O_NONBLOCK)
    read_fd = os.open(os.path.join(channel.directory, TO_AGENT), os.O_RDONLY | os.O_NONBLOCK)
    return read_fd, write_fd


def test_the_directory_is_not_the_sandbox_uids_to_change(channel: FifoChannel) -> None:
    status = os.stat(channel.directory)
    assert status.st_uid == 0 and not status.st_mode & 0o022
    victim = os.path.join(channel.directory, TO_AGENT)
    assert not _as_sandbox_uid(lambda: os.rename(victim, victim + ".old"))
    assert not _as_sandbox_uid(lambda: os.unlink(victim))
    assert stat.S_ISFIFO(os.stat(victim).st_mode)


@pytest.mark.parametrize("swap", ["symlink-to-root-file", "fifo-of-its-own"])
def test_a_swapped_to_agent_never_gets_the_frames(
    channel: FifoChannel, tmp_path: Path, swap: str
) -> None:
    read_fd, write_fd = _agent_ends(channel)
    victim = os.path.join(channel.directory, TO_AGENT)
    target = tmp_path / "root-only"
    target.write_bytes(b"root's file\n")
    os.chmod(tmp_path, 0o755)
    stolen_fd = -1

    def symlink() -> None:
        os.rename(victim, victim + ".old")
        os.symlink(str(target), victim)

    def own_fifo() -> None:
        os.rename(victim, victim + ".old")
        os.mkfifo(victim, 0o666)

    # Where the directory still lets the sandbox's uid swap the name, it does.
    swapped = _as_sandbox_uid(symlink if swap == "symlink-to-root-file" else own_fifo)
    if swapped and swap == "fifo-of-its-own":
        stolen_fd = os.open(victim, os.O_RDONLY | os.O_NONBLOCK)  # the thief's reader
    try:
        channel.connect()
        channel.send(b"secret expected output", time.monotonic() + 2)
        assert target.read_bytes() == b"root's file\n"
        if stolen_fd >= 0:
            with pytest.raises(BlockingIOError):
                os.read(stolen_fd, 100)
        assert os.read(read_fd, 100) == b"secret expected output"
    finally:
        for fd in (read_fd, write_fd, stolen_fd):
            if fd >= 0:
                os.close(fd)


def test_no_host_process_of_the_sandbox_uid_can_open_the_fifos(channel: FifoChannel) -> None:
    """Between create and connect (a container's start), a host process of uid 65534 that
    opened the FIFOs would keep its descriptors past the files' removal: read every job frame
    (expected outputs) or write verdicts. Root's directory around the FIFOs keeps it out."""
    for name, flags in (
        (TO_AGENT, os.O_RDONLY),
        (FROM_AGENT, os.O_WRONLY),
        (TO_AGENT, os.O_WRONLY),
    ):
        path = os.path.join(channel.directory, name)
        opened = _as_sandbox_uid(lambda p=path, f=flags: os.open(p, f | os.O_NONBLOCK))
        assert not opened, (name, flags)
    outer = os.stat(os.path.dirname(channel.directory))
    assert outer.st_uid == 0 and outer.st_mode & 0o077 == 0


@pytest.fixture
def crowded() -> Iterator[None]:
    """A busy judge: past 1024 descriptors (FD_SETSIZE), as hundreds of sandboxes with their
    attach sockets, two FIFOs each, and Docker's connections make it (``ulimit -n`` allowing)."""
    soft, hard = __import__("resource").getrlimit(__import__("resource").RLIMIT_NOFILE)
    if soft < 1200:
        pytest.skip("the descriptor limit stops short of FD_SETSIZE")
    null = os.open("/dev/null", os.O_RDONLY)
    held = [os.dup(null) for _ in range(1100)]
    yield
    for fd in [null, *held]:
        os.close(fd)


def test_a_silent_agent_is_a_time_out_past_fd_setsize(crowded: None) -> None:
    made = FifoChannel.create("65534:65534")
    assert made is not None and made._reader > 1024
    try:
        read_fd, write_fd = _agent_ends(made)
        made.connect()
        with pytest.raises(TimeoutError):
            made.receive(time.monotonic() + 0.2)
        os.write(write_fd, b"late")
        assert made.receive(time.monotonic() + 1) == b"late"
    finally:
        made.close()


def test_a_full_pipe_is_a_time_out_past_fd_setsize(crowded: None) -> None:
    made = FifoChannel.create("65534:65534")
    assert made is not None
    try:
        read_fd, write_fd = _agent_ends(made)
        made.connect()
        with pytest.raises(TimeoutError):
            made.send(b"x" * (4 << 20), time.monotonic() + 0.2)
        os.close(read_fd)
        with pytest.raises(BrokenPipeError):
            made.send(b"x" * (4 << 20), time.monotonic() + 1)
        os.close(write_fd)
    finally:
        made.close()


@pytest.mark.integration
def test_a_crowded_judge_still_judges(crowded: None) -> None:
    from judge_service.sandbox.config import SandboxConfig
    from judge_service.sandbox.models import Job, Verdict
    from judge_service.sandbox.pool import SandboxPool

    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        tests = [{"input": f"{n}\n", "output": f"{2 * n}\n"} for n in range(3)]
        job = Job(language="python", code="print(int(input()) * 2)", tests=tests)
        result = pool.judge_many([job])[0]
        assert result.verdict is Verdict.AC, result
        (box,) = [box for language in pool._pools.values() for box in language.idle]
        assert box._channel is not None and box._channel.connected
