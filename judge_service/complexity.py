"""The complexity judge interface: what the service calls to estimate a solution's time class.

A judge (:class:`ComplexityJudge`) estimates the asymptotic time complexity of a submission as
one class of :data:`LADDER`, or ``"unknown"``. :func:`time_reward` turns the estimate and the
problem's optimal class into R_time (see :mod:`judge_service.reward`).

:func:`make_complexity_judge` builds the one the service uses from the settings: the
ensemble of the static, empirical and served-model backends in :mod:`complexity_model`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from complexity_model.ladder import (
    LADDER,
    UNKNOWN,
    ComplexityEstimate,
    normalise_class,
    time_reward,
)
from judge_service.schemas import ComplexityOut, Problem

if TYPE_CHECKING:
    from judge_service.sandbox.pool import SandboxPool
    from judge_service.settings import Settings

__all__ = [
    "LADDER",
    "UNKNOWN",
    "ComplexityEstimate",
    "ComplexityJudge",
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


def make_complexity_judge(settings: Settings, pool: SandboxPool | None) -> ComplexityJudge:
    """The ensemble the service judges with (see :mod:`complexity_model.ensemble`).

    Empirical timing in ``pool`` when enabled and a problem has an input generator; the served
    model when ``complexity_model_url`` is set; the static analyser always. Backends load
    lazily so that a service without a served model never imports its client.
    """
    from complexity_model.ensemble import EnsembleComplexityJudge
    from complexity_model.static import StaticComplexityJudge

    empirical = None
    if settings.complexity_empirical and pool is not None:
        from complexity_model.empirical import EmpiricalComplexityJudge

        empirical = EmpiricalComplexityJudge(pool)
    served = None
    if settings.complexity_model_url and settings.complexity_model_name:
        from complexity_model.served import ServedModelJudge

        served = ServedModelJudge(
            base_url=settings.complexity_model_url,
            model=settings.complexity_model_name,
            api_key=settings.complexity_model_api_key,
            timeout_s=settings.complexity_model_timeout_s,
        )
    return EnsembleComplexityJudge(
        static=StaticComplexityJudge(), empirical=empirical, served=served
    )


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
    )
