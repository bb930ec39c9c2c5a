"""Code extraction from a model's completion, and the gated reward.

The reward of one judged submission is

    R = R_format + R_correctness                 if pass rate < 1
    R = R_format + R_correctness + R_time        if pass rate = 1

where

* ``R_format`` is ``format_ok`` when code could be extracted from the completion and
  ``format_penalty`` when it could not;
* ``R_correctness`` is ``correctness_weight`` times the pass rate (``correctness_mode =
  "pass_rate"``) or times 1 if every test passed and 0 otherwise (``"all_or_nothing"``); it is 0
  when no code was extracted;
* ``R_time`` is ``time_weight`` times the complexity judge's time reward (in [0, 1], see
  :func:`judge_service.complexity.time_reward`); it is counted only when every test passed and
  the complexity judge gave a signal, and is 0 otherwise.

A system error (the judge failed, so no pass rate exists) is never turned into a reward: the
caller reports ``status="system_error"`` with ``reward=None`` instead of calling
:func:`compute_reward`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge_service.sandbox.languages import language_labels
from judge_service.schemas import RewardOut

__all__ = [
    "RewardConfig",
    "compute_reward",
    "extract_code",
    "strip_reasoning",
]


class RewardConfig(BaseModel):
    """How a completion is turned into code and a judged submission into a reward."""

    model_config = ConfigDict(extra="forbid")

    format_ok: float = Field(
        0.0,
        allow_inf_nan=False,
        description="R_format for a well-formed answer (code could be extracted).",
    )
    format_penalty: float = Field(
        -1.0,
        allow_inf_nan=False,
        description="R_format when no code can be extracted from the completion.",
    )
    correctness_weight: float = Field(
        1.0, allow_inf_nan=False, description="Weight of R_correctness."
    )
    correctness_mode: Literal["pass_rate", "all_or_nothing"] = Field(
        "pass_rate",
        description="pass_rate: R_correctness = weight * pass rate; all_or_nothing: weight if "
        "every test passed, else 0.",
    )
    time_weight: float = Field(
        1.0,
        allow_inf_nan=False,
        description="Weight of R_time (the complexity time reward, counted only at pass rate 1).",
    )
    time_decay: float = Field(
        0.5,
        ge=0.0,
        lt=1.0,
        description="R_time is 1 when the solution's class is no worse than the optimal one, "
        "else time_decay ** (ladder steps worse); 0 makes it all-or-nothing.",
    )
    extraction: Literal["last_block", "first_block", "whole"] = Field(
        "last_block",
        description="Which fenced code block is the answer: the last or the first candidate "
        "block, or the whole completion (reasoning sections removed).",
    )
    require_fence: bool = Field(
        False,
        description="When False and the completion has no fenced block at all, the whole "
        "completion is the code (if non-empty); when True, no fenced block is a format failure.",
    )


# Linear-time searches only (all C-level, one Python step per removed section): patterns that
# also matched through the section's close, or up to a tag's ">", retried that scan from every
# "<think" and took seconds on "<think>" * 12000, holding the GIL, so every thread waited.
_THINK_OPEN = re.compile(r"<think\b", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)
# From the start through the last closing tag: ".*" runs to the end and backs off to it.
_THROUGH_LAST_CLOSE = re.compile(r".*</think\s*>", re.IGNORECASE | re.DOTALL)
# Fences are found by position in the text's lines joined by "\n": a Python step per line, or a
# list of a million lines (built and freed while holding the GIL), would stall every thread.
# A line that may open or close a fence (a closing one may be indented with any whitespace):
_FENCE_LINE = re.compile(r"^[^\S\n]*(?:```|~~~)", re.MULTILINE)
# An opening fence: indentation, three or more backticks or tildes, then the info string.
_FENCE_OPEN = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")
# The line boundaries other than "\n" that str.splitlines splits at.
_OTHER_BREAK = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True)
class _Block:
    label: str  # the info string's first word, lower-cased; "" when unlabelled
    code: str


def strip_reasoning(text: str) -> str:
    """``text`` without ``<think>...</think>`` sections, in time linear in its length.

    A ``</think>`` with no opening tag (the chat template opened the section in the prompt)
    drops everything before it; an unclosed ``<think>`` (the model was cut off while reasoning)
    drops everything after it. An opening tag is ``<think`` up to the next ``>`` (attributes
    allowed), a closing one ``</think>`` with optional spaces before the ``>``; case is ignored.
    """
    text = _without_think_sections(text)
    through = _THROUGH_LAST_CLOSE.match(text)
    if through is not None:
        text = text[through.end() :]
    opening = _opening_tag(text, 0)
    return text if opening is None else text[: opening[0]]


def _opening_tag(text: str, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first opening tag at or after ``start``. When the first
    ``<think`` has no ``>`` after it, no later one has."""
    found = _THINK_OPEN.search(text, start)
    if found is None:
        return None
    end = text.find(">", found.end())
    return None if end < 0 else (found.start(), end + 1)


def _without_think_sections(text: str) -> str:
    """From left to right, each opening tag with a closing tag after it removed through the
    first such closing tag (tags inside a removed section do not count)."""
    kept: list[str] = []
    resume = 0
    while (opening := _opening_tag(text, resume)) is not None:
        closing = _THINK_CLOSE.search(text, opening[1])
        if closing is None:
            break
        kept.append(text[resume : opening[0]])
        resume = closing.end()
    kept.append(text[resume:])
    return "".join(kept)


