"""Compile cache: the same build inputs compile once.

An entry is run by every later job with the same inputs, whoever sent it, so its key covers
everything that can change what the compiler writes, and its artifacts are the bytes the
compiler wrote (the agent copies them out before any test runs: a program can replace its own
files while it runs).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Artifact:
    name: str
    mode: int
    content: bytes


@dataclass(frozen=True)
class CompiledProgram:
    """What a compilation produced: its artifacts on success, the compiler's output always."""

    ok: bool
    output: str
    time_ms: float
    artifacts: tuple[Artifact, ...] = ()

    @property
    def size(self) -> int:
        return len(self.output) + sum(len(artifact.content) for artifact in self.artifacts)


def compile_key(
    image_id: str,
    language: str,
    build: Mapping[str, Any],
    source: str,
    files: Mapping[str, bytes],
) -> str:
    """The key of one build: the compiler image's ID (not its tag, which a rebuild moves), the
    language, the agent's compile spec (argv, environment, artifacts, limits: a compilation cut
    short by a smaller limit fails), the source and every file sent with the job."""
    parts = [image_id.encode(), language.encode(), json.dumps(build, sort_keys=True).encode()]
    parts.append(source.encode())
    for name in sorted(files):
        parts += [name.encode(), files[name]]
    digest = hashlib.sha256()
    for part in parts:
        # Length-prefixed: file contents are arbitrary bytes, so no separator byte is safe.
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


class CompileCache:
    """A thread-safe LRU bounded by the bytes it holds."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[str, CompiledProgram] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> CompiledProgram | None:
        with self._lock:
            program = self._entries.get(key)
            if program is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return program

    def put(self, key: str, program: CompiledProgram) -> None:
        if program.size > self.max_bytes:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= previous.size
            self._entries[key] = program
            self._bytes += program.size
            while self._bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size

    def __len__(self) -> int:
        return len(self._entries)
