"""Test data that travels once: a stdin test's input and expected output go to a sandbox as raw
bytes in a job frame's blob, named by their content hash, and the agent keeps them for later
jobs; a job whose data the sandbox already holds carries only the names.

Both sides keep the same bounded LRU (:class:`Lru`) and change it the same way, once per job
the agent ran (:meth:`Lru.admit`, with the job's keys in the order :func:`job_keys` gives): the
agent's holds the bytes, the host's (one per sandbox) only their sizes, so the host knows what
each sandbox holds without asking. Should they ever disagree, the agent answers a job that
names data it lacks with a ``missing`` frame before running anything, and the host sends the
job again with that data: a miss costs a resend, never a verdict.

The agent keeps the data in its own memory (small contents as bytes, large ones in memfds
sealed against writes, truncation and growth): it runs as the same uid as the program but is
not dumpable, so no program can read its memory or its descriptors. A test's stdin is a fresh
memfd copy of a small input (what the program does to it is gone with the test), or a new
read-only descriptor of a large input's sealed memfd. Expected outputs never leave the agent
(but for a custom checker, as before). Standard library only (sent to the agent).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Generic, TypeVar

from judge_service.sandbox.agent import wire, workdir

Value = TypeVar("Value")
# What the agent keeps of one content: its bytes, or (from SEAL_FROM bytes) a sealed memfd
# that each test reading it as stdin gets a read-only descriptor of, instead of a copy.
Kept = bytes | int
SEAL_FROM = 64 << 10
SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE


def key_of(data: bytes) -> str:
    """A content's name: its SHA-256 (the data is the problem setter's, not the program's, but
    a collision would judge one test against another's expected output)."""
    return hashlib.sha256(data).hexdigest()


def job_keys(tests: Iterable[wire.TestSpec]) -> list[str]:
    """The keys a job's tests name, each once, in the order the tests name them."""
    seen: dict[str, None] = {}
    for test in tests:
        for field in ("input_key", "output_key"):
            key = test.get(field)
            if isinstance(key, str):
                seen[key] = None
    return list(seen)


class Lru(Generic[Value]):
    """A map bounded by the bytes of its values, least recently used out first."""

    def __init__(self) -> None:
        self.entries: OrderedDict[str, tuple[int, Value]] = OrderedDict()
        self.bytes = 0

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: str) -> Value | None:
        entry = self.entries.get(key)
        return None if entry is None else entry[1]

    def missing(self, keys: Iterable[str]) -> list[str]:
        return [key for key in keys if key not in self.entries]

    def admit(
        self, keys: list[str], new: Mapping[str, tuple[int, Value]], bound: int
    ) -> list[Value]:
        """A job ran with ``keys`` (``new`` came with it): add what is new, mark every key the
        most recently used (in order), then drop the least recently used until the values fit
        in ``bound`` bytes, a job's own keys too (the job holds its data while it runs).
        Returns the values dropped. Every key is in ``new`` or already here."""
        for key in keys:
            if key in self.entries:
                self.entries.move_to_end(key)
            else:
                size, value = new[key]
                self.entries[key] = (size, value)
                self.bytes += size
        dropped = []
        while self.bytes > bound and self.entries:
            _, (size, value) = self.entries.popitem(last=False)
            self.bytes -= size
            dropped.append(value)
        return dropped

    def forget(self, keys: Iterable[str]) -> None:
        for key in keys:
            entry = self.entries.pop(key, None)
            if entry is not None:
                self.bytes -= entry[0]


def keep(data: bytes) -> Kept:
    """What the agent keeps of ``data``: a large content in a memfd nobody can change (sealed
    against writes, truncation and growth, and against removing the seals), its bytes else."""
    if len(data) < SEAL_FROM:
        return data
    created = os.memfd_create("test-data", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    fd = fcntl.fcntl(created, fcntl.F_DUPFD_CLOEXEC, 100)  # above a child's stream numbers
    os.close(created)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, SEALS)
    except BaseException:
        os.close(fd)
        raise
    return fd


def content(kept: Kept) -> bytes:
    if isinstance(kept, bytes):
        return kept
    return workdir.read_memfd(kept, os.fstat(kept).st_size)


def reader(fd: int) -> int:
    """A read-only descriptor of a kept memfd with an offset of its own (a test's stdin). The
    file mode is set first: a program of the agent's uid may have changed it on the inode."""
    os.fchmod(fd, 0o400)
    opened = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
    moved = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(opened)
    return moved


def release(dropped: Iterable[Kept]) -> None:
    for kept in dropped:
        if isinstance(kept, int):
            os.close(kept)


def unpack(entries: list[wire.DataEntry], blob: bytes, offset: int) -> dict[str, bytes]:
    """The data a job frame carries, from ``offset`` of its blob (after its files)."""
    found = {}
    view = memoryview(blob)
    for entry in entries:
        found[entry["key"]] = bytes(view[offset : offset + entry["size"]])
        offset += entry["size"]
    return found
