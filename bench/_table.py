"""One row per workload: our figure beside a reference measured in the same run."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Row:
    """``ratio`` is ours / reference; ``higher_is_better`` says which way it should go."""

    workload: str
    ours: float
    reference: float | None
    unit: str
    reference_name: str
    command: str
    higher_is_better: bool = True
    goal: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference is None or self.reference == 0:
            return None
        return self.ours / self.reference


def best(values: Sequence[float], higher_is_better: bool = True) -> float:
    """The best of rounds run on a shared machine: other work only ever slows a round down."""
    return max(values) if higher_is_better else min(values)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


BEGIN = "<!-- judge bench: begin -->"
END = "<!-- judge bench: end -->"


def replace_block(text: str, table: str) -> str:
    """``text`` with what stands between the :data:`BEGIN` and :data:`END` markers (the
    README's current figures) replaced by ``table``; the markers stay, so the next run replaces
    it again."""
    start, stop = text.find(BEGIN), text.find(END)
    if start < 0 or stop < start:
        raise ValueError(f"no {BEGIN} ... {END} block to replace")
    return f"{text[: start + len(BEGIN)]}\n{table.strip()}\n{text[stop:]}"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


def markdown(rows: Sequence[Row]) -> str:
    """The table as Markdown (what the README quotes)."""
    lines = [
        "| workload | ours | reference (same run) | ratio | goal | command |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        ratio = row.ratio
        shown = "-" if ratio is None else f"{ratio:.2f}x"
        reference = (
            f"{_number(row.reference)} {row.unit} ({row.reference_name})"
            if row.reference is not None
            else row.reference_name or "-"
        )
        lines.append(
            f"| {row.workload} | {_number(row.ours)} {row.unit} | {reference} | {shown} "
            f"| {row.goal or '-'} | `{row.command}` |"
        )
    return "\n".join(lines)
