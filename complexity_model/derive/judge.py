"""Empirical timing for problems without an input generator: one derived from their tests.

:class:`DerivingJudge` wraps the empirical judge. A problem with an author's
``input_generator`` goes to it unchanged (the author's wins). Otherwise the generator is
derived from the tests (:func:`complexity_model.derive.derive_spec`) and validated by the
problem's reference before any candidate is timed: the reference is measured on the derived
inputs (which the empirical judge does anyway, once per problem version), and a size where it
crashes or answers differently on the same input has its input drawn again from another seed
(the input is discarded), up to a few times; where it runs out of time the growth ends, as
with an author's generator; a generator the reference
still refuses is not used, and the class is ``unknown`` with the reason. Candidates are then
timed on the inputs the reference accepted. The derived generator (its spec and source) is in
the estimate's evidence, and :func:`derive_problem` gives the problem with it, to save back.
:meth:`DerivingJudge.prepare` does all of this per problem ahead of its candidates.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from complexity_model.derive import derive_spec, generator_source
from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.ladder import UNKNOWN, ComplexityEstimate
from complexity_model.problem import ComplexityProblem

__all__ = ["Derived", "DerivingJudge", "derive_problem"]

_RETRIES = 3
_AT_SIZE = re.compile(r"at n = (\d+)")
_TIMED_OUT = re.compile(r"wall time|TLE|time limit|took over")


@dataclass(frozen=True)
class Derived:
    """A derived generator and what validating it found; ``problem`` is None if unusable."""

    problem: ComplexityProblem | None
    spec: dict[str, Any] | None = None
    discarded: list[int] = field(default_factory=list)
    """Sizes whose first input the reference refused (drawn again from another seed)."""
    reason: str = ""
    """Why there is no generator; with one, what validating it noted."""

    def evidence(self) -> dict[str, Any]:
        generator = self.problem.input_generator if self.problem is not None else None
        return {
            "derived": True,
            "spec": self.spec,
            "discarded_sizes": self.discarded,
            **({"source": generator} if generator else {}),
            **({"reason": self.reason} if self.reason else {}),
        }


def derive_problem(
    problem: ComplexityProblem, empirical: EmpiricalComplexityJudge | None
) -> Derived:
    """The problem with a generator derived from its tests; validated by its reference when
    ``empirical`` is given (runs the reference in the sandbox) and the problem has one."""
    spec = derive_spec(problem.mode.value, [t for t in problem.tests if isinstance(t, dict)])
    if spec is None:
        return Derived(None, reason="no input structure that grows was found in the tests")
    discarded: list[int] = []
    for _ in range(_RETRIES + 1):
        spec = {**spec, "reseed": {str(n): 1 for n in discarded}} if discarded else spec
        derived = problem.model_copy(update={"input_generator": generator_source(spec)})
        if empirical is None or derived.reference is None:
            return Derived(derived, spec, discarded)
        reference = empirical.reference(derived)
        if not reference.reason:
            return Derived(derived, spec, discarded)
        if _TIMED_OUT.search(reference.reason):
            # Running out of time ends the growth where it ends (a busy host stretches the
            # wall clock too): the input is not wrong, and the sizes before it stand.
            return Derived(derived, spec, discarded, f"the reference {reference.reason}")
        at = _AT_SIZE.search(reference.reason)
        if at is None or int(at.group(1)) in discarded:
            break
        discarded.append(int(at.group(1)))
    return Derived(
        None, spec, discarded, f"the reference refused the derived inputs: {reference.reason}"
    )


class DerivingJudge:
    """The empirical judge, with generators derived for problems that have tests only."""

    method = "empirical"

    def __init__(self, empirical: EmpiricalComplexityJudge, validate: bool = True) -> None:
        self.empirical = empirical
        self.validate = validate
        self._derived: OrderedDict[str, Derived] = OrderedDict()
        self._lock = threading.Lock()

    def derived(self, problem: ComplexityProblem) -> Derived:
        """The problem's derived generator, derived once per problem version (kept for 256);
        concurrent callers wait for one derivation."""
        key = problem.content_hash()
        with self._lock:
            if key not in self._derived:
                self._derived[key] = derive_problem(
                    problem, self.empirical if self.validate else None
                )
                while len(self._derived) > 256:
                    self._derived.popitem(last=False)
            self._derived.move_to_end(key)
            return self._derived[key]

    def prepare(self, problem: ComplexityProblem) -> Derived | None:
        """Prepare the problem once, before any candidate of it is judged (when it is saved):
        its generator derived and validated when it has none, then the reference measured and
        the engine's inputs generated (:meth:`EmpiricalComplexityJudge.prepare`), all kept by
        the problem's content, so its candidates only time themselves. The derivation (None
        with an author's generator, or no tests to derive one from)."""
        if problem.input_generator or not problem.tests:
            self.empirical.prepare(problem)
            return None
        derived = self.derived(problem)
        if derived.problem is not None:
            self.empirical.prepare(derived.problem)
        return derived

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        if problem is None or problem.input_generator or not problem.tests:
            return self.empirical.estimate(code, language, problem)
        derived = self.derived(problem)
        if derived.problem is None:
            return ComplexityEstimate(
                UNKNOWN, 0.0, self.method, {"reason": derived.reason, **_generator(derived)}
            )
        estimate = self.empirical.estimate(code, language, derived.problem)
        evidence = {**estimate.evidence, **_generator(derived)}
        return ComplexityEstimate(estimate.predicted, estimate.confidence, self.method, evidence)


def _generator(derived: Derived) -> dict[str, Any]:
    return {"generator": derived.evidence()}
