"""The static complexity judge: parse, lower to the shared IR, and cost the program."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from complexity_model.ladder import UNKNOWN, ComplexityEstimate
from complexity_model.static._analyse import Analysis
from complexity_model.static._ir import EntryPointNotFound, Program
from complexity_model.static._python import lower_python
from complexity_model.static._treesitter import lower_tree_sitter
from complexity_model.static._trust import reward_trust
from judge_service.sandbox.languages import canonical_language

__all__ = ["SUPPORTED_LANGUAGES", "ProblemContext", "StaticComplexityJudge"]

_BASE_CONFIDENCE = 0.8
_GUESS_PENALTY = 0.85
_MIN_CONFIDENCE = 0.3

# The languages it has front ends for (names and aliases come from the engine's table).
SUPPORTED_LANGUAGES = frozenset({"python", "java", "cpp"})


class ProblemContext(Protocol):
    """What the analyser reads from a problem (a ``ComplexityProblem`` is one)."""

    @property
    def entry_point(self) -> str | None: ...


def _lower_tree_sitter(language: str) -> Callable[[str, str | None], Program]:
    return lambda source, entry_point: lower_tree_sitter(source, language, entry_point)


def _entry_point(problem: ProblemContext | None) -> str | None:
    """The function the harness calls; None for a stdin program, which runs as a whole."""
    if problem is None or str(getattr(problem, "mode", "")) == "stdin":
        return None
    return problem.entry_point or None


class StaticComplexityJudge:
    """Estimates time complexity from source alone: loops, recursion and library costs.

    Supports Python (``ast``), Java and C++ (tree-sitter). With a problem that names an
    ``entry_point`` (function and assert modes) the cost is that function's, in terms of its
    arguments, following the calls it makes; otherwise the whole program's. Unsupported
    languages, code that does not parse, a missing entry point and code the analysis cannot see
    into on the entry point's path (``exec``, lookups by computed names, native libraries) give
    ``"unknown"`` with confidence 0; it never raises on bad input.
    """

    method = "static"

    def estimate(
        self, code: str, language: str, problem: ProblemContext | None = None
    ) -> ComplexityEstimate:
        canonical = canonical_language(language)
        if canonical not in SUPPORTED_LANGUAGES:
            return self._unknown(f"unsupported language: {language!r}")
        lower = lower_python if canonical == "python" else _lower_tree_sitter(canonical)
        entry_point = _entry_point(problem)
        try:
            program = lower(code, entry_point)
        except EntryPointNotFound as error:
            return self._unknown(f"entry point {entry_point!r} not found: {error}")
        except (SyntaxError, ValueError) as error:
            return self._unknown(f"could not parse the {canonical} code: {error}")
        except RecursionError:
            return self._unknown("the code nests too deeply to analyse")
        try:
            analysis = Analysis(program)
        except RecursionError:
            return self._unknown("the code nests too deeply to analyse")
        if analysis.opaque:
            return self._unknown(
                "the code reaches code the analysis cannot see into", opaque=analysis.opaque
            )
        confidence = max(_MIN_CONFIDENCE, _BASE_CONFIDENCE * _GUESS_PENALTY**analysis.guesses)
        evidence = {"language": canonical, **analysis.evidence, "notes": program.notes}
        estimate = ComplexityEstimate(
            predicted=analysis.total.ladder_class(),
            confidence=round(confidence, 3),
            method=self.method,
            evidence=evidence,
        )
        evidence["reward_trust"] = reward_trust(estimate)
        return estimate

    def _unknown(self, reason: str, **details: object) -> ComplexityEstimate:
        return ComplexityEstimate(UNKNOWN, 0.0, self.method, {"reason": reason, **details})
