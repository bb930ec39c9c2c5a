"""The complexity judge interface: what the service calls to estimate a solution's time class.

A judge (:class:`ComplexityJudge`) estimates the asymptotic time complexity of a submission as
one class of :data:`LADDER`, or ``"unknown"``. :func:`time_reward` turns the estimate and the
problem's optimal class into R_time (see :mod:`judge_service.reward`).

:func:`make_complexity_judge` builds the one the service uses from the settings: the
ensemble of the static, empirical and served-model backends in :mod:`complexity_model`, given
what they read of the service's problem (:func:`complexity_problem`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from complexity_model.derive.judge import DerivingJudge
from complexity_model.empirical import EmpiricalComplexityJudge, Sandboxes
from complexity_model.ensemble import EnsembleComplexityJudge
from complexity_model.ladder import (
    LADDER,
    UNKNOWN,
    ComplexityEstimate,
    normalise_class,
    time_reward,
)
from complexity_model.problem import ComplexityProblem, ReferenceSolution
from complexity_model.served import ServedModelJudge
from complexity_model.static import StaticComplexityJudge
from judge_service.schemas import ComplexityOut, Problem
from judge_service.settings import Settings

__all__ = [
    "LADDER",
    "UNKNOWN",
    "ComplexityEstimate",
    "ComplexityJudge",
    "ServiceComplexityJudge",
    "complexity_problem",
    "make_complexity_judge",
    "normalise_class",
    "time_reward",
    "to_output",
]


@runtime_checkable
class ComplexityJudge(Protocol):
    """Estimates the time complexity of a submission (``problem`` gives context when known)."""

    def estimate(
        self, code: str, language: str, problem: Problem | None = None
    ) -> ComplexityEstimate: ...


def complexity_problem(problem: Problem) -> ComplexityProblem:
    """What the complexity judges read of the service's problem."""
    reference = problem.reference
    return ComplexityProblem(
        id=problem.id,
        mode=problem.mode,
        entry_point=problem.entry_point,
        input_generator=problem.input_generator,
        tests=[] if problem.input_generator else problem.tests,
        reference=(
            None
            if reference is None
            else ReferenceSolution(language=reference.language, code=reference.code)
        ),
        optimal_complexity=problem.optimal_complexity,
        checker=problem.checker,
        memory_limit_mb=problem.memory_limit_mb,
    )


@dataclass(frozen=True)
class ServiceComplexityJudge:
    """The ensemble behind the service's interface: it takes the service's ``Problem``."""

    ensemble: EnsembleComplexityJudge

    def estimate(
        self, code: str, language: str, problem: Problem | None = None
    ) -> ComplexityEstimate:
        adapted = None if problem is None else complexity_problem(problem)
        return self.ensemble.estimate(code, language, adapted)


def make_complexity_judge(settings: Settings, pool: Sandboxes | None) -> ServiceComplexityJudge:
    """The ensemble the service judges with (see :mod:`complexity_model.ensemble`).

    Empirical timing in ``pool`` when enabled and a problem has an input generator; the served
    model when ``complexity_model_url`` is set; the static analyser always.
    """
    empirical = None
    if settings.complexity_empirical and pool is not None:
        # Problems without an input generator get one derived from their tests.
        empirical = DerivingJudge(EmpiricalComplexityJudge(pool))
    served = None
    if settings.complexity_model_url and settings.complexity_model_name:
        served = ServedModelJudge(
            base_url=settings.complexity_model_url,
            model=settings.complexity_model_name,
            api_key=settings.complexity_model_api_key,
            timeout_s=settings.complexity_model_timeout_s,
        )
    ensemble = EnsembleComplexityJudge(
        static=StaticComplexityJudge(), empirical=empirical, served=served
    )
    return ServiceComplexityJudge(ensemble)


def to_output(estimate: ComplexityEstimate, reference: str | None) -> ComplexityOut:
    """The wire form of an estimate; ``reference`` is the problem's optimal class.

    The reference is given in its ladder spelling when it normalises, as given otherwise.
    ``decided_by`` and ``signals`` come from ``evidence["decided_by"]`` and
    ``evidence["signals"]`` when a judge sets them; otherwise a non-empty evidence becomes the
    one signal (with its method), so that a lone backend's evidence reaches the client.
    """
    normalised = normalise_class(reference) if reference is not None else None
    evidence = estimate.evidence
    decided_by = evidence.get("decided_by")
    abstained = evidence.get("time_reward_abstained")
    signals = evidence.get("signals")
    if isinstance(signals, list) and all(isinstance(signal, dict) for signal in signals):
        signal_list: list[dict[str, Any]] = list(signals)
    elif evidence:
        signal_list = [{"method": estimate.method, **evidence}]
    else:
        signal_list = []
    return ComplexityOut(
        predicted=estimate.predicted,
        reference=normalised or reference,
        method=estimate.method,
        confidence=estimate.confidence,
        decided_by=decided_by if isinstance(decided_by, str) else None,
        signals=signal_list,
        time_reward_abstained=abstained if isinstance(abstained, str) and abstained else None,
    )
