"""The static complexity judge: parse, lower to the shared IR, and cost the program."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from complexity_model.ladder import UNKNOWN, ComplexityEstimate
from complexity_model.static._analyse import Analysis
from complexity_model.static._ir import Program
from complexity_model.static._python import lower_python

if TYPE_CHECKING:
    from judge_service.schemas import Problem

__all__ = ["SUPPORTED_LANGUAGES", "StaticComplexityJudge"]

_BASE_CONFIDENCE = 0.8
_GUESS_PENALTY = 0.85
_MIN_CONFIDENCE = 0.3

_ALIASES = {
    "python": "python",
    "python3": "python",
    "py": "python",
    "java": "java",
    "cpp": "cpp",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
}
SUPPORTED_LANGUAGES = frozenset(_ALIASES.values())


def _lower_tree_sitter(language: str) -> Callable[[str], Program]:
    from complexity_model.static._treesitter import lower_tree_sitter

    return lambda source: lower_tree_sitter(source, language)


class StaticComplexityJudge:
    """Estimates time complexity from source alone: loops, recursion and library costs.

    Supports Python (``ast``), Java and C++ (tree-sitter). Unsupported languages and code that
    does not parse give ``"unknown"`` with confidence 0; it never raises on bad input.
    """

    method = "static"

    def estimate(
        self, code: str, language: str, problem: Problem | None = None
    ) -> ComplexityEstimate:
        canonical = _ALIASES.get(language.strip().lower())
        if canonical is None:
            return self._unknown(f"unsupported language: {language!r}")
        lower = lower_python if canonical == "python" else _lower_tree_sitter(canonical)
        try:
            program = lower(code)
        except (SyntaxError, ValueError) as error:
            return self._unknown(f"could not parse the {canonical} code: {error}")
        except RecursionError:
            return self._unknown("the code nests too deeply to analyse")
        try:
            analysis = Analysis(program)
        except RecursionError:
            return self._unknown("the code nests too deeply to analyse")
        confidence = max(_MIN_CONFIDENCE, _BASE_CONFIDENCE * _GUESS_PENALTY**analysis.guesses)
        evidence = {"language": canonical, **analysis.evidence, "notes": program.notes}
        return ComplexityEstimate(
            predicted=analysis.total.ladder_class(),
            confidence=round(confidence, 3),
            method=self.method,
            evidence=evidence,
        )

    def _unknown(self, reason: str) -> ComplexityEstimate:
        return ComplexityEstimate(UNKNOWN, 0.0, self.method, {"reason": reason})
