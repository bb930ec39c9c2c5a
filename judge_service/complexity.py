"""The complexity judge interface: what the service calls to estimate a solution's time class.

A judge (:class:`ComplexityJudge`) estimates the asymptotic time complexity of a submission as
one class of :data:`LADDER`, or ``"unknown"``. :func:`time_reward` turns the estimate and the
problem's optimal class into R_time (see :mod:`judge_service.reward`).

Until a real judge (static, empirical or served-model backends) lands,
:class:`PlaceholderComplexityJudge` answers ``"unknown"`` for everything, so R_time is never
counted.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from complexity_model.ladder import (
    LADDER,
    UNKNOWN,
    ComplexityEstimate,
    normalise_class,
    time_reward,
)
from judge_service.schemas import ComplexityOut, Problem

__all__ = [
    "LADDER",
    "UNKNOWN",
    "ComplexityEstimate",
    "ComplexityJudge",
    "PlaceholderComplexityJudge",
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


class PlaceholderComplexityJudge:
    """PLACEHOLDER, not a complexity judge: it exists only until the real judge lands (issue 4).

    It always answers ``"unknown"`` with confidence 0, so :func:`time_reward` gives no signal
    and R_time is never counted. Replace it; don't build on its answers.
    """

    NOTE = "placeholder: no complexity judge is configured yet (issue 4)"

    def estimate(
        self, code: str, language: str, problem: Problem | None = None
    ) -> ComplexityEstimate:
        return ComplexityEstimate(
            predicted=UNKNOWN, confidence=0.0, method="none", evidence={"note": self.NOTE}
        )


def to_output(estimate: ComplexityEstimate, reference: str | None) -> ComplexityOut:
    """The wire form of an estimate; ``reference`` is the problem's optimal class.

    The reference is given in its ladder spelling when it normalises, as given otherwise.
    ``decided_by`` and ``signals`` come from ``evidence["decided_by"]`` and
    ``evidence["signals"]`` when a judge sets them; otherwise a non-empty evidence becomes the
    one signal (with its method), so that, say, the placeholder's note reaches the client.
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
