"""Strict parsing of the served model's answer: a ladder class, or ``unknown``, never a guess.

The answer must be one JSON object (alone, or alone in one Markdown code fence, optionally
after a ``<think>...</think>`` block that reasoning models emit) with

- ``"complexity"``: a string that names exactly one class of :data:`LADDER` in any spelling
  :func:`normalise_class` accepts (``"O(N log N)"``, ``"linear"``), and
- ``"confidence"``: a number in [0, 1].

Anything else (prose, two classes, a class off the ladder, a confidence of 80, NaN, a missing
field) is not an answer, and reads as ``unknown`` with the reason. Picking the first class
that appears somewhere in free text would be a guess, and a wrong guess costs R_time more
than no signal.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from complexity_model.ladder import UNKNOWN, normalise_class

__all__ = ["ParsedAnswer", "parse_answer"]

_THINK = re.compile(r"\A\s*<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\Z", re.DOTALL)
_BIG_O = re.compile(r"(?<![a-z0-9_])(?:o|theta|θ)\s*\(", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedAnswer:
    """A ladder class and the model's stated confidence, or ``unknown`` with a reason."""

    predicted: str
    stated_confidence: float
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.predicted != UNKNOWN


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _unknown(reason: str) -> ParsedAnswer:
    return ParsedAnswer(UNKNOWN, 0.0, reason)


def _json_text(text: str) -> str:
    body = _THINK.sub("", text, count=1).strip()
    fenced = _FENCE.match(body)
    return fenced[1].strip() if fenced else body


def parse_answer(text: str) -> ParsedAnswer:
    """The class and confidence that ``text`` states, or ``unknown`` with why it is not one."""
    body = _json_text(text)
    if not body:
        return _unknown("empty answer")
    try:
        answer = json.loads(body, parse_constant=_reject_constant)
    except ValueError as error:
        return _unknown(f"not a JSON object: {error}")
    if not isinstance(answer, dict):
        return _unknown("not a JSON object")
    complexity = answer.get("complexity")
    if not isinstance(complexity, str):
        return _unknown('no "complexity" string')
    if complexity.strip().lower() == UNKNOWN:
        return _unknown("the model answered unknown")
    if len(_BIG_O.findall(complexity)) > 1:
        return _unknown(f"more than one class in {complexity!r}")
    predicted = normalise_class(complexity)
    if predicted is None:
        return _unknown(f"not a ladder class: {complexity!r}")
    confidence = answer.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return _unknown('no numeric "confidence"')
    if not (math.isfinite(confidence) and 0.0 <= confidence <= 1.0):
        return _unknown(f"confidence {confidence!r} is outside [0, 1]")
    return ParsedAnswer(predicted, float(confidence))
