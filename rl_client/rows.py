"""Rows from JSON lines, JSON, parquet, a ``datasets.Dataset`` or any iterable of mappings,
and problems taken out of such rows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["PROBLEM_FIELDS", "RowSource", "problem_of_row", "read_rows", "write_jsonl"]

RowSource = str | Path | Iterable[Mapping[str, Any]]

# Fields of a problem that a table format may hold as JSON text (parquet has no "any" type).
_JSON_FIELDS = ("tests", "checker", "reference")
# A problem's fields on the wire; a row that is a problem may have other columns (a prompt).
PROBLEM_FIELDS = frozenset(
    {
        "id",
        "mode",
        "tests",
        "entry_point",
        "checker",
        "time_limit_ms",
        "memory_limit_mb",
        "reference",
        "optimal_complexity",
        "input_generator",
    }
)


def read_rows(source: RowSource) -> Iterator[dict[str, Any]]:
    """Each row of ``source`` as a dict: a path to ``.jsonl``/``.json``/``.parquet``, or an
    iterable of mappings (a ``datasets.Dataset`` iterates as one)."""
    if isinstance(source, str | Path):
        yield from _read_file(Path(source))
        return
    for row in source:
        if not isinstance(row, Mapping):
            raise TypeError(f"a row must be a mapping, not {type(row).__name__}")
        yield dict(row)


def _read_file(path: Path) -> Iterator[dict[str, Any]]:
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        yield from _read_parquet(path)
    elif suffix == ".json":
        data = json.loads(path.read_text())
        yield from read_rows(data if isinstance(data, list) else [data])
    elif suffix in (".jsonl", ".ndjson"):
        with path.open() as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}:{number}: not JSON: {error}") from error
                if not isinstance(row, dict):
                    raise ValueError(f"{path}:{number}: a row must be a JSON object")
                yield row
    else:
        raise ValueError(f"{path}: unknown format (expected .jsonl, .json or .parquet)")


def _read_parquet(path: Path) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("reading parquet needs pyarrow: pip install pyarrow") from error
    table = pq.read_table(path)
    for batch in table.to_batches():
        yield from batch.to_pylist()


def problem_of_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The problem a row holds: the row's problem fields when it has ``tests`` (its other
    columns, a prompt say, are not the problem's), else its ``problem`` column (an object or
    its JSON text, sent as it is). Null fields are left out (the service's defaults apply) and
    fields a table stored as JSON text are decoded."""
    if "tests" in row:
        problem = {key: value for key, value in row.items() if key in PROBLEM_FIELDS}
    elif row.get("problem") is not None:
        inner = row["problem"]
        problem = json.loads(inner) if isinstance(inner, str) else dict(inner)
        if not isinstance(problem, dict):
            raise ValueError("a row's 'problem' must be a JSON object")
    else:
        raise ValueError("a problem row needs 'tests' (a problem) or 'problem' (one inline)")
    for name in _JSON_FIELDS:
        value = problem.get(name)
        if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
            problem[name] = json.loads(value)
    return {key: value for key, value in problem.items() if value is not None}


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """Writes ``rows`` to ``path`` (replacing it) and returns how many."""
    count = 0
    with path.open("w") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count