def _tidy(code: str) -> str:
    """``code`` without its leading and trailing blank lines, ending in a newline ("" if none)."""
    first = len(code) - len(code.lstrip())
    last = len(code.rstrip())
    if last <= first:
        return ""
    start = code.rfind("\n", 0, first) + 1
    end = code.find("\n", last)
    return code[start : len(code) if end < 0 else end] + "\n"


def _joined_lines(text: str) -> str:
    """``"\\n".join(text.splitlines())``, without splitting when "\\n" is the only boundary."""
    if _OTHER_BREAK.search(text):
        return "\n".join(text.splitlines())
    return text[:-1] if text.endswith("\n") else text


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _fenced_blocks(text: str) -> Iterator[_Block]:
    """The fenced code blocks of ``text`` (lines joined by "\\n") in order; an unclosed last
    fence runs to the end. One at a time: a hostile text holds a hundred thousand of them."""
    marks = _FENCE_LINE.finditer(text)
    for mark in marks:
        line_end = _line_end(text, mark.start())
        opened = _FENCE_OPEN.match(text, mark.start(), line_end)
        if opened is None:
            continue
        fence, info = opened["fence"], opened["info"].strip()
        if fence[0] == "`" and "`" in info:  # "```x```" is inline code, not a fence
            continue
        words = info.split()
        label = words[0].lower().lstrip("{.").rstrip("}") if words else ""
        body_end = len(text)
        for close in marks:  # the same iterator: a closing fence opens nothing
            stripped = text[close.start() : _line_end(text, close.start())].strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                body_end = close.start() - 1
                break
        code = text[line_end + 1 : body_end]
        indent = len(opened["indent"])
        if indent:  # the fence's own indentation (at most), off every line
            code = re.sub(f"(?m)^[ \t]{{1,{indent}}}", "", code)
        yield _Block(label=label, code=_tidy(code))


def extract_code(completion: str, language: str, config: RewardConfig) -> str | None:
    """The code answer in ``completion`` for ``language``, or None when there is none.

    Reasoning sections (``<think>...</think>``) are removed first. With ``extraction="whole"``
    the rest of the completion is the code. Otherwise the fenced blocks (````` and ``~~~``
    fences, with an optional info string) are searched: blocks labelled with ``language`` or one
    of its aliases (the engine's language table) are the candidates; when there are none,
    unlabelled blocks are; blocks labelled with another language are never used. Empty blocks
    are not candidates. ``last_block`` or ``first_block`` picks among the candidates. An
    unclosed final fence (a truncated completion) runs to the end of the text.

    A completion with no fenced block at all is the code itself when ``require_fence`` is False
    (and it is not blank); a completion whose blocks are all unusable yields None.
    """
    text = strip_reasoning(completion)
    if config.extraction == "whole":
        return text if text.strip() else None
    lines = _joined_lines(text)
    labels = language_labels(language)
    fenced = False
    chosen: dict[bool, str] = {}  # by whether the label names the language; unlabelled: False
    for block in _fenced_blocks(lines):
        fenced = True
        if block.code and (block.label in labels or not block.label):
            named = block.label in labels
            if config.extraction == "last_block" or named not in chosen:
                chosen[named] = block.code
    if not fenced:
        return None if config.require_fence else _tidy(lines) or None
    return chosen.get(True, chosen.get(False))


def compute_reward(
    *,
    extracted: bool,
    pass_rate: float | None,
    time_reward: float | None,
    config: RewardConfig,
) -> RewardOut:
    """The gated reward (see the module docstring) of one submission.

    ``extracted``: whether code was extracted from the completion (True for submissions that
    came as code). ``pass_rate``: passed / total tests, in [0, 1]. ``time_reward``: the
    complexity judge's time reward in [0, 1], or None when it gave no signal (then R_time is 0).

    ``pass_rate=None`` for an extracted submission means it was not judged, which is a system
    error, and raises ValueError: a system error must never be turned into a reward. The caller
    reports ``status="system_error"`` with ``reward=None`` instead. When nothing was extracted,
    nothing ran, so ``pass_rate`` may be None (and is ignored).

    Raises ValueError for a pass rate outside [0, 1] or a non-finite time reward.
    """
    if pass_rate is not None and not 0.0 <= pass_rate <= 1.0:  # also rejects NaN
        raise ValueError(f"pass_rate must be in [0, 1], got {pass_rate!r}")
    if time_reward is not None and not math.isfinite(time_reward):
        raise ValueError(f"time_reward must be finite, got {time_reward!r}")
    if not extracted:
        return RewardOut(
            format=config.format_penalty,
            correctness=0.0,
            time=0.0,
            total=config.format_penalty,
        )
    if pass_rate is None:
        raise ValueError(
            "pass_rate is None: the submission was not judged (a system error), and a system "
            "error must never be turned into a reward; report system_error with reward None"
        )
    all_passed = pass_rate == 1.0
    if config.correctness_mode == "all_or_nothing":
        correctness = config.correctness_weight * (1.0 if all_passed else 0.0)
    else:
        correctness = config.correctness_weight * pass_rate
    time = config.time_weight * time_reward if all_passed and time_reward is not None else 0.0
    return RewardOut(
        format=config.format_ok,
        correctness=correctness,
        time=time,
        total=config.format_ok + correctness + time,
    )
