"""The evaluation metrics on a tiny confusion case worked out by hand."""

from __future__ import annotations

import pytest

from complexity_model._metrics import format_report, score
from complexity_model.ladder import UNKNOWN


def test_tiny_confusion_case() -> None:
    truth = ["O(1)", "O(1)", "O(n)", "O(n^2)"]
    predicted = ["O(1)", "O(n)", "O(n)", UNKNOWN]
    report = score(truth, predicted)
    assert report.count == 4
    assert report.accuracy == 0.5
    # O(1) vs O(n) is two steps apart; unknown is never within one.
    assert report.within_one == 0.5
    constant, linear, quadratic = (report.per_class[c] for c in ("O(1)", "O(n)", "O(n^2)"))
    assert (constant.precision, constant.recall, constant.support) == (1.0, 0.5, 2)
    assert constant.f1 == pytest.approx(2 / 3)
    assert (linear.precision, linear.recall) == (0.5, 1.0)
    assert (quadratic.precision, quadratic.recall, quadratic.f1) == (0.0, 0.0, 0.0)
    # Classes that appear in neither list (log n, n log n, n^3, 2^n) stay out of the mean.
    assert report.macro_f1 == pytest.approx((2 / 3 + 2 / 3 + 0) / 3)
    assert report.confusion["O(1)"]["O(n)"] == 1
    assert report.confusion["O(n^2)"][UNKNOWN] == 1
    assert sum(sum(row.values()) for row in report.confusion.values()) == 4


def test_neighbouring_classes_are_within_one() -> None:
    report = score(["O(n)", "O(n)"], ["O(n log n)", "O(log n)"])
    assert report.accuracy == 0.0
    assert report.within_one == 1.0


def test_garbage_predictions_are_unknown_and_bad_labels_rejected() -> None:
    report = score(["O(1)"], ["banana"])
    assert report.confusion["O(1)"][UNKNOWN] == 1
    with pytest.raises(ValueError, match="off the ladder"):
        score(["O(n!)"], ["O(1)"])
    with pytest.raises(ValueError, match="length"):
        score(["O(1)"], [])


def test_format_report_shows_every_class_row() -> None:
    text = format_report("demo", score(["O(1)", "O(2^n)"], ["O(1)", "O(n^3)"]))
    assert "exact-class accuracy 0.500" in text
    assert text.count("\nO(2^n)") == 2  # once in the per-class table, once in the matrix
