"""The complexity judge interface (judge_service.complexity)."""

from __future__ import annotations

import pytest

from complexity_model.ensemble import EnsembleComplexityJudge
from judge_service.complexity import (
    LADDER,
    ComplexityEstimate,
    ComplexityJudge,
    make_complexity_judge,
    normalise_class,
    time_reward,
    to_output,
)
from judge_service.settings import Settings


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("O(1)", "O(1)"),
        ("constant", "O(1)"),
        ("O(log n)", "O(log n)"),
        ("logn", "O(log n)"),
        ("O(log(N))", "O(log n)"),
        ("O(lg n)", "O(log n)"),
        ("O(n)", "O(n)"),
        ("linear", "O(n)"),
        ("Linear time", "O(n)"),
        ("Θ(n)", "O(n)"),
        ("O(nlogn)", "O(n log n)"),
        ("O(N log N)", "O(n log n)"),
        ("nlogn", "O(n log n)"),
        ("O(n * log n)", "O(n log n)"),
        ("big-O(n log n)", "O(n log n)"),
        ("n^2", "O(n^2)"),
        ("O(n**2)", "O(n^2)"),
        ("O(n²)", "O(n^2)"),
        ("quadratic", "O(n^2)"),
        ("cubic", "O(n^3)"),
        ("O(n³)", "O(n^3)"),
        ("exponential", "O(2^n)"),
        ("np", "O(2^n)"),
        ("O(2**n)", "O(2^n)"),
        ("Time: O(n log n), space: O(n).", "O(n log n)"),
    ],
)
def test_normalise_variants(text: str, expected: str) -> None:
    assert normalise_class(text) == expected


@pytest.mark.parametrize(
    "text", ["", "unknown", "O(n + m)", "O(n!)", "O(sqrt n)", "O(n^4)", "fast", "foo(n)"]
)
def test_normalise_off_ladder_is_none(text: str) -> None:
    assert normalise_class(text) is None


def test_ladder_classes_normalise_to_themselves() -> None:
    assert [normalise_class(cls) for cls in LADDER] == list(LADDER)


def test_time_reward_no_worse_is_full() -> None:
    assert time_reward("O(n)", "O(n)") == 1.0
    assert time_reward("O(log n)", "O(n log n)") == 1.0
    assert time_reward("linear", "O(n)") == 1.0


def test_time_reward_decays_with_the_gap() -> None:
    assert time_reward("O(n log n)", "O(n)") == 0.5
    assert time_reward("O(n^2)", "O(n)") == 0.25
    assert time_reward("O(n^2)", "O(n)", decay=0.1) == pytest.approx(0.01)


@pytest.mark.parametrize("decay", [0.0, 0.3, 0.5, 0.9])
def test_time_reward_monotone_in_the_gap(decay: float) -> None:
    rewards = [time_reward(cls, "O(1)", decay=decay) for cls in LADDER]
    assert rewards[0] == 1.0
    assert all(r is not None for r in rewards)
    values = [r for r in rewards if r is not None]
    assert all(later <= earlier for earlier, later in zip(values, values[1:], strict=False))
    if decay > 0:
        assert all(later < earlier for earlier, later in zip(values, values[1:], strict=False))
    assert all(0.0 <= v <= 1.0 for v in values)


@pytest.mark.parametrize(
    ("candidate", "reference"),
    [("unknown", "O(n)"), ("O(n)", None), ("O(n)", "unknown"), ("O(n!)", "O(n)"), ("", "")],
)
def test_time_reward_none_without_signal(candidate: str, reference: str | None) -> None:
    assert time_reward(candidate, reference) is None


@pytest.mark.parametrize("decay", [-0.1, 1.0, 2.0])
def test_time_reward_rejects_bad_decay(decay: float) -> None:
    with pytest.raises(ValueError, match="decay"):
        time_reward("O(n)", "O(n)", decay=decay)


def test_the_service_judge_is_the_ensemble_of_the_configured_backends() -> None:
    judge = make_complexity_judge(Settings(complexity_empirical=False), pool=None)
    assert isinstance(judge, ComplexityJudge)
    assert isinstance(judge.ensemble, EnsembleComplexityJudge)
    assert (judge.ensemble.empirical, judge.ensemble.served) == (None, None)
    estimate = judge.estimate("n = int(input())\nfor i in range(n):\n    print(i)\n", "python")
    assert (estimate.predicted, estimate.method) == ("O(n)", "static")
    assert estimate.evidence["decided_by"] == "static"
    served = make_complexity_judge(
        Settings(
            complexity_empirical=False,
            complexity_model_url="http://127.0.0.1:9/v1",
            complexity_model_name="tiny",
        ),
        pool=None,
    )
    assert served.ensemble.served is not None


def test_a_served_model_url_needs_a_model_name() -> None:
    with pytest.raises(ValueError, match="JUDGE_COMPLEXITY_MODEL_NAME"):
        Settings(complexity_model_url="http://127.0.0.1:9/v1")


def test_to_output() -> None:
    lone = ComplexityEstimate("unknown", 0.0, "static", {"reason": "does not parse"})
    out = to_output(lone, "O(N log N)")
    assert (out.predicted, out.reference, out.method, out.confidence) == (
        "unknown",
        "O(n log n)",
        "static",
        0.0,
    )
    assert out.decided_by is None
    assert out.signals == [{"method": "static", "reason": "does not parse"}]

    estimate = ComplexityEstimate(
        predicted="O(n)",
        confidence=0.8,
        method="empirical",
        evidence={"decided_by": "empirical", "signals": [{"method": "empirical", "fit": 0.99}]},
    )
    out = to_output(estimate, None)
    assert out.reference is None
    assert out.decided_by == "empirical"
    assert out.signals == [{"method": "empirical", "fit": 0.99}]
    assert to_output(estimate, "O(n + m)").reference == "O(n + m)"
    assert to_output(ComplexityEstimate("O(1)", 1.0, "static"), "O(1)").signals == []
