"""A test the OOM killer stopped is judged again alone on its host.

When every sandbox together meets the common memory cap (see ``_cgroup_memory``), the kernel
takes the largest program, whatever its answer: a correct program beside others holding memory
is stopped, and so is a wrong one that made itself the largest (a policy learns that holding
memory turns its zero into a system error, or into another judging). Which of them it was cannot
be told from that run. So a job that had a process stopped so is judged again with no other job
running on the host, in every worker process that shares the host's CPU slots: then no one
else's memory can stop it, and the verdict of that judging stands.

Two lock files beside the CPU slots' (``flock``, so every process on the host takes part): each
job holds ``memory-running`` shared while it runs, taking it through ``memory-gate``; a job
judged alone takes the gate exclusively (no job starts after it), then ``memory-running``
exclusively (every running job has finished). Rare (only when the cap was met), and bounded by
the longest running job. A job whose deadline comes before it could be judged alone keeps its
first run's verdict (see ``pool``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator

# How often a job waiting to be judged alone looks again (it waits only until its deadline).
_POLL_S = 0.005


class _Files:
    """One thread's descriptors of the two lock files: ``flock`` tells owners apart by open
    file, so each thread holds its own (closed with the thread's local data)."""

    def __init__(self, paths: tuple[str, str]) -> None:
        self.gate, self.running = (
            os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666) for path in paths
        )

    def __del__(self) -> None:
        for fd in (self.gate, self.running):
            with contextlib.suppress(OSError):
                os.close(fd)


class MemoryGate:
    """Jobs run together (``shared``), or one alone (``alone``), on this host."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._paths = (
            os.path.join(directory, "memory-gate"),
            os.path.join(directory, "memory-running"),
        )
        self._local = threading.local()

    def _files(self) -> _Files:
        files: _Files | None = getattr(self._local, "files", None)
        if files is None:
            os.makedirs(self.directory, exist_ok=True)
            files = self._local.files = _Files(self._paths)
        return files

    @contextlib.contextmanager
    def shared(self) -> Iterator[None]:
        """Run beside other jobs: waits while a job is judged alone."""
        if getattr(self._local, "alone", False):  # the job judged alone, running its run
            yield
            return
        files = self._files()
        fcntl.flock(files.gate, fcntl.LOCK_SH)
        try:
            fcntl.flock(files.running, fcntl.LOCK_SH)
        finally:
            fcntl.flock(files.gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(files.running, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def alone(self, deadline: float | None = None) -> Iterator[bool]:
        """Run with no other job on the host: yields True once every running job has finished
        and none may start, False if that did not happen by ``deadline`` (monotonic)."""
        files = self._files()
        if not _lock(files.gate, deadline):
            yield False
            return
        try:
            if not _lock(files.running, deadline):
                yield False
                return
            self._local.alone = True
            try:
                yield True
            finally:
                self._local.alone = False
                fcntl.flock(files.running, fcntl.LOCK_UN)
        finally:
            fcntl.flock(files.gate, fcntl.LOCK_UN)


def _lock(fd: int, deadline: float | None) -> bool:
    if deadline is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return True
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
