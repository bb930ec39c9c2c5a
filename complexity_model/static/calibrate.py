"""When the static analyser's class may pay R_time: its held-out precision, measured.

R_time pays in full when the candidate's class is no worse than the problem's optimal one. A
static estimate that reads a program as faster than it is pays a policy for a slow solution; so
a static estimate decides R_time only in the buckets (its predicted class, and whether the
program recurses) where the truth was no worse than the prediction for at least
:data:`MIN_PRECISION` of labelled programs, with at least :data:`MIN_SUPPORT` of them. Elsewhere
the estimate is still reported (plots, ``judge complexity``), but R_time abstains, as for an
empirical ``unknown``.

``python -m complexity_model.static.calibrate [--data PATH] [--write]`` cross-validates that
rule on labelled programs (default: CodeComplex's dev half, which is not shipped), prints the
held-out precision of what it pays and how often it abstains, and with ``--write`` stores the
buckets' figures from every row in :data:`TRUST_FILE` (figures only, no program).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from complexity_model.ladder import LADDER, ComplexityEstimate, normalise_class
from complexity_model.static._trust import TRUST_FILE, trust_bucket
from complexity_model.static.judge import StaticComplexityJudge

MIN_PRECISION = 0.95
MIN_SUPPORT = 10
DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "codecomplex_dev.jsonl"


@dataclass(frozen=True)
class Labelled:
    """A static estimate's bucket, and whether the program's true class is no worse."""

    bucket: str
    no_worse: bool


def labelled(estimate: ComplexityEstimate, true_class: str) -> Labelled | None:
    """None for an ``unknown`` estimate (it pays nothing either way)."""
    truth = normalise_class(true_class)
    if estimate.predicted not in LADDER or truth is None:
        return None
    no_worse = LADDER.index(truth) <= LADDER.index(estimate.predicted)
    return Labelled(trust_bucket(estimate), no_worse)


def bucket_table(rows: Iterable[Labelled]) -> dict[str, dict[str, Any]]:
    """Per bucket: programs, the share no worse than predicted, and whether it may pay."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        count = counts.setdefault(row.bucket, [0, 0])
        count[0] += row.no_worse
        count[1] += 1
    return {
        bucket: {
            "support": total,
            "precision": round(no_worse / total, 4),
            "pays": total >= MIN_SUPPORT and no_worse / total >= MIN_PRECISION,
        }
        for bucket, (no_worse, total) in sorted(counts.items())
    }


def cross_validate(rows: Sequence[Labelled], folds: int = 5, seeds: int = 20) -> dict[str, float]:
    """The rule learnt on the other folds, scored on each held-out fold, over ``seeds``
    shuffles: the precision of what it pays and the share it abstains on."""
    paid = right = total = 0
    for seed in range(seeds):
        shuffled = list(rows)
        random.Random(seed).shuffle(shuffled)
        for fold in range(folds):
            held_out = shuffled[fold::folds]
            learnt = bucket_table(row for i, row in enumerate(shuffled) if i % folds != fold)
            for row in held_out:
                total += 1
                if learnt.get(row.bucket, {}).get("pays"):
                    paid += 1
                    right += row.no_worse
    return {
        "paid_precision": round(right / paid, 4) if paid else 0.0,
        "abstains": round(1 - paid / total, 4) if total else 1.0,
        "programs": len(rows),
    }


def _load(path: Path) -> list[Labelled]:
    judge = StaticComplexityJudge()
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            estimate = judge.estimate(row["code"], row["language"])
            found = labelled(estimate, row.get("complexity") or row["label"])
            if found is not None:
                rows.append(found)
    return rows


def main(
    data: Annotated[Path, typer.Option(help="Labelled programs (JSON lines).")] = DEFAULT_DATA,
    write: Annotated[bool, typer.Option(help=f"Store the buckets in {TRUST_FILE.name}.")] = False,
) -> None:
    rows = _load(data)
    report = cross_validate(rows)
    table = bucket_table(rows)
    typer.echo(
        f"{report['programs']} programs with a class: held-out precision of what pays "
        f"{report['paid_precision']:.3f}, abstains on {report['abstains']:.0%}"
    )
    for bucket, figures in table.items():
        pays = "pays" if figures["pays"] else "abstains"
        typer.echo(f"  {bucket:24s} {figures['support']:4d} {figures['precision']:.2f} {pays}")
    if write:
        document = {
            "rule": {"min_precision": MIN_PRECISION, "min_support": MIN_SUPPORT},
            "source": data.name,
            "cross_validated": report,
            "buckets": table,
        }
        TRUST_FILE.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
        typer.echo(f"wrote {TRUST_FILE}")


if __name__ == "__main__":
    typer.run(main)
