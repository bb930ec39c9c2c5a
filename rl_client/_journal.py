"""Append-only JSON-lines files that survive an interrupted run: each record is one line
written and flushed at once, and a torn last line (the process killed mid-write) is cut off
when the file is read again."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["append", "read_records"]


def read_records(path: Path) -> list[dict[str, Any]]:
    """The complete records in ``path`` (none if it does not exist); a torn tail is removed."""
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with path.open("r+b") as handle:
            handle.truncate(end)
    return [json.loads(line) for line in data[:end].splitlines() if line.strip()]


def append(path: Path, records: Sequence[Mapping[str, Any]]) -> None:
    if not records:
        return
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    with path.open("a") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
