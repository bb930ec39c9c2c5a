"""A direct channel between the host and a sandbox's agent: two FIFOs, past Docker.

Frames on the container's attach stream pass through dockerd and containerd-shim both ways: a
round trip of a 600-byte frame takes 128 us and 133 us of their CPU, against 19 us and none
over two FIFOs (``bench/channel_round_trip.py``). The host makes the two FIFOs in a directory
of its own, owned by root (the FIFOs by the sandbox's uid, mode 0600), inside another only
root may enter, and mounts it read-only into the container. The agent opens them at start,
before any program runs, and says so in its ready frame; the host then removes them, so no
process started later in the container (programs run as the agent's uid) can open them
again, and the mount shows an empty, deleted directory. The container's stderr still comes
over the attach stream, read before each job.

Where the agent cannot open them (a Docker daemon on another host or in another mount
namespace, a remapped uid, a judge that is not root and so cannot hand the files to the
sandbox's uid), frames stay on the attach stream: slower, never wrong.
"""

from __future__ import annotations

import math
import os
import select
import shutil
import tempfile
import time

import docker.types

from judge_service.sandbox.agent import wire

AGENT_DIR = "/run/judge"
TO_AGENT, FROM_AGENT = "to-agent", "from-agent"
_CHUNK = 1 << 20


class FifoChannel:
    """The host's ends of a sandbox's two FIFOs (see the module's docstring)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        # Opened before the container starts, so that the agent's opens never wait: a reader
        # of from-agent (the agent's write open fails without one: ENXIO), and a placeholder
        # writer of to-agent, swapped for a plain writer once the agent reads (a writer that
        # also reads would never see EPIPE when the agent dies, and would block on a full pipe).
        self._reader = os.open(os.path.join(directory, FROM_AGENT), os.O_RDONLY | os.O_NONBLOCK)
        self._writer = os.open(os.path.join(directory, TO_AGENT), os.O_RDWR | os.O_NONBLOCK)
        self.connected = False

    @classmethod
    def create(cls, sandbox_user: str, parent: str | None = None) -> FifoChannel | None:
        """Two FIFOs only the sandbox's uid may open, in a new directory under ``parent`` (the
        temporary directory by default), or None where they cannot be made so."""
        owner = _uid_gid(sandbox_user)
        if owner is None or os.geteuid() != 0:
            return None
        try:
            outer = tempfile.mkdtemp(prefix="judge-channel-", dir=parent)
        except OSError:
            return None
        # The FIFOs lie in a directory inside root's own (mode 0700): the container sees the
        # inner one only, through its mount; no host process of the sandbox's uid (65534 is
        # also the host's nobody) can reach them by path.
        directory = os.path.join(outer, "channel")
        try:
            os.mkdir(directory, 0o755)
            for name in (TO_AGENT, FROM_AGENT):
                path = os.path.join(directory, name)
                os.mkfifo(path, 0o600)
                os.chown(path, *owner)
            # The directory stays root's: the sandbox's uid (also a host uid, nobody's) may
            # open the FIFOs but never rename, replace or add a name in it.
            os.chmod(directory, 0o755)
            return cls(directory)
        except OSError:
            shutil.rmtree(outer, ignore_errors=True)
            return None

    def docker_mounts(self) -> list[docker.types.Mount]:
        # A mount, not a volume: Docker refuses a mount whose source it cannot see (a daemon
        # elsewhere), where it would make an empty directory for a volume, on its own host.
        return [docker.types.Mount(AGENT_DIR, self.directory, type="bind", read_only=True)]

    def agent_paths(self) -> wire.ChannelPaths:
        return {
            "to_agent": f"{AGENT_DIR}/{TO_AGENT}",
            "from_agent": f"{AGENT_DIR}/{FROM_AGENT}",
        }

    def connect(self) -> None:
        """The agent has both FIFOs open (its ready frame said so): take the plain writer and
        remove the files. Had the agent not opened its end after all, sending fails (EPIPE)."""
        # The new writer first: for as long as a FIFO has no writer, a reader blocked on it
        # (the agent, waiting for its first job) reads an end.
        # Reopened through the placeholder, never by name: the same FIFO, whatever the name
        # leads to by now.
        writer = os.open(f"/proc/self/fd/{self._writer}", os.O_WRONLY | os.O_NONBLOCK)
        os.close(self._writer)
        self._writer = writer
        self.connected = True
        self.remove_files()

    def remove_files(self) -> None:
        shutil.rmtree(os.path.dirname(self.directory), ignore_errors=True)

    def send(self, data: bytes, deadline: float) -> None:
        """Write all of ``data``: TimeoutError past ``deadline``, BrokenPipeError when the agent
        has gone."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._writer, view[:_CHUNK]) :]
            except BlockingIOError:
                _wait(self._writer, deadline, write=True)

    def receive(self, deadline: float) -> bytes:
        """What the agent wrote next; b"" once it has closed its end (it ended).
        TimeoutError past ``deadline``."""
        while True:
            try:
                return os.read(self._reader, _CHUNK)
            except BlockingIOError:
                _wait(self._reader, deadline, write=False)

    def close(self) -> None:
        for fd in (self._reader, self._writer):
            try:
                os.close(fd)
            except OSError:
                pass
        self.remove_files()


def _wait(fd: int, deadline: float, write: bool) -> None:
    # poll, not select: a judge with hundreds of sandboxes holds descriptors past FD_SETSIZE
    # (1024), which select refuses (ValueError).
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    poller = select.poll()
    poller.register(fd, select.POLLOUT if write else select.POLLIN)
    if not poller.poll(max(1, math.ceil(remaining * 1000))):
        raise TimeoutError


def _uid_gid(user: str) -> tuple[int, int] | None:
    """A numeric ``uid:gid`` (or ``uid``, the group then the same number); None for a name,
    which only the image's passwd file could resolve."""
    uid, _, gid = user.partition(":")
    if not uid.isdigit() or (gid and not gid.isdigit()):
        return None
    return int(uid), int(gid or uid)
