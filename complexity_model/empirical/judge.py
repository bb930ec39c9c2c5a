"""The empirical complexity judge: time the program at growing n in the sandbox and fit.

For a problem with an ``input_generator``, sizes grow geometrically (every integer up to a
few, then a fixed number of sizes per doubling) until a run passes the per-run cap (a
censored point) or the budget is spent, so an exponential program stops near n = 20 and a
logarithmic one reaches the largest size. Python runs in one sandbox run of the timing driver
(:mod:`._driver`; function and stdin problems), which never runs the solution itself: a fresh
process per timed run does, and the driver reads its CPU clock from outside; other languages
run stdin problems as ordinary tests whose CPU time the engine reports (:mod:`._engine`).
Either way the generator is seeded with this judge's secret (drawn when it starts) and n: the
same inputs for every program it times, none that a program could guess. A driver that did
not finish (killed by its time limit, or by the solution) gives ``unknown``. The class comes
from :func:`._fit.choose_class`.

Answers are checked too: when the problem has a reference (and no custom checker, which may
accept several answers), the reference is measured once per problem version and a candidate
whose answer on a generated input differs from the reference's is ``unknown`` with that
reason; so is one that crashes. :meth:`EmpiricalComplexityJudge.compare` returns both
measurements (same inputs: the generator is seeded with the judge's secret and n), which the
plot draws.

The reference is also a model of growth: the candidate's times are fitted as a fixed cost plus
a multiple of the reference's measured curve (:func:`._fit.fit_like_reference`), beside the
ladder's classes and on the same BIC. When that model wins, the candidate grows as the
reference does and gets the problem's ``optimal_complexity`` (or the reference's measured
class): the reference is the optimum, so a candidate that keeps pace with it is optimal even
where the absolute fit misreads both (a hash table leaving the cache looks like n log n). The
reference's curve is its lowest time per size over three runs, so its noise does not decide
for the candidate; a candidate whose run cannot tell the reference's growth from a ladder
class, or tells them apart by little and would get a class other than the reference's, is
timed in three runs, as the reference, and decided on its median time per size.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from complexity_model.empirical._driver import (
    SANDBOX_SCRATCH,
    DriverOutput,
    DriverSpec,
    parse_output,
    timing_program,
)
from complexity_model.empirical._engine import (
    EngineSettings,
    InputCache,
    Sandboxes,
    checked,
    measure_in_engine,
)
from complexity_model.empirical._fit import (
    FitResult,
    Point,
    ReferenceFit,
    choose_class,
    fit_like_reference,
    lowest_per_size,
    median_per_size,
    without_isolated_dips,
)
from complexity_model.ladder import LADDER, UNKNOWN, ComplexityEstimate, normalise_class
from complexity_model.problem import ComplexityProblem
from judge_service.sandbox.languages import canonical_language
from judge_service.sandbox.models import CheckerKind, Job, Limits, Verdict

__all__ = ["EmpiricalComplexityJudge", "Measurement", "geometric_sizes"]

# What went wrong, by the driver's error source.
_FAILURES = {
    "generator": "the input generator failed",
    "state": "not timed (its calls share state)",
}
# A timing run that ended so, unfinished, was stopped by the solution.
_KILLED_BY_PROGRAM = (Verdict.RE, Verdict.MLE, Verdict.OLE)
# Python's answers are compared at every size up to this, and above it at the powers of two
# and a secret half of the other sizes (digesting a huge answer at every size would cost more
# than timing it); compiled languages' at every size whose output the sandbox reports whole.
_DIGEST_MAX_N = 1 << 13
# A candidate whose growth fits the reference's curve and a ladder class this close (in BIC)
# is timed again. Simulated at 10% noise per point: 5 wrong of 400 with a second run where
# closer than 10, 12 without; about one candidate in four of such a problem is timed twice.
_UNDECIDED_BIC = 10.0
# A candidate whose own class differs from the reference's while the reference's curve fits
# it no worse than this (in BIC) than that class is timed again before it is judged so. One
# run of a program identical to the reference, timed while CI's host was busy, fitted
# O(n log n) by 33 BIC better than O(n); programs a class apart lose by 100 or more, and
# exponential ones (which stop near n = 20, so cheaply timed) by 30-50.
_NEAR_MISS_BIC = 60.0


def geometric_sizes(max_n: int, per_octave: int = 3, dense_upto: int = 8) -> list[int]:
    """Every integer up to ``dense_upto``, then ``per_octave`` sizes per doubling (powers of
    two included, so ladders with different densities share sizes)."""
    sizes = set(range(1, min(dense_upto, max_n) + 1))
    step = 0
    while (value := 2.0 ** (step / per_octave)) <= max_n:
        sizes.add(int(value))
        step += 1
    return sorted(sizes)


@dataclass(frozen=True)
class Measurement:
    """One program's timings, its answers' digests, and the class they fit."""

    points: list[Point]
    fit: FitResult
    reason: str = ""
    """Why the class is unknown (a crash, a wrong answer, too few sizes); empty otherwise."""
    digests: dict[int, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    relative: ReferenceFit | None = None
    """The fit of these times to the reference's curve, when one was made."""
    like_reference: str = ""
    """The reference's class when these times grow as the reference's: it decides."""
    final: bool = False
    """The class is unknown because of what the program did (a wrong answer, a crash, state
    kept between calls, too slow to time): no other backend may give it a class instead."""

    @property
    def predicted(self) -> str:
        if self.reason:
            return UNKNOWN
        return self.like_reference or self.fit.predicted

    @property
    def confidence(self) -> float:
        if self.reason:
            return 0.0
        if self.like_reference and self.relative is not None:
            return self.relative.weight
        return self.fit.confidence

    def evidence(self) -> dict[str, Any]:
        return {
            "sizes": [p.n for p in self.points],
            "seconds": [p.seconds for p in self.points],
            "censored": [p.n for p in self.points if p.censored],
            "bic": {cls: round(fit.bic, 2) for cls, fit in self.fit.fits.items()},
            "bic_weights": {cls: round(w, 4) for cls, w in self.fit.weights.items()},
            "range_classes": list(self.fit.range_classes),
            **({"own_class": self.fit.predicted} if self.like_reference else {}),
            **(
                {"relative_to_reference": _relative_evidence(self.relative)}
                if self.relative is not None
                else {}
            ),
            **({"reason": self.reason} if self.reason else {}),
            **({"final": True} if self.reason and self.final else {}),
            **({"notes": self.notes} if self.notes else {}),
        }

    def failed(self, reason: str, final: bool = True) -> Measurement:
        return replace(self, reason=reason, final=final)


