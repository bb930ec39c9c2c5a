"""The SFT filter: keep the candidate solutions that pass every test and are time-optimal.

Time-optimal: in the problem's optimal class (its declared ``optimal_complexity``, which the
service reports as each result's ``complexity.reference``), or, when a problem declares none,
in the best class among that problem's passing candidates. A candidate whose class the judge
could not tell (``unknown``) is not kept.

Results are journaled to ``judged.jsonl`` as batches finish, so an interrupted run started
again judges only what is left; ``kept.jsonl``, ``dropped.jsonl`` (with the reason) and
``summary.json`` are written once every candidate is judged.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rl_client._journal import append, read_records
from rl_client._progress import progress_bar
from rl_client._rewarding import problem_fields
from rl_client.client import JudgeClient
from rl_client.rows import RowSource, read_rows, write_jsonl
from rl_client.types import LADDER, Result, class_rank

__all__ = ["ProblemCounts", "SftSummary", "sft_filter"]

_ROUNDS = 3  # judging rounds for items that came back as system errors


@dataclass
class ProblemCounts:
    candidates: int = 0
    passed: int = 0
    kept: int = 0
    optimal_class: str | None = None
    declared: bool = False


@dataclass
class SftSummary:
    candidates: int
    judged_now: int
    passed: int
    kept: int
    system_errors: int
    classes: dict[str, int] = field(default_factory=dict)
    problems: dict[str, ProblemCounts] = field(default_factory=dict)


def _submission(index: int, row: dict[str, Any], language: str) -> dict[str, Any]:
    code, completion = row.get("code"), row.get("completion")
    if not isinstance(code, str) and not isinstance(completion, str):
        raise ValueError(f"candidate {index}: needs 'completion' or 'code'")
    text = {"code": code} if isinstance(code, str) else {"completion": completion}
    fields = problem_fields(row.get("problem_id"), row.get("problem"))
    return {"id": str(index), **fields, "language": row.get("language") or language, **text}


def _problem_key(item: dict[str, Any]) -> str:
    return str(item.get("problem_id") or item["problem"].get("id"))


def _record(result: Result, problem: str) -> dict[str, Any]:
    complexity = result.complexity
    return {
        "index": int(result.id or -1),
        "problem": problem,
        "status": result.status,
        "verdict": result.verdict,
        "pass_rate": result.pass_rate,
        "error": result.error,
        "class": complexity.predicted if complexity else None,
        "reference": complexity.reference if complexity else None,
    }


def _fingerprint(items: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()


def _claim(out_dir: Path, items: list[dict[str, Any]]) -> None:
    """Refuses a directory holding a run over other candidates (its journal would lie)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    state = out_dir / "state.json"
    mine = {"fingerprint": _fingerprint(items), "candidates": len(items)}
    if state.exists() and json.loads(state.read_text()) != mine:
        raise ValueError(f"{out_dir} holds a run over other candidates; use another directory")
    state.write_text(json.dumps(mine))


def sft_filter(
    candidates: RowSource,
    client: JudgeClient,
    out_dir: Path,
    *,
    language: str = "python",
    show_progress: bool = True,
) -> SftSummary:
    """Judges every candidate not judged yet in ``out_dir``, then writes the kept and dropped
    candidates and the summary there."""
    rows = list(read_rows(candidates))
    items = [_submission(index, row, language) for index, row in enumerate(rows)]
    _claim(out_dir, items)
    journal = out_dir / "judged.jsonl"
    judged = {record["index"]: record for record in read_records(journal)}
    lock, judged_now = threading.Lock(), 0

    def done(results: list[Result]) -> None:
        nonlocal judged_now
        records = [_record(r, _problem_key(items[int(r.id or 0)])) for r in results]
        with lock:
            append(journal, records)
            judged.update((record["index"], record) for record in records)
            judged_now += len(records)
            bar.advance(sum(r.status != "system_error" for r in results))

    def pending() -> list[dict[str, Any]]:
        return [
            item
            for index, item in enumerate(items)
            if judged.get(index, {}).get("status") in (None, "system_error")
        ]

    finished = len(items) - len(pending())
    with progress_bar("judging candidates", len(items), finished, show_progress) as bar:
        for _ in range(_ROUNDS):
            left = pending()
            if not left:
                break
            client.judge(left, on_batch=done)
    summary = _decide(rows, judged, out_dir)
    summary.judged_now = judged_now
    (out_dir / "summary.json").write_text(json.dumps(asdict(summary), indent=2))
    return summary


def _targets(records: list[dict[str, Any]]) -> dict[str, tuple[int | None, bool]]:
    """Per problem: the rank a kept candidate must reach, and whether the problem declared it."""
    targets: dict[str, tuple[int | None, bool]] = {}
    for problem in {record["problem"] for record in records}:
        passing = [r for r in records if r["problem"] == problem and r["verdict"] == "AC"]
        declared = [
            class_rank(r["reference"]) for r in passing if class_rank(r["reference"]) is not None
        ]
        if declared:
            targets[problem] = (declared[0], True)
        else:
            known = [rank for r in passing if (rank := class_rank(r["class"])) is not None]
            targets[problem] = (min(known) if known else None, False)
    return targets


def _reason(record: dict[str, Any], target: int | None) -> str | None:
    """Why a candidate is dropped; None when it is kept."""
    if record["status"] != "ok":
        return f"{record['status']}: {record['error']}"
    if record["verdict"] != "AC":
        return f"failed tests: {record['verdict']}"
    rank = class_rank(record["class"])
    if rank is None:
        return f"class unknown ({record['class']})"
    if target is None or rank > target:
        return f"class {record['class']} is worse than the optimal class"
    return None


def _decide(
    rows: list[dict[str, Any]], judged: dict[int, dict[str, Any]], out_dir: Path
) -> SftSummary:
    records = [judged[index] for index in range(len(rows))]
    targets = _targets(records)
    kept, dropped = [], []
    problems: dict[str, ProblemCounts] = {}
    classes: Counter[str] = Counter()
    for row, record in zip(rows, records, strict=True):
        target, declared = targets[record["problem"]]
        counts = problems.setdefault(
            record["problem"],
            ProblemCounts(
                optimal_class=None if target is None else LADDER[target], declared=declared
            ),
        )
        counts.candidates += 1
        if record["verdict"] == "AC":
            counts.passed += 1
            classes[record["class"] or "unknown"] += 1
        reason = _reason(record, target)
        judge = {"verdict": record["verdict"], "class": record["class"]}
        if reason is None:
            counts.kept += 1
            kept.append({**row, "judge": judge})
        else:
            dropped.append({**row, "judge": {**judge, "reason": reason}})
    write_jsonl(out_dir / "kept.jsonl", kept)
    write_jsonl(out_dir / "dropped.jsonl", dropped)
    return SftSummary(
        candidates=len(rows),
        judged_now=0,
        passed=sum(c.passed for c in problems.values()),
        kept=len(kept),
        system_errors=sum(r["status"] == "system_error" for r in records),
        classes=dict(classes),
        problems=problems,
    )
