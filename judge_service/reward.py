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
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from judge_service.schemas import RewardOut

__all__ = [
    "LANGUAGE_ALIASES",
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


# Info-string labels that name each engine language (matched case-insensitively).
LANGUAGE_ALIASES: dict[str, frozenset[str]] = {
    "python": frozenset({"python", "py", "python3"}),
    "cpp": frozenset({"cpp", "c++", "cc", "cxx"}),
    "c": frozenset({"c"}),
    "java": frozenset({"java"}),
    "javascript": frozenset({"javascript", "js", "node"}),
    "go": frozenset({"go", "golang"}),
    "rust": frozenset({"rust", "rs"}),
}

_THINK_BLOCK = re.compile(r"<think\b[^>]*>.*?</think\s*>", re.IGNORECASE | re.DOTALL)
_THINK_OPEN = re.compile(r"<think\b[^>]*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think\s*>", re.IGNORECASE)
# An opening fence: indentation, three or more backticks or tildes, then the info string.
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class _Block:
    label: str  # the info string's first word, lower-cased; "" when unlabelled
    code: str


def _labels_for(language: str) -> frozenset[str]:
    """Every info-string label that names ``language`` (itself a name or an alias)."""
    wanted = language.strip().lower()
    for aliases in LANGUAGE_ALIASES.values():
        if wanted in aliases:
            return aliases
    return frozenset({wanted})


def strip_reasoning(text: str) -> str:
    """``text`` without ``<think>...</think>`` sections.

    A ``</think>`` with no opening tag (the chat template opened the section in the prompt)
    drops everything before it; an unclosed ``<think>`` (the model was cut off while reasoning)
    drops everything after it.
    """
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text


def _tidy(lines: list[str]) -> str:
    """Lines without leading and trailing blank lines, joined, ending in a newline ("" if none)."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]) + "\n" if end > start else ""


def _dedent(line: str, indent: int) -> str:
    """``line`` without up to ``indent`` leading whitespace characters (the fence's own)."""
    removed = 0
    while removed < indent and removed < len(line) and line[removed] in " \t":
        removed += 1
    return line[removed:]


def _fenced_blocks(text: str) -> list[_Block]:
    """The fenced code blocks of ``text`` in order; an unclosed last fence runs to the end."""
    blocks: list[_Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i])
        i += 1
        if opened is None:
            continue
        fence, info = opened["fence"], opened["info"].strip()
        if fence[0] == "`" and "`" in info:  # "```x```" is inline code, not a fence
            continue
        words = info.split()
        label = words[0].lower().lstrip("{.").rstrip("}") if words else ""
        indent = len(opened["indent"])
        body: list[str] = []
        while i < len(lines):
            line = lines[i]
            i += 1
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                break
            body.append(_dedent(line, indent))
        blocks.append(_Block(label=label, code=_tidy(body)))
    return blocks


def extract_code(completion: str, language: str, config: RewardConfig) -> str | None:
    """The code answer in ``completion`` for ``language``, or None when there is none.

    Reasoning sections (``<think>...</think>``) are removed first. With ``extraction="whole"``
    the rest of the completion is the code. Otherwise the fenced blocks (````` and ``~~~``
    fences, with an optional info string) are searched: blocks labelled with ``language`` or one
    of its aliases (:data:`LANGUAGE_ALIASES`) are the candidates; when there are none,
    unlabelled blocks are; blocks labelled with another language are never used. Empty blocks
    are not candidates. ``last_block`` or ``first_block`` picks among the candidates. An
    unclosed final fence (a truncated completion) runs to the end of the text.

    A completion with no fenced block at all is the code itself when ``require_fence`` is False
    (and it is not blank); a completion whose blocks are all unusable yields None.
    """
    text = strip_reasoning(completion)
    if config.extraction == "whole":
        return text if text.strip() else None
    blocks = _fenced_blocks(text)
    if not blocks:
        if config.require_fence:
            return None
        code = _tidy(text.splitlines())
        return code or None
    labels = _labels_for(language)
    usable = [block for block in blocks if block.code]
    candidates = [block for block in usable if block.label in labels]
    if not candidates:
        candidates = [block for block in usable if not block.label]
    if not candidates:
        return None
    chosen = candidates[0] if config.extraction == "first_block" else candidates[-1]
    return chosen.code


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
