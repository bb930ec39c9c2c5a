"""Scores for complexity predictions against labels: accuracy, macro-F1, within-one-class
accuracy, per-class precision/recall/F1 and a confusion matrix. ``"unknown"`` (or anything
off the ladder) is always wrong."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from complexity_model.ladder import LADDER, UNKNOWN


@dataclass(frozen=True)
class ClassScores:
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class Report:
    count: int
    accuracy: float
    macro_f1: float
    within_one: float
    per_class: dict[str, ClassScores]
    # confusion[true][predicted]; predicted columns are the ladder plus "unknown".
    confusion: dict[str, dict[str, int]]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def score(truth: Sequence[str], predicted: Sequence[str]) -> Report:
    """Score ``predicted`` against ``truth`` (both ladder strings; predictions may be unknown).

    Macro-F1 averages F1 over the ladder classes that occur in ``truth`` or ``predicted``.
    Within-one counts a prediction at most one ladder step from the label.
    """
    if len(truth) != len(predicted):
        raise ValueError("truth and predicted differ in length")
    columns = [*LADDER, UNKNOWN]
    confusion = {label: dict.fromkeys(columns, 0) for label in LADDER}
    exact = near = 0
    for label, guess in zip(truth, predicted, strict=True):
        if label not in confusion:
            raise ValueError(f"label off the ladder: {label!r}")
        column = guess if guess in LADDER else UNKNOWN
        confusion[label][column] += 1
        if column == label:
            exact += 1
        if column != UNKNOWN and abs(LADDER.index(column) - LADDER.index(label)) <= 1:
            near += 1
    per_class: dict[str, ClassScores] = {}
    for cls in LADDER:
        true_positive = confusion[cls][cls]
        support = sum(confusion[cls].values())
        predicted_total = sum(confusion[label][cls] for label in LADDER)
        precision = _ratio(true_positive, predicted_total)
        recall = _ratio(true_positive, support)
        f1 = _ratio(2 * true_positive, support + predicted_total)
        per_class[cls] = ClassScores(precision, recall, f1, support)
    present = [
        cls
        for cls in LADDER
        if per_class[cls].support or sum(confusion[label][cls] for label in LADDER)
    ]
    macro_f1 = sum(per_class[cls].f1 for cls in present) / len(present) if present else 0.0
    return Report(
        count=len(truth),
        accuracy=_ratio(exact, len(truth)),
        macro_f1=macro_f1,
        within_one=_ratio(near, len(truth)),
        per_class=per_class,
        confusion=confusion,
    )


def format_report(title: str, report: Report) -> str:
    """A plain-text block: headline numbers, per-class table, confusion matrix."""
    lines = [
        f"== {title}: {report.count} programs",
        f"exact-class accuracy {report.accuracy:.3f}   macro-F1 {report.macro_f1:.3f}   "
        f"within-one accuracy {report.within_one:.3f}",
        f"{'class':<12}{'precision':>10}{'recall':>8}{'F1':>7}{'support':>9}",
    ]
    for cls, scores in report.per_class.items():
        lines.append(
            f"{cls:<12}{scores.precision:>10.3f}{scores.recall:>8.3f}"
            f"{scores.f1:>7.3f}{scores.support:>9d}"
        )
    columns = [*LADDER, UNKNOWN]
    lines.append("confusion (rows: label, columns: prediction)")
    lines.append(f"{'':<12}" + "".join(f"{c:>11}" for c in columns))
    for label, row in report.confusion.items():
        lines.append(f"{label:<12}" + "".join(f"{row[c]:>11d}" for c in columns))
    return "\n".join(lines)
