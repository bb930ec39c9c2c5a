"""The content keys of stdin tests on the host (see agent/testdata.py), remembered for the
large texts a caller judges again and again (every rollout of a problem sends the same test
objects): hashing 40 MB of tests costs about 50 ms a job, a look-up nothing.

A text is remembered by identity (``id``), with a reference that keeps it alive, so an ``id``
seen again is the same immutable text; the texts remembered are bounded in bytes, least
recently used out first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from judge_service.sandbox.agent import testdata

# Smaller texts are hashed each time (cheaper than the bookkeeping, and never worth keeping).
REMEMBER_FROM = 64 << 10
REMEMBER_BYTES = 128 << 20


@dataclass(frozen=True)
class Content:
    """A test's text as the agent gets it: its key and its size in bytes (UTF-8)."""

    text: str
    key: str
    size: int

    def encoded(self) -> bytes:
        return self.text.encode()


class _Remembered:
    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: OrderedDict[int, Content] = OrderedDict()
        self.bytes = 0
        self.lock = threading.Lock()

    def content(self, text: str) -> Content:
        if len(text) < REMEMBER_FROM:
            return _hashed(text)
        with self.lock:
            found = self.entries.get(id(text))
            if found is not None and found.text is text:
                self.entries.move_to_end(id(text))
                return found
        content = _hashed(text)
        if content.size > self.max_bytes:
            return content
        with self.lock:
            previous = self.entries.pop(id(text), None)
            if previous is not None:
                self.bytes -= previous.size
            self.entries[id(text)] = content
            self.bytes += content.size
            while self.bytes > self.max_bytes:
                _, dropped = self.entries.popitem(last=False)
                self.bytes -= dropped.size
        return content


def _hashed(text: str) -> Content:
    data = text.encode()
    return Content(text, testdata.key_of(data), len(data))


_REMEMBERED = _Remembered(REMEMBER_BYTES)


def content_of(text: str) -> Content:
    return _REMEMBERED.content(text)
