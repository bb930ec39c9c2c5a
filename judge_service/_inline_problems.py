"""Inline problems the service has seen, kept by the hash of their JSON.

RL sends the same problem with every rollout of a group, and a contest problem can carry tens
of megabytes of tests. A client sends each distinct problem inline once; later items (in the
same request or a later one) name it by ``problem_hash`` and cost a few bytes, with no JSON to
parse, no validation and no version hash to compute again.

The hash is computable by any client without asking the service: SHA-256 of the problem object
as JSON with sorted keys, no whitespace and ASCII escapes, which is Python's
``json.dumps(problem, sort_keys=True, separators=(",", ":"))``. A hash the service does not
hold (never sent, evicted, another API process, a restart) makes that item an error whose
message starts with ``UNKNOWN_HASH``; the client sends the problem inline again. The memory is
bounded by the canonical JSON's size; the least recently used problems go first.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

from judge_service.schemas import Problem

UNKNOWN_HASH = "unknown problem_hash"

__all__ = ["UNKNOWN_HASH", "InlineProblems", "problem_hash"]


def problem_hash(raw: Any) -> tuple[str, int] | None:
    """The hash that names the decoded JSON problem ``raw``, and its canonical size in bytes;
    None when it cannot be serialised (too deep), which validation reports."""
    try:
        canonical = json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()
    except (RecursionError, ValueError, TypeError):
        return None
    return hashlib.sha256(canonical).hexdigest(), len(canonical)


class InlineProblems:
    """A bounded, thread-safe map from ``problem_hash`` to the validated problem and its version
    hash (``Problem.content_hash``)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, tuple[Problem, str, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[Problem, str] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0], entry[1]

    def put(self, key: str, problem: Problem, content_hash: str, size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[2]
            self._entries[key] = (problem, content_hash, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, _, evicted) = self._entries.popitem(last=False)
                self._bytes -= evicted

    def expand(self, items: list[Any]) -> list[Any]:
        """``items`` with every known ``problem_hash`` replaced by its problem inline: what a
        queued job stores, so that resuming it after a restart does not depend on this memory."""
        dumped: dict[str, dict[str, Any]] = {}  # one copy of a problem however often named
        out = []
        for item in items:
            key = item.get("problem_hash") if isinstance(item, dict) else None
            found = self.get(key) if isinstance(key, str) else None
            if found is None:
                out.append(item)
                continue
            assert isinstance(key, str)
            if key not in dumped:
                dumped[key] = found[0].model_dump(mode="json")
            expanded = {k: v for k, v in item.items() if k != "problem_hash"}
            expanded["problem"] = dumped[key]
            out.append(expanded)
        return out

    def __len__(self) -> int:
        return len(self._entries)
