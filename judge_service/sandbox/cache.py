"""Compile cache: the same (image, language, flags, source) compiles once."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass


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


def compile_key(image: str, language: str, argv: Sequence[str], source: str) -> str:
    digest = hashlib.sha256()
    for part in (image, language, "\0".join(argv), source):
        digest.update(part.encode())
        digest.update(b"\xff")
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
