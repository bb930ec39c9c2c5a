"""The ensemble policy (complexity_model.ensemble), over recording backends."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from complexity_model.ensemble import EnsembleComplexityJudge
from complexity_model.ladder import ComplexityEstimate, time_reward
from complexity_model.problem import ComplexityProblem, ReferenceSolution
from complexity_model.static import StaticComplexityJudge
from judge_service.sandbox.errors import InfrastructureError, SandboxCrashed

LINEAR = "n = int(input())\nfor i in range(n):\n    print(i)\n"
WITH_GENERATOR = ComplexityProblem(
    id="p",
    optimal_complexity="O(n)",
    input_generator="def generate(n):\n    return str(n)\n",
)
WITHOUT_GENERATOR = WITH_GENERATOR.model_copy(update={"input_generator": None})


@dataclass
class Recording:
    method: str
    answer: str = "O(n log n)"
    error: Exception | None = None
    calls: list[str] = field(default_factory=list)

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        self.calls.append(code)
        if self.error is not None:
            raise self.error
        return ComplexityEstimate(self.answer, 0.9, self.method, {"seen": len(code)})


def test_empirical_decides_when_the_problem_has_a_generator() -> None:
    empirical, served = Recording("empirical"), Recording("served")
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), empirical, served)
    estimate = judge.estimate(LINEAR, "python", WITH_GENERATOR)
    assert (estimate.predicted, estimate.method, estimate.confidence) == (
        "O(n log n)",
        "empirical",
        0.9,
    )
    assert estimate.evidence["decided_by"] == "empirical"
    signals = estimate.evidence["signals"]
    assert [signal["method"] for signal in signals] == ["empirical", "static"]
    assert signals[1]["predicted"] == "O(n)"  # the cross-check is reported, not used
    assert served.calls == []


def test_without_a_generator_the_served_model_decides() -> None:
    empirical, served = Recording("empirical"), Recording("served", answer="O(n^2)")
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), empirical, served)
    estimate = judge.estimate(LINEAR, "python", WITHOUT_GENERATOR)
    assert (estimate.predicted, estimate.method) == ("O(n^2)", "served")
    assert empirical.calls == []
    assert [s["method"] for s in estimate.evidence["signals"]] == ["served", "static"]


def test_unknown_hands_over_to_the_next_backend() -> None:
    empirical = Recording("empirical", answer="unknown")
    served = Recording("served", answer="unknown")
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), empirical, served)
    estimate = judge.estimate(LINEAR, "python", WITH_GENERATOR)
    assert (estimate.predicted, estimate.method) == ("O(n)", "static")
    assert estimate.evidence["decided_by"] == "static"
    assert [s["predicted"] for s in estimate.evidence["signals"]] == ["unknown", "unknown", "O(n)"]


def test_a_served_model_that_is_down_degrades_to_static_and_says_so() -> None:
    served = Recording("served", error=InfrastructureError("connection refused"))
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), served=served)
    estimate = judge.estimate(LINEAR, "python")
    assert estimate.method == "static"
    failed = estimate.evidence["signals"][0]
    assert failed["method"] == "served" and "connection refused" in failed["error"]


def test_a_failed_served_model_is_skipped_for_its_cooldown() -> None:
    served = Recording("served", error=InfrastructureError("timed out"))
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), served=served, served_cooldown_s=60)
    judge.estimate(LINEAR, "python")
    skipped = judge.estimate(LINEAR, "python")
    assert len(served.calls) == 1
    assert skipped.evidence["signals"][0]["error"].startswith("skipped")
    assert skipped.method == "static"
    retry = EnsembleComplexityJudge(StaticComplexityJudge(), served=served, served_cooldown_s=0)
    retry.estimate(LINEAR, "python")
    retry.estimate(LINEAR, "python")
    assert len(served.calls) == 3


def test_a_sandbox_failure_is_not_hidden_behind_another_method() -> None:
    empirical = Recording("empirical", error=SandboxCrashed("agent died"))
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), empirical)
    with pytest.raises(SandboxCrashed):
        judge.estimate(LINEAR, "python", WITH_GENERATOR)


def test_nothing_known_is_unknown_with_every_signal() -> None:
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), served=Recording("served", "unknown"))
    estimate = judge.estimate("this is not code (", "python")
    assert (estimate.predicted, estimate.confidence) == ("unknown", 0.0)
    assert [s["method"] for s in estimate.evidence["signals"]] == ["served", "static"]


def test_a_problem_with_tests_and_a_reference_is_timed_without_a_generator() -> None:
    empirical, served = Recording("empirical"), Recording("served")
    judge = EnsembleComplexityJudge(StaticComplexityJudge(), empirical, served)
    with_tests = WITHOUT_GENERATOR.model_copy(
        update={
            "tests": [{"input": "3\n", "output": "0\n1\n2\n"}],
            "reference": ReferenceSolution(language="python", code=LINEAR),
        }
    )
    assert judge.estimate(LINEAR, "python", with_tests).method == "empirical"
    no_reference = with_tests.model_copy(update={"reference": None})
    assert judge.estimate(LINEAR, "python", no_reference).method == "served"
    asserting = ComplexityProblem.model_validate({**with_tests.model_dump(), "mode": "assert"})
    assert judge.estimate(LINEAR, "python", asserting).method == "served"


def test_a_static_cross_check_two_classes_away_is_reported_and_lowers_confidence() -> None:
    far = Recording("empirical", answer="O(n^3)")  # static reads LINEAR as O(n)
    estimate = EnsembleComplexityJudge(StaticComplexityJudge(), far).estimate(
        LINEAR, "python", WITH_GENERATOR
    )
    assert estimate.predicted == "O(n^3)" and estimate.confidence == pytest.approx(0.45)
    assert estimate.evidence["disagreement"] == {
        "decided": "O(n^3)",
        "static": "O(n)",
        "classes_apart": 3,
    }
    near = Recording("empirical", answer="O(n log n)")
    close = EnsembleComplexityJudge(StaticComplexityJudge(), near).estimate(
        LINEAR, "python", WITH_GENERATOR
    )
    assert close.confidence == 0.9 and "disagreement" not in close.evidence


def test_unknown_everywhere_earns_no_time_reward() -> None:
    blank = Recording("empirical", answer="unknown")
    estimate = EnsembleComplexityJudge(Recording("static", answer="unknown"), blank).estimate(
        LINEAR, "python", WITH_GENERATOR
    )
    assert estimate.predicted == "unknown"
    assert time_reward(estimate.predicted, "O(n)") is None
