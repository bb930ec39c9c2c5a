"""The empirical complexity judge: time the program at growing n in the sandbox and fit.

For a problem with an ``input_generator`` and an ``entry_point`` (function mode), a Python
candidate runs once in a sandbox with the timing driver (:mod:`._driver`): sizes grow
geometrically (x1.25, from 1 up to ``max_n``) until one call passes the per-call cap (a
censored point) or the budget is spent, so an exponential solution stops near n = 20 and a
logarithmic one reaches 2^18. The class comes from :func:`._fit.choose_class`.
:meth:`EmpiricalComplexityJudge.compare` measures the problem's reference on the same inputs
(the driver seeds ``random`` with n before each ``generate(n)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from complexity_model.empirical._driver import parse_output, timing_input, timing_program
from complexity_model.empirical._fit import FitResult, Point, choose_class
from complexity_model.ladder import UNKNOWN, ComplexityEstimate

if TYPE_CHECKING:
    from judge_service.sandbox.pool import SandboxPool
    from judge_service.schemas import Problem

__all__ = ["EmpiricalComplexityJudge", "Measurement", "geometric_sizes"]


def geometric_sizes(max_n: int, ratio: float = 1.25) -> list[int]:
    sizes: list[int] = []
    value = 1.0
    while value <= max_n:
        if not sizes or int(value) != sizes[-1]:
            sizes.append(int(value))
        value *= ratio
    return sizes


@dataclass(frozen=True)
class Measurement:
    """One program's timings and the class they fit (``reason`` says why when unknown)."""

    points: list[Point]
    fit: FitResult
    reason: str = ""

    def evidence(self) -> dict[str, Any]:
        return {
            "sizes": [p.n for p in self.points],
            "seconds": [p.seconds for p in self.points],
            "censored": [p.n for p in self.points if p.censored],
            "bic": {cls: round(fit.bic, 2) for cls, fit in self.fit.fits.items()},
            "bic_weights": {cls: round(w, 4) for cls, w in self.fit.weights.items()},
            "range_classes": list(self.fit.range_classes),
            **({"reason": self.reason} if self.reason else {}),
        }


class EmpiricalComplexityJudge:
    """Times Python function-mode solutions at growing n and picks the class by BIC."""

    method = "empirical"

    def __init__(
        self,
        pool: SandboxPool,
        *,
        max_n: int = 1 << 18,
        budget_s: float = 1.2,
        cap_s: float = 0.15,
        repeats: int = 3,
        min_sample_s: float = 0.002,
    ) -> None:
        self.pool = pool
        self.sizes = geometric_sizes(max_n)
        self.budget_s = budget_s
        self.cap_s = cap_s
        self.repeats = repeats
        self.min_sample_s = min_sample_s

    def estimate(
        self, code: str, language: str, problem: Problem | None = None
    ) -> ComplexityEstimate:
        reason = _unsupported(language, problem)
        if reason:
            return ComplexityEstimate(UNKNOWN, 0.0, self.method, {"reason": reason})
        assert problem is not None
        measured = self.measure(code, problem)
        return ComplexityEstimate(
            measured.fit.predicted, measured.fit.confidence, self.method, measured.evidence()
        )

    def compare(self, code: str, language: str, problem: Problem) -> dict[str, Any]:
        """The candidate and the reference measured on the same inputs, each with its class."""
        reason = _unsupported(language, problem)
        if reason:
            return {"reason": reason}
        if problem.reference is None or problem.reference.language.lower() not in _PYTHON:
            return {"reason": "the problem has no Python reference solution"}
        candidate = self.measure(code, problem)
        reference = self.measure(problem.reference.code, problem)
        return {"candidate": candidate, "reference": reference}

    def measure(self, code: str, problem: Problem) -> Measurement:
        """Run the timing driver in the sandbox; SandboxError goes to the caller."""
        from judge_service.sandbox.models import Job, Limits

        assert problem.input_generator and problem.entry_point
        spec = timing_input(
            problem.input_generator,
            problem.entry_point,
            self.sizes,
            repeats=self.repeats,
            min_sample_s=self.min_sample_s,
            cap_s=self.cap_s,
            budget_s=self.budget_s,
        )
        # The limit leaves room for the call that ends the run and for generating inputs.
        limit_ms = int((self.budget_s + 4 * self.cap_s) * 1000) + 1000
        job = Job(
            language="python",
            code=timing_program(code),
            tests=[{"input": spec, "output": ""}],
            limits=Limits(
                time_limit_ms=limit_ms,
                memory_limit_mb=max(problem.memory_limit_mb, 512),
                report_bytes=1 << 16,
            ),
        )
        test = self.pool.judge(job).tests[0]
        points = [Point(n, seconds, censored) for n, seconds, censored in parse_output(test.stdout)]
        fit = choose_class(points)
        reason = ""
        if fit.predicted == UNKNOWN:
            last_error = (test.stderr.strip().splitlines() or [""])[-1]
            detail = "; ".join(part for part in (test.message, last_error) if part)
            reason = f"too few sizes measured ({len(points)}); run ended {test.verdict.value}"
            reason = (reason + (f": {detail}" if detail else ""))[:300]
        return Measurement(points, fit, reason)


_PYTHON = ("python", "python3", "py")


def _unsupported(language: str, problem: Problem | None) -> str:
    if problem is None or not problem.input_generator:
        return "the problem has no input generator"
    if not problem.entry_point:
        return "empirical timing needs a function-mode problem (an entry_point)"
    if language.lower() not in _PYTHON:
        return f"empirical timing supports Python solutions, not {language!r}"
    return ""