class EmpiricalComplexityJudge:
    """Times solutions at growing n in the sandbox and picks the class by BIC."""

    method = "empirical"

    def __init__(
        self,
        pool: Sandboxes,
        *,
        max_n: int = 1 << 18,
        budget_s: float = 1.1,
        cap_s: float = 0.15,
        repeats: int = 3,
        min_sample_s: float = 0.001,
        check_answers: bool = True,
        compare_growth: bool = True,
        engine_max_n: int = 1 << 30,
        extend_to: int = 1 << 30,
        reference_rounds: int = 3,
    ) -> None:
        self.pool = pool
        self.sizes = geometric_sizes(max_n)
        self.budget_s = budget_s
        self.cap_s = cap_s
        self.repeats = repeats
        self.min_sample_s = min_sample_s
        self.check_answers = check_answers
        self.compare_growth = compare_growth
        self.extend_to = extend_to
        self.reference_rounds = reference_rounds
        self.engine = EngineSettings(sizes=geometric_sizes(engine_max_n, 2, 24))
        # Seeds every generator with n: the same inputs for every program this judge times
        # (the reference's answers are compared), and none a candidate could guess.
        self.seed = secrets.token_hex(16)
        self.engine = replace(self.engine, seed=self.seed)
        self._inputs = InputCache()
        self._references: OrderedDict[tuple[str, bool], Measurement] = OrderedDict()
        self._measuring: dict[tuple[str, bool], threading.Lock] = {}
        self._lock = threading.Lock()

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        reason = _unsupported(language, problem)
        if reason:
            return ComplexityEstimate(UNKNOWN, 0.0, self.method, {"reason": reason})
        assert problem is not None
        measured = self.measure_checked(code, language, problem)
        return ComplexityEstimate(
            measured.predicted, measured.confidence, self.method, measured.evidence()
        )

    def prepare(self, problem: ComplexityProblem) -> Measurement | None:
        """Do once, before any candidate of the problem is judged, what every candidate of it
        reuses: the reference measured (its answers, and its growth when growth is compared)
        and, for a stdin problem, the inputs the engine's languages are timed on generated.
        Both are kept by the problem's content (and this judge's secret seed), so a candidate
        then pays only for its own timing; without this call the first candidate pays. The
        reference's measurement, or None when the problem has none that could be measured."""
        if _unsupported("python", problem):  # nothing of it can be timed
            return None
        assert problem.input_generator
        if problem.mode.value == "stdin":
            self._inputs.get_or_make(self.pool, problem.input_generator, self.engine)
        reference = problem.reference
        if reference is None or _unsupported(reference.language, problem):
            return None
        check = self.check_answers and problem.checker.kind is not CheckerKind.CUSTOM
        if not check and not self.compare_growth:
            return None
        return self.reference(problem, answers_only=not self.compare_growth)

    def measure_checked(self, code: str, language: str, problem: ComplexityProblem) -> Measurement:
        """What :meth:`estimate` reports, as a measurement (to plot): answers checked and
        growth compared with the reference's."""
        measured = self.measure(code, language, problem)
        if measured.reason:
            return measured
        measured = self._against_reference(measured, problem)
        if measured.reason or not self._timed_again(measured, problem):
            return measured
        # One run of the candidate against the reference's three: where that run alone would
        # decide its class against the reference's, time it in as many rounds as the reference
        # had, and decide on the rounds pooled (a busy moment slows one round).
        # The rounds are pooled by the median time at each size, not the lowest: each round's
        # time at a size is already the lowest of up to three processes, and a program that
        # takes a fast path in a few of its processes only (decided at random when it loads)
        # would be judged by its luckiest of nine; the median outvotes one lucky round as it
        # does one busy one. So all the rounds are timed: a median of two is a minimum.
        rounds = [measured]
        while len(rounds) < self.reference_rounds:
            again = self._against_reference(self.measure(code, language, problem), problem)
            if again.reason:
                return again
            rounds.append(again)
        pooled = self._against_reference(_pooled(rounds, median_per_size), problem)
        assert measured.relative is not None
        note = (
            f"timed in {len(rounds)} rounds: the first read {measured.relative.best_class}, "
            f"the reference's growth {_lead(measured.relative):+.1f} BIC from it"
        )
        return replace(pooled, notes=[*pooled.notes, note])

    def _timed_again(self, measured: Measurement, problem: ComplexityProblem) -> bool:
        """Whether the reference's curve and the candidate's own class are too close to call
        on these times: the two fit about as well, or the reference's fits a little worse and
        the class it would give differs from the candidate's own."""
        relative = measured.relative
        if relative is None:
            return False
        if _like_class(self.reference(problem), problem) == measured.fit.predicted:
            return False  # growing as the reference does or not, it gets the same class
        return -_NEAR_MISS_BIC < _lead(relative) < _UNDECIDED_BIC

    def compare(self, code: str, language: str, problem: ComplexityProblem) -> dict[str, Any]:
        """The candidate and the reference measured on the same inputs, each with its class."""
        reason = _unsupported(language, problem)
        if not reason and problem.reference is None:
            reason = "the problem has no reference solution"
        if not reason:
            assert problem.reference is not None
            reason = _unsupported(problem.reference.language, problem)
        if reason:
            return {"reason": reason}
        candidate = self.measure(code, language, problem)
        reference = self.reference(problem)
        if not candidate.reason and not reference.reason:
            candidate = _growth_against(_against(candidate, reference), reference, problem)
        return {"candidate": candidate, "reference": reference}

    def reference(self, problem: ComplexityProblem, answers_only: bool = False) -> Measurement:
        """The problem's reference, measured once per problem version (kept for 256 of them).

        ``answers_only``: its answers at the sizes that are compared (one run each, no
        repeats), which is all that checking a candidate needs; a full measurement serves too.
        Concurrent callers for the same reference wait for one measurement: the rollouts of one
        problem arrive together, and parallel copies would also slow each other's timing.
        """
        assert problem.reference is not None
        keys = [(problem.content_hash(), False)] + ([(problem.content_hash(), True)] * answers_only)
        while True:
            with self._lock:
                cached = self._cached_reference(keys)
                if cached is not None:
                    return cached
                # A full measurement in flight serves an answers-only caller too.
                gate = next((self._measuring[k] for k in keys if k in self._measuring), None)
                if gate is None:
                    gate = self._measuring[keys[-1]] = threading.Lock()
                    gate.acquire()
                    break
            with gate:  # another caller is measuring it: wait, then look again
                pass
        try:
            measured = self._measure_reference(problem, answers_only)
        except BaseException:
            with self._lock:
                del self._measuring[keys[-1]]
            gate.release()
            raise
        with self._lock:
            self._references[keys[-1]] = measured
            while len(self._references) > 256:
                self._references.popitem(last=False)
            del self._measuring[keys[-1]]
        gate.release()
        return measured

    def _measure_reference(self, problem: ComplexityProblem, answers_only: bool) -> Measurement:
        """The reference timed in ``reference_rounds`` sandbox runs, as one curve (its lowest
        time at each size): once per problem, and every candidate's growth is fitted to it.
        The curve's noise adds to each candidate's residuals; at 10% per point, a candidate
        equal to the reference read as another class in 11 of 200 simulated runs against one
        round, 4 against three (tests/complexity_model/test_empirical.py)."""
        assert problem.reference is not None
        code, language = problem.reference.code, problem.reference.language
        first = self.measure(code, language, problem, answers_only)
        if answers_only or first.reason or not self.compare_growth:
            return first
        rounds = [first]
        for _ in range(self.reference_rounds - 1):
            again = self.measure(code, language, problem)
            if again.reason:
                # A later round that fails (a busy host stopping the run) leaves the rounds so
                # far standing: returning its failure would drop the first round's answers too,
                # and every candidate of the problem would go unchecked for as long as the
                # failure is kept.
                pooled = _pooled(rounds)
                note = f"the reference timed in {len(rounds)} rounds: another {again.reason}"
                return replace(pooled, notes=[*pooled.notes, note[:300]])
            rounds.append(again)
        return _pooled(rounds)

    def _cached_reference(self, keys: list[tuple[str, bool]]) -> Measurement | None:
        for key in keys:
            if key in self._references:
                self._references.move_to_end(key)
                return self._references[key]
        return None

    def measure(
        self, code: str, language: str, problem: ComplexityProblem, answers_only: bool = False
    ) -> Measurement:
        """Time ``code`` on the problem's generated inputs; SandboxError goes to the caller."""
        assert problem.input_generator
        # The engine's name for it (an alias such as "py" or "c++" too); an unknown name goes
        # to the engine as given, which refuses it.
        language = canonical_language(language) or language
        if language == "python":
            output, ended = self._run_driver(code, problem, answers_only)
        else:
            output, ended = self._run_engine(code, language, problem, answers_only)
        points = without_isolated_dips(
            [Point(n, seconds, censored) for n, seconds, censored in output.points]
        )
        fit = choose_class(points)
        measured = Measurement(points, fit, "", output.digests, output.notes)
        if output.error:
            what = _FAILURES.get(output.error_source, "the program failed")
            # A generator that fails is the problem's failure, not the program's.
            final = output.error_source != "generator"
            return measured.failed(f"{what}: {output.error}"[:300], final)
        if not output.complete:
            # The driver was stopped before it finished (its time limit, or a candidate that
            # killed it): the sizes it reported may be a choice of the candidate's.
            return measured.failed(f"the timing run did not finish; {ended}"[:300], final=False)
        if fit.predicted == UNKNOWN:
            return measured.failed(f"too few sizes measured ({len(points)}); {ended}"[:300])
        return measured

    def _run_driver(
        self, code: str, problem: ComplexityProblem, answers_only: bool
    ) -> tuple[DriverOutput, str]:
        assert problem.input_generator
        spec = DriverSpec(
            code=code,
            generator=problem.input_generator,
            mode=problem.mode.value,
            entry_point=problem.entry_point,
            sizes=[n for n in self.sizes if n <= _DIGEST_MAX_N] if answers_only else self.sizes,
            repeats=0 if answers_only else self.repeats,
            min_sample_s=self.min_sample_s,
            cap_s=self.cap_s,
            budget_s=self.budget_s / 3 if answers_only else self.budget_s,
            fold_case=problem.checker.kind is CheckerKind.CASE_INSENSITIVE,
            digest_max_n=_DIGEST_MAX_N,
            extend_to=0 if answers_only else self.extend_to,
            scratch=list(SANDBOX_SCRATCH),
            clear_ipc=True,
            own_cgroup=True,
            seed=self.seed,
        )
        # The limit leaves room for the run that ends the growth and for generating inputs.
        limit_ms = int((self.budget_s + 4 * self.cap_s) * 1000) + 1000
        job = Job(
            language="python",
            code=timing_program(),
            tests=[{"input": spec.to_stdin(), "output": ""}],
            limits=Limits(
                time_limit_ms=limit_ms,
                memory_limit_mb=max(problem.memory_limit_mb, 512),
                report_bytes=1 << 16,
            ),
        )
        test = checked(self.pool.judge(job)).tests[0]
        output = parse_output(test.stdout, spec.nonce)
        last_error = (test.stderr.strip().splitlines() or [""])[-1]
        detail = "; ".join(part for part in (test.message, last_error) if part)
        ended = f"the run ended {test.verdict.value}" + (f": {detail}" if detail else "")
        if not output.complete and not output.error and test.verdict in _KILLED_BY_PROGRAM:
            # The driver was killed, not timed out: only the solution (same uid) could, or its
            # memory or output; whichever, its doing.
            output.error_source, output.error = "candidate", f"the timing run was stopped: {ended}"
        return output, ended

    def _run_engine(
        self, code: str, language: str, problem: ComplexityProblem, answers_only: bool
    ) -> tuple[DriverOutput, str]:
        assert problem.input_generator
        inputs = self._inputs.get_or_make(self.pool, problem.input_generator, self.engine)
        if isinstance(inputs, str):
            return DriverOutput(error=inputs, error_source="generator"), inputs
        fold_case = problem.checker.kind is CheckerKind.CASE_INSENSITIVE
        settings = self.engine
        if answers_only:
            inputs = [(n, text) for n, text in inputs if n <= _DIGEST_MAX_N]
            settings = replace(settings, repeats=1, budget_s=settings.budget_s / 3)
        output = measure_in_engine(self.pool, language, code, inputs, settings, fold_case)
        return output, f"{len(inputs)} inputs generated"

    def _against_reference(self, measured: Measurement, problem: ComplexityProblem) -> Measurement:
        if problem.reference is None or _unsupported(problem.reference.language, problem):
            return measured
        # A custom checker may accept several answers: they cannot be compared.
        check = self.check_answers and problem.checker.kind is not CheckerKind.CUSTOM
        if not check and not self.compare_growth:
            return measured
        # Only the answers are needed without the growth comparison: one run per size.
        reference = self.reference(problem, answers_only=not self.compare_growth)
        if reference.reason:
            note = f"not compared with the reference: the reference {reference.reason}"
            return replace(measured, notes=[*measured.notes, note])
        if check:
            measured = _against(measured, reference)
        return _growth_against(measured, reference, problem) if self.compare_growth else measured


