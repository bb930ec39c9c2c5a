"""Reward functions for verl's ``custom_reward_function``.

    custom_reward_function:
      path: <site-packages>/rl_client/verl.py
      name: compute_score          # or compute_score_batch with reward_model.reward_manager=batch
      reward_kwargs: {judge_url: "http://judge:8000"}

``ground_truth`` names the problem: a stored problem's id, or a JSON object (text or a dict)
``{"problem_id": ...}`` or ``{"problem": {...}}``, optionally with ``"language"`` (default
``python``, or ``extra_info["language"]``). The batched form sends one ``/v1/judge`` request per
batch, not one request per test as verl's sandbox_fusion path does.

The score is the service's gated reward; the other keys of the returned dict (``format``,
``correctness``, ``time``, ``pass_rate``, ``accepted``) become verl's reward_extra_info. Where
the judge failed the function returns None (verl has no way to skip a sample: pass
``system_error_score`` in ``reward_kwargs`` to substitute a number instead).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from rl_client._rewarding import problem_fields
from rl_client.client import JudgeClient
from rl_client.errors import JudgeUnavailable
from rl_client.types import Result

__all__ = ["compute_score", "compute_score_batch"]

logger = logging.getLogger("rl_client")
DEFAULT_URL = "http://127.0.0.1:8000"

_clients: dict[tuple[str, str | None], JudgeClient] = {}
_clients_lock = threading.Lock()


def _client(url: str | None, api_key: str | None) -> JudgeClient:
    """One client per process and service: verl calls the function once per sample."""
    key = (
        url or os.environ.get("JUDGE_URL") or DEFAULT_URL,
        api_key or os.environ.get("JUDGE_API_KEY"),
    )
    with _clients_lock:
        if key not in _clients:
            # One request per batch: a batch of any size goes in one piece.
            _clients[key] = JudgeClient(key[0], api_key=key[1], batch_size=1 << 30)
        return _clients[key]


def _submission(
    solution: str, ground_truth: Any, extra_info: Mapping[str, Any] | None
) -> dict[str, Any]:
    label = ground_truth
    if isinstance(label, str) and label.lstrip().startswith("{"):
        label = json.loads(label)
    language = (extra_info or {}).get("language") or "python"
    if isinstance(label, Mapping):
        language = label.get("language") or language
        fields = problem_fields(label.get("problem_id"), label.get("problem"))
    else:
        fields = problem_fields(problem_id=label)
    return {**fields, "language": language, "completion": solution}


def _score(result: Result, system_error_score: float | None) -> dict[str, Any] | None:
    if result.status == "system_error" or result.reward is None:
        if result.status == "error":
            raise ValueError(f"the judge refused a submission: {result.error}")
        logger.warning("judge system error: %s", result.error)
        if system_error_score is None:
            return None
        return {
            "score": system_error_score,
            "format": 0.0,
            "correctness": 0.0,
            "time": 0.0,
            "pass_rate": 0.0,
            "accepted": 0.0,
        }
    reward = result.reward
    return {
        "score": reward.total,
        "format": reward.format,
        "correctness": reward.correctness,
        "time": reward.time,
        "pass_rate": result.pass_rate if result.pass_rate is not None else 0.0,
        "accepted": float(result.accepted),
    }


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    judge_url: str | None = None,
    api_key: str | None = None,
    system_error_score: float | None = None,
    **_: Any,
) -> dict[str, Any] | None:
    """verl's per-sample reward: a dict with ``score``, or None where the judge failed."""
    [score] = compute_score_batch(
        [data_source],
        [solution_str],
        [ground_truth],
        [extra_info],
        judge_url=judge_url,
        api_key=api_key,
        system_error_score=system_error_score,
    )
    return score


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[str],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    *,
    judge_url: str | None = None,
    api_key: str | None = None,
    system_error_score: float | None = None,
    **_: Any,
) -> list[dict[str, Any] | None]:
    """verl's batch reward manager's form: one score per sample, in order, from one request."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    items = [
        _submission(str(solution), truth, info)
        for solution, truth, info in zip(solution_strs, ground_truths, infos, strict=True)
    ]
    if not items:
        return []
    try:
        results = _client(judge_url, api_key).judge(items)
    except JudgeUnavailable as error:
        logger.warning("judge unavailable: %s", error)
        results = [Result.failed(None, str(error)) for _ in items]
    return [_score(result, system_error_score) for result in results]
