"""OpenRLHF remote reward: labels to submissions, judged results to rewards.

A label names the problem a row is judged against:

* a plain string is a stored problem's id (``POST /v1/problems``), judged as Python;
* a JSON object (as a string, or as an object) is ``{"problem_id": str}`` or
  ``{"problem": <inline problem, as POST /v1/problems takes>}``, with an optional
  ``"language"`` (python, cpp, c, java, go, javascript/nodejs, rust; default python).

The completion is the query after its prompt (the first place the prompt occurs in it; the
whole query when it does not occur) less the end-of-sequence and padding tokens that trail it,
and the code is extracted from it as ``/v1/judge`` does.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from judge_service import client_json
from judge_service.api.compat._languages import engine_language
from judge_service.api.compat.schemas import RewardRequest, RewardResponse
from judge_service.exceptions import BadRows, InvalidJobError, SandboxError, TooLarge
from judge_service.sandbox.models import Verdict
from judge_service.schemas import SubmissionResult

# End-of-sequence and padding tokens a trainer decodes after the response (it decodes with
# special tokens kept): <|im_end|>, <|endoftext|>, <|eot_id|>, DeepSeek's <｜end▁of▁sentence｜>,
# </s>, <pad>, <eos>. Left on, "```<|im_end|>" would not close the answer's code fence.
_SPECIAL_TOKEN = re.compile(r"<\|[^<>|\s]*\|>|<｜[^<>｜\s]*｜>|</s>|<pad>|<eos>")

LOG_NAMES = ("pass_rate", "accepted", "code_extracted", "r_format", "r_correctness", "r_time")


class _Label(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem_id: str | None = None
    problem: dict[str, Any] | None = None
    language: str = "python"


def submissions(request: RewardRequest, max_chars: int) -> list[dict[str, Any]]:
    """One /v1 submission per row (CPU work: run it off the event loop). BadRows (nothing
    judged) when any label is unusable, TooLarge when a query or prompt is over ``max_chars``."""
    count = len(request.query)
    labels = request.labels
    if labels is None or len(labels) != count:
        raise BadRows([(None, f"'labels' must hold one label per query ({count})")])
    if request.prompts is not None and len(request.prompts) != count:
        raise BadRows([(None, f"'prompts' must hold one prompt per query ({count})")])
    prompts = request.prompts or [""] * count
    for field, texts in (("query", request.query), ("prompts", prompts)):
        over = [row for row, text in enumerate(texts) if len(text) > max_chars]
        if over:
            raise TooLarge(
                f"{field}, rows {over[:10]}: over {max_chars} characters (the longest is "
                f"{max(len(texts[row]) for row in over)})"
            )
    items, bad = [], []
    for row, (query, prompt, label) in enumerate(zip(request.query, prompts, labels, strict=True)):
        try:
            target = _parse_label(label)
        except ValueError as error:
            bad.append((row, str(error)))
            continue
        items.append({"id": str(row), **target, "completion": completion_of(query, prompt)})
    if bad:
        raise BadRows(bad)
    return items


def _parse_label(label: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(label, str):
        text = label.strip()
        if not text:
            raise ValueError("empty label")
        if not text.startswith("{"):
            return {"problem_id": text, "language": "python"}
        try:
            label = client_json.loads(text)
        except ValueError as error:
            raise ValueError(f"label: {error}") from error
        if not isinstance(label, dict):
            raise ValueError("a JSON label must be an object")
    try:
        parsed = _Label.model_validate(label)
    except ValidationError as error:
        raise ValueError(
            "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        ) from error
    if (parsed.problem_id is None) == (parsed.problem is None):
        raise ValueError("a label gives exactly one of 'problem_id' and 'problem'")
    try:
        language = engine_language(parsed.language)
    except InvalidJobError as error:
        raise ValueError(str(error)) from error
    target: dict[str, Any] = {"language": language}
    if parsed.problem_id is not None:
        target["problem_id"] = parsed.problem_id
    else:
        target["problem"] = parsed.problem
    return target


def completion_of(query: str, prompt: str) -> str:
    """The response part of ``query``: what follows the prompt, without trailing special tokens."""
    if prompt:
        found = query.find(prompt)
        if found >= 0:
            query = query[found + len(prompt) :]
    return _without_trailing_special(query)


def _without_trailing_special(text: str) -> str:
    """``text`` less the special tokens that end it and the whitespace around them.

    Read from the end, token by token (each holds one "<", its first character), so the time is
    linear: a pattern anchored at the end instead retried from every position, 25 s on a query
    of 12,000 tokens followed by other text.
    """
    end, stripped = len(text), False
    while True:
        while end and text[end - 1].isspace():
            end -= 1
        start = text.rfind("<", 0, end)
        if start < 0 or not _SPECIAL_TOKEN.fullmatch(text, start, end):
            return text[:end] if stripped else text
        end, stripped = start, True


def reward_response(results: list[SubmissionResult]) -> RewardResponse:
    """Rewards in row order. A row the service rejected is BadRows; a row the judge failed on
    raises SandboxError (HTTP 503), so that no infrastructure failure reads as a reward."""
    bad = [(row, r.error or "rejected") for row, r in enumerate(results) if r.status == "error"]
    if bad:
        raise BadRows(bad)
    failed = [(row, r.error) for row, r in enumerate(results) if r.status == "system_error"]
    if failed:
        row, message = failed[0]
        raise SandboxError(
            f"{len(failed)} of {len(results)} rows not judged (row {row}: {message})"
        )
    logs: dict[str, list[float]] = {name: [] for name in LOG_NAMES}
    rewards, scores = [], []
    for result in results:
        reward = result.reward
        assert reward is not None, "an ok result carries its reward"
        rewards.append(reward.total)
        scores.append(result.pass_rate or 0.0)
        logs["pass_rate"].append(result.pass_rate or 0.0)
        logs["accepted"].append(1.0 if result.verdict is Verdict.AC else 0.0)
        logs["code_extracted"].append(0.0 if result.verdict is None else 1.0)
        logs["r_format"].append(reward.format)
        logs["r_correctness"].append(reward.correctness)
        logs["r_time"].append(reward.time)
    return RewardResponse(rewards=rewards, scores=scores, extra_logs=logs)
