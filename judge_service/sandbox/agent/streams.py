"""Tokens and lines of an output, read in batches: the comparisons' memory stays flat.

A 64 MiB output of one-byte tokens split at once is 32 million ``bytes`` objects (over a
gigabyte); compared one token at a time in Python it takes tens of seconds. Here each side is
split a chunk at a time (at C speed, cut at a separator so no item straddles two chunks) and
compared a batch at a time with one list comparison; only a batch that differs is walked item
by item. Standard library only (sent to the agent).
"""

from __future__ import annotations

from collections.abc import Callable

WHITESPACE = b" \t\n\r\x0b\x0c"
CHUNK_BYTES = 1 << 20
BATCH = 1 << 14
Same = Callable[[bytes, bytes], bool]


class Items:
    """The tokens (``lines=False``) or lines of ``data[start:end]``, taken in batches."""

    def __init__(self, data: bytes, *, lines: bool, start: int = 0, end: int | None = None):
        self.data, self.lines = data, lines
        self.offset, self.end = start, len(data) if end is None else end
        self.buffer: list[bytes] = []
        self.position = 0
        # Lines of an empty range: one empty line, as "".split("\n") gives.
        self.pending_empty_line = lines and self.offset >= self.end

    def take(self, count: int) -> list[bytes]:
        while len(self.buffer) - self.position < count and self._refill():
            pass
        batch = self.buffer[self.position : self.position + count]
        self.position += len(batch)
        if self.position >= BATCH:
            del self.buffer[: self.position]
            self.position = 0
        return batch

    def count_rest(self) -> int:
        total = 0
        while batch := self.take(BATCH):
            total += len(batch)
        return total

    def _refill(self) -> bool:
        if self.pending_empty_line:
            self.buffer.append(b"")
            self.pending_empty_line = False
            return True
        if self.offset >= self.end:
            return False
        cut = self._cut()
        piece = self.data[self.offset : cut]
        self.buffer.extend(piece.split(b"\n") if self.lines else piece.split())
        self.offset = cut + 1
        return True

    def _cut(self) -> int:
        """Where this chunk ends: a separator at most CHUNK_BYTES on, or the end."""
        limit = self.offset + CHUNK_BYTES
        if limit >= self.end:
            return self.end
        separators = b"\n" if self.lines else WHITESPACE
        cut = max(self.data.rfind(bytes([byte]), self.offset, limit) for byte in separators)
        if cut >= 0:
            return cut
        # One item longer than a chunk: it ends at the next separator.
        ends = [self.data.find(bytes([byte]), limit, self.end) for byte in separators]
        return min([end for end in ends if end >= 0], default=self.end)


def compare(got: Items, want: Items, same: Same | None, noun: str) -> tuple[bool, str]:
    """Equal counts and every pair equal (or ``same``); else the first difference."""
    index = 0
    while True:
        wanted, received = want.take(BATCH), got.take(BATCH)
        if wanted != received:
            for offset, (g, w) in enumerate(zip(received, wanted, strict=False)):
                if g != w and (same is None or not same(g, w)):
                    return False, f"{noun} {index + offset + 1}: expected {show(w)}, got {show(g)}"
            if len(wanted) != len(received):
                want_total = index + len(wanted) + want.count_rest()
                got_total = index + len(received) + got.count_rest()
                return False, f"expected {want_total} {noun}s, got {got_total}"
        if len(wanted) < BATCH:
            return True, ""
        index += BATCH


def stripped_range(data: bytes) -> tuple[int, int]:
    """Bounds of ``data`` without its surrounding whitespace (the copies are made at C speed)."""
    end = len(data.rstrip(WHITESPACE))
    return min(len(data) - len(data.lstrip(WHITESPACE)), end), end


def show(item: bytes, limit: int = 40) -> str:
    text = item.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
