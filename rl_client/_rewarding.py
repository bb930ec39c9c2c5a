"""What the TRL and verl adapters share: a submission from a completion and its problem, and
a reward value from a result (None when the judge failed)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rl_client.types import Result

__all__ = ["Component", "ResultMemo", "completion_text", "problem_fields", "value_of"]

logger = logging.getLogger("rl_client")

Component = Literal["total", "format", "correctness", "time"]
COMPONENTS: tuple[Component, ...] = ("total", "format", "correctness", "time")


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or a conversation (TRL's chat format), whose last
    assistant message is the answer; OpenAI's content parts are joined."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        answers = [m for m in completion if m.get("role", "assistant") == "assistant"]
        content = (answers or list(completion))[-1].get("content") or ""
        if isinstance(content, list):
            return "".join(
                str(part.get("text", "")) for part in content if isinstance(part, Mapping)
            )
        return str(content)
    raise TypeError(
        f"a completion must be text or a list of messages, not {type(completion).__name__}"
    )


def problem_fields(problem_id: Any = None, problem: Any = None) -> dict[str, Any]:
    """``{"problem_id": ...}`` or ``{"problem": {...}}`` from a row's columns; an inline problem
    may be JSON text (a parquet column)."""
    if problem is not None:
        inline = json.loads(problem) if isinstance(problem, str) else problem
        if not isinstance(inline, Mapping):
            raise ValueError("an inline problem must be a JSON object")
        return {"problem": dict(inline)}
    if isinstance(problem_id, str) and problem_id:
        return {"problem_id": problem_id}
    raise ValueError("each row needs a problem: a 'problem_id' or an inline 'problem'")


def value_of(
    result: Result, component: Component, on_error: Literal["raise", "none"]
) -> float | None:
    """The reward ``component`` of a result; None for a system error (the sample is skipped,
    never scored 0). An invalid item (``status: error``) is a data bug: raised, unless
    ``on_error="none"``."""
    if result.status == "system_error":
        logger.warning("judge system error, reward None: %s", result.error)
        return None
    if result.status == "error" or result.reward is None:
        if on_error == "raise":
            raise ValueError(f"the judge refused a submission: {result.error}")
        return None
    value: float = getattr(result.reward, component)
    return value


class ResultMemo:
    """The last results by submission, so that per-component reward functions of one batch
    ask the service once. Bounded: the oldest entries go first."""

    def __init__(self, size: int = 16384) -> None:
        self.size = size
        self._items: OrderedDict[str, Result] = OrderedDict()
        self._lock: asyncio.Lock | None = None

    def async_lock(self) -> asyncio.Lock:
        """A lock for the async reward functions sharing this memo (made in their loop)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    @staticmethod
    def key(submission: Mapping[str, Any]) -> str:
        # A digest, not the text: an inline problem's tests can be megabytes.
        text = json.dumps(submission, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, key: str) -> Result | None:
        return self._items.get(key)

    def put(self, key: str, result: Result) -> None:
        # A system error is not kept: asking again may succeed.
        if result.status == "system_error":
            return
        self._items[key] = result
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)
