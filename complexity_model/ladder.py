"""The complexity ladder: class names, parsing of big-O text, and R_time between two classes.

Every backend (static, empirical, served model) answers with one class of :data:`LADDER` or
:data:`UNKNOWN` in a :class:`ComplexityEstimate`; :func:`time_reward` compares a candidate's
class with the problem's optimal class.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "LADDER",
    "UNKNOWN",
    "ComplexityEstimate",
    "normalise_class",
    "rank",
    "time_reward",
]

# Time classes from best to worst; a class's index is its rank.
LADDER: tuple[str, ...] = ("O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)", "O(2^n)")
UNKNOWN = "unknown"

_O1, _LOG, _N, _NLOGN, _N2, _N3, _EXP = LADDER

_WORDS: dict[str, str] = {
    "1": _O1,
    "c": _O1,
    "constant": _O1,
    "logarithmic": _LOG,
    "n": _N,
    "linear": _N,
    "linearithmic": _NLOGN,
    "loglinear": _NLOGN,
    "quasilinear": _NLOGN,
    "quadratic": _N2,
    "cubic": _N3,
    "exponential": _EXP,
    "np": _EXP,
}

_LOG_TERM = r"(?:log|lg|ln)(?:_?\{?(?:2|e|10)\}?)?(?:n|\(n\))"
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\(?{_LOG_TERM}\)?"), _LOG),
    (re.compile(rf"n\(?{_LOG_TERM}\)?|\(?{_LOG_TERM}\)?n"), _NLOGN),
    (re.compile(r"n\^\(?2\)?|nn"), _N2),
    (re.compile(r"n\^\(?3\)?|nnn"), _N3),
    (re.compile(r"2\^\(?n\)?"), _EXP),
)

_SYMBOLS = {
    "²": "^2",
    "³": "^3",
    "ⁿ": "^n",
    "**": "^",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∗": "*",
    "θ": "o",
    "Θ": "o",
    "𝑂": "o",
}
_FILLER = re.compile(r"\b(?:big|time|complexity|runtime|run|running)\b")
_WRAPPER = re.compile(r"(?:o|theta)\((.*)\)")
_O_CALL = re.compile(r"(?<![a-z0-9_])(?:o|theta)\s*\(")


def _normalise_expression(text: str) -> str | None:
    expression = _FILLER.sub("", text)
    expression = re.sub(r"[\s*\-_]+", "", expression)
    wrapped = _WRAPPER.fullmatch(expression)
    if wrapped:
        expression = wrapped[1]
    if expression in _WORDS:
        return _WORDS[expression]
    for pattern, cls in _PATTERNS:
        if pattern.fullmatch(expression):
            return cls
    return None


def _o_calls(text: str) -> list[str]:
    """Every ``O(...)`` in ``text`` (balanced parentheses), in order."""
    calls: list[str] = []
    for match in _O_CALL.finditer(text):
        depth, start = 0, match.end() - 1
        for end in range(start, len(text)):
            if text[end] == "(":
                depth += 1
            elif text[end] == ")":
                depth -= 1
                if depth == 0:
                    calls.append(text[match.start() : end + 1])
                    break
    return calls


def normalise_class(text: str) -> str | None:
    """The :data:`LADDER` class that ``text`` names, or None when it names none of them.

    Case, spacing, ``**`` or ``^`` and superscripts don't matter: ``"O(nlogn)"``,
    ``"O(N log N)"``, ``"n^2"``, ``"O(n**2)"``, ``"O(n²)"``, ``"Θ(n)"``. Words name classes
    too: constant, logarithmic, linear, linearithmic, quadratic, cubic, exponential, and "np"
    (exponential). In a longer text the first ``O(...)`` that names a class counts
    (``"Time: O(n log n), space: O(n)"`` is ``"O(n log n)"``). Classes off the ladder
    (``O(n + m)``, ``O(n!)``, ``O(sqrt n)``) and ``"unknown"`` give None.
    """
    lowered = text.strip().lower()
    for symbol, replacement in _SYMBOLS.items():
        lowered = lowered.replace(symbol, replacement)
    direct = _normalise_expression(lowered)
    if direct is not None:
        return direct
    for call in _o_calls(lowered):
        found = _normalise_expression(call)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class ComplexityEstimate:
    """A judge's answer: a :data:`LADDER` class or ``"unknown"``, and how it was reached."""

    predicted: str
    confidence: float
    method: str
    evidence: dict[str, Any] = field(default_factory=dict)


def rank(cls: str) -> int:
    """The position of a :data:`LADDER` class (0 for O(1)); ValueError for anything else."""
    return LADDER.index(cls)


def time_reward(candidate: str, reference: str | None, *, decay: float = 0.5) -> float | None:
    """R_time (before its weight) for a candidate class against the reference (optimal) class.

    Both are normalised with :func:`normalise_class`. None when either is unknown (no signal:
    the reward counts no time term). 1.0 when the candidate is no worse than the reference on
    :data:`LADDER`; otherwise ``decay ** gap``, where ``gap`` is how many ladder steps the
    candidate is worse by. It never increases as the gap grows (strictly decreases for
    ``0 < decay < 1``). ``decay`` must be in [0, 1).
    """
    if not 0.0 <= decay < 1.0:
        raise ValueError(f"decay must be in [0, 1), got {decay!r}")
    candidate_class = normalise_class(candidate)
    reference_class = normalise_class(reference) if reference is not None else None
    if candidate_class is None or reference_class is None:
        return None
    gap = LADDER.index(candidate_class) - LADDER.index(reference_class)
    return 1.0 if gap <= 0 else float(decay**gap)