def _pooled(
    rounds: list[Measurement],
    per_size: Callable[[list[list[Point]]], list[Point]] = lowest_per_size,
) -> Measurement:
    """Measurements of one program as one: its lowest time at each size (or as ``per_size``
    pools them), refitted."""
    points = per_size([measured.points for measured in rounds])
    first = rounds[0]
    return replace(first, points=points, fit=choose_class(points), relative=None, like_reference="")


def _lead(relative: ReferenceFit) -> float:
    """How much better (BIC) the reference's curve fits than the best class: > 0, better."""
    return relative.best_class_bic - relative.bic


def _against(candidate: Measurement, reference: Measurement) -> Measurement:
    """The candidate, ``unknown`` if an answer differs from the reference's on an input."""
    for n in sorted(set(candidate.digests) & set(reference.digests)):
        if candidate.digests[n] != reference.digests[n]:
            return candidate.failed(
                f"wrong answer at n = {n}: it differs from the reference's on the same input"
            )
    return candidate


def _growth_against(
    candidate: Measurement, reference: Measurement, problem: ComplexityProblem
) -> Measurement:
    """The candidate with its growth fitted to the reference's; the reference's class when
    that fit wins."""
    if candidate.reason or reference.reason:
        return candidate
    relative = fit_like_reference(candidate.points, reference.points)
    if relative is None:
        return candidate
    like = _like_class(reference, problem) if relative.same_growth else ""
    return replace(candidate, relative=relative, like_reference=like)


def _like_class(reference: Measurement, problem: ComplexityProblem) -> str:
    """The class of a candidate that grows as the reference does: the problem's declared
    optimum, else the reference's measured class ("" when that is unknown)."""
    declared = normalise_class(problem.optimal_complexity or "")
    like = declared if declared in LADDER else reference.predicted
    return "" if like == UNKNOWN else like


def _relative_evidence(relative: ReferenceFit) -> dict[str, Any]:
    return {
        "same_growth": relative.same_growth,
        "bic": round(relative.bic, 2),
        "best_class": relative.best_class,
        "best_class_bic": round(relative.best_class_bic, 2),
        "weight": round(relative.weight, 4),
        "sizes": relative.points,
    }


def _unsupported(language: str, problem: ComplexityProblem | None) -> str:
    if problem is None or not problem.input_generator:
        return "the problem has no input generator"
    canonical = canonical_language(language)
    python = canonical == "python"
    mode = problem.mode.value
    if mode == "assert":
        return "empirical timing needs a stdin or function problem, not an assert-mode one"
    if mode == "function" and not python:
        return f"empirical timing of function-mode problems supports Python, not {language!r}"
    if canonical is None:
        return f"empirical timing does not know the language {language!r}"
    return ""
