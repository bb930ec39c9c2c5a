"""The probability the model gave the class it wrote, from the token logprobs of its answer.

A fine-tuned classifier states the same confidence for every answer (its training labels are
certain), and a zero-shot model's stated number is poorly calibrated; the probability of the
tokens that spell the class is the model's real belief. Only those tokens count: the digits
of the stated confidence are uncertain by nature and would drag a whole-sequence probability
down for no reason.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["answer_probability"]

_VALUE = re.compile(r'"complexity"\s*:\s*"([^"\\]*)"')


def answer_probability(content: str, logprobs: Any) -> float | None:
    """P(the tokens of the ``"complexity"`` value) or None when it cannot be told exactly.

    ``logprobs`` is a choice's ``logprobs`` object in the OpenAI chat format
    (``{"content": [{"token": str, "logprob": float}, ...]}``). None when it is missing, when
    its tokens do not spell ``content`` exactly (the offsets would be guesses), or when the
    content has no ``"complexity": "..."`` pair.
    """
    if not isinstance(logprobs, dict) or not isinstance(logprobs.get("content"), list):
        return None
    match = _VALUE.search(content)
    if match is None or match.start(1) == match.end(1):
        return None
    start, end = match.span(1)
    position, total, counted = 0, 0.0, 0
    for entry in logprobs["content"]:
        if not isinstance(entry, dict):
            return None
        token, logprob = entry.get("token"), entry.get("logprob")
        if not isinstance(token, str) or not isinstance(logprob, int | float):
            return None
        token_start, position = position, position + len(token)
        if token_start < end and position > start:
            total += float(logprob)
            counted += 1
    if position != len(content) or counted == 0:
        return None
    return min(1.0, math.exp(total))
