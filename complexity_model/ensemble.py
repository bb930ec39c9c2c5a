"""The policy the service uses to pick one complexity estimate among the backends.

Empirical timing when the problem has an input generator, or tests and a reference to derive
one from (:mod:`complexity_model.derive`): it measures the program rather than reading it;
otherwise the served model when one is configured; otherwise the static analyser. A backend
that answers ``unknown`` or fails hands over to the next one, so a served model that is down
degrades to static analysis instead of failing the submission; except an empirical
``unknown`` marked ``final`` (the program answered wrong, crashed or kept state on the timed
inputs), which stands. The static analyser runs on
every call (milliseconds) as a cross-check: when the deciding backend and it are more than one
ladder class apart, the result says so (``evidence["disagreement"]``) and its confidence is
halved. ``unknown`` from every backend is ``unknown``, which earns no R_time
(:func:`complexity_model.ladder.time_reward` gives None). Every signal computed is reported in
``evidence["signals"]`` and the one that decided in ``evidence["decided_by"]``;
:func:`judge_service.complexity.to_output` puts both on the wire.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from complexity_model.ladder import LADDER, UNKNOWN, ComplexityEstimate
from complexity_model.problem import ComplexityProblem
from judge_service.sandbox.errors import SandboxError

__all__ = ["Backend", "EnsembleComplexityJudge"]

# Evidence values that are large (timing series, raw model text) are cut in the signal list.
_MAX_EVIDENCE_CHARS = 2000
# Two backends more than one class apart: one of them misread the program; which one is not
# known, so the decision stands with half its confidence.
_DISAGREEMENT_FACTOR = 0.5


class Backend(Protocol):
    method: str

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate: ...


@dataclass
class EnsembleComplexityJudge:
    """Empirical (with a generator), then served model (when set), then static."""

    static: Backend
    empirical: Backend | None = None
    served: Backend | None = None
    served_cooldown_s: float = 30.0
    """After the served model failed, skip it this long: each try costs its retries."""
    method = "ensemble"
    _served_down_until: float = field(default=0.0, init=False, repr=False)

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        order: list[Backend] = []
        if self.empirical is not None and problem is not None and _timeable(problem):
            order.append(self.empirical)
        if self.served is not None:
            order.append(self.served)
        signals: list[dict[str, Any]] = []
        decided: ComplexityEstimate | None = None
        for backend in order:
            if backend is self.served and time.monotonic() < self._served_down_until:
                signals.append(
                    {
                        "method": backend.method,
                        "predicted": UNKNOWN,
                        "confidence": 0.0,
                        "error": "skipped: the served model failed less than "
                        f"{self.served_cooldown_s:g} s ago",
                    }
                )
                continue
            estimate, signal = _run(backend, code, language, problem)
            signals.append(signal)
            if backend is self.served and "error" in signal:
                self._served_down_until = time.monotonic() + self.served_cooldown_s
            if estimate is not None and (
                estimate.predicted != UNKNOWN or estimate.evidence.get("final")
            ):
                # A program the empirical judge caught (a wrong answer on the timed inputs,
                # state kept between calls, a crash) gets no class from a weaker backend: the
                # static analyser would read a fast wrong heuristic as optimal.
                decided = estimate
                break
        static, signal = _run(self.static, code, language, problem)
        signals.append(signal)
        if decided is None:
            decided = static
        if decided is None:
            return ComplexityEstimate(
                predicted=UNKNOWN,
                confidence=0.0,
                method=self.method,
                evidence={"signals": signals, "decided_by": None},
            )
        evidence: dict[str, Any] = {"signals": signals, "decided_by": decided.method}
        abstained = _static_abstains(decided)
        if abstained:
            evidence["time_reward_abstained"] = abstained
        confidence = decided.confidence
        apart = _classes_apart(decided, static)
        if apart > 1 and static is not None:
            evidence["disagreement"] = {
                "decided": decided.predicted,
                "static": static.predicted,
                "classes_apart": apart,
            }
            confidence *= _DISAGREEMENT_FACTOR
        return ComplexityEstimate(
            predicted=decided.predicted,
            confidence=confidence,
            method=decided.method,
            evidence=evidence,
        )


def _static_abstains(decided: ComplexityEstimate) -> str:
    """Why a static estimate may not decide R_time ('' when it may): its bucket's held-out
    precision (see :mod:`complexity_model.static.calibrate`) is below the bar."""
    trust = decided.evidence.get("reward_trust")
    if decided.method != "static" or not isinstance(trust, dict) or trust.get("pays"):
        return ""
    return (
        f"the static analyser's class ({trust.get('bucket')}) was at least the true class for "
        f"{trust.get('precision', 0.0):.0%} of {trust.get('support', 0)} labelled programs, "
        "below the bar for R_time: no time reward from it"
    )


def _timeable(problem: ComplexityProblem) -> bool:
    """An author's generator, or tests and a reference to derive and validate one with."""
    if problem.input_generator:
        return True
    derivable = problem.mode.value != "assert" and problem.reference is not None
    return derivable and bool(problem.tests)


def _classes_apart(decided: ComplexityEstimate, static: ComplexityEstimate | None) -> int:
    """Ladder steps between the deciding estimate and the static cross-check (0 when either
    is unknown or static decided itself)."""
    if static is None or decided is static:
        return 0
    if decided.predicted not in LADDER or static.predicted not in LADDER:
        return 0
    return abs(LADDER.index(decided.predicted) - LADDER.index(static.predicted))


def _run(
    backend: Backend, code: str, language: str, problem: ComplexityProblem | None
) -> tuple[ComplexityEstimate | None, dict[str, Any]]:
    """One backend's estimate and its signal; a failure is a signal too, never a guess.

    A served model that cannot answer is such a failure (recorded, and the next backend
    decides). Sandbox failures while the empirical backend runs programs go through: the
    sandbox cannot judge this submission at all, which is a system error.
    """
    started = time.perf_counter()
    try:
        estimate = backend.estimate(code, language, problem)
    except SandboxError:
        raise
    except Exception as error:  # a backend's own failure: the next backend decides
        return None, {
            "method": backend.method,
            "predicted": UNKNOWN,
            "confidence": 0.0,
            "error": f"{type(error).__name__}: {error}"[:500],
            "ms": round((time.perf_counter() - started) * 1000, 2),
        }
    return estimate, {
        "method": estimate.method,
        "predicted": estimate.predicted,
        "confidence": estimate.confidence,
        "ms": round((time.perf_counter() - started) * 1000, 2),
        "evidence": _trim(estimate.evidence),
    }


def _trim(evidence: dict[str, Any]) -> dict[str, Any]:
    trimmed: dict[str, Any] = {}
    for key, value in evidence.items():
        text = repr(value)
        trimmed[key] = value if len(text) <= _MAX_EVIDENCE_CHARS else text[:_MAX_EVIDENCE_CHARS]
    return trimmed
