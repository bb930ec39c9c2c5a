"""Each distinct inline problem travels once: later copies go by ``problem_hash``.

The rollouts of a GRPO group share their problem, and a contest problem's tests can weigh
megabytes. Within a request the first copy goes inline and the rest by name; across requests a
problem goes by name once the service has answered a request that carried it. The service
keeps named problems in bounded memory per API process, so a name can be unknown there (never
sent to that process, evicted, restarted, or a service older than names): those items are sent
again with the problem inline, and nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from typing import Any

from rl_client.types import Result

__all__ = ["ProblemNames", "merged", "problem_hash"]

_REMEMBERED = 4096  # names kept per client, most recent last
_UNKNOWN = "unknown problem_hash"


def problem_hash(problem: Any) -> str | None:
    """The service's name for ``problem``: SHA-256 of its JSON with sorted keys, no
    whitespace and ASCII escapes; None when it is not plain JSON (it then always goes inline)."""
    try:
        canonical = json.dumps(problem, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(canonical.encode()).hexdigest()


def _needs_problem(result: Result) -> bool:
    return result.status == "error" and "problem_hash" in (result.error or "")


class ProblemNames:
    """What this client knows the service holds; thread-safe (batches go out in parallel)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._held: dict[str, None] = {}
        self._lock = threading.Lock()

    def shorten(self, batch: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
        """The batch to send, with repeated inline problems named, and the names of the
        problems it carries inline."""
        if not self.enabled:
            return batch, []
        with self._lock:
            held = set(self._held)
        carried: list[str] = []
        out = []
        for item in batch:
            problem = item.get("problem")
            name = problem_hash(problem) if isinstance(problem, Mapping) else None
            if name is None:
                out.append(item)
            elif name in held:
                named = {key: value for key, value in item.items() if key != "problem"}
                out.append({**named, "problem_hash": name})
            else:
                held.add(name)
                carried.append(name)
                out.append(item)
        return out, carried

    def answered(
        self, sent: list[dict[str, Any]], carried: list[str], results: list[Result]
    ) -> list[int]:
        """Record that the service answered a batch carrying ``carried``; the positions whose
        name it could not resolve, to send again with their problem inline."""
        again = [
            position
            for position, (item, result) in enumerate(zip(sent, results, strict=True))
            if "problem_hash" in item and _needs_problem(result)
        ]
        if any(not (results[p].error or "").startswith(_UNKNOWN) for p in again):
            self.enabled = False  # a service from before names refuses the field itself
        with self._lock:
            for name in carried:
                self._held[name] = None
            for position in again:
                self._held.pop(sent[position]["problem_hash"], None)
            while len(self._held) > _REMEMBERED:
                del self._held[next(iter(self._held))]
        return again

    def resent(self, items: list[dict[str, Any]]) -> None:
        """Items sent again inline were answered: the service holds their problems now."""
        if not self.enabled:
            return
        names = [problem_hash(item.get("problem")) for item in items]
        with self._lock:
            for name in names:
                if name is not None:
                    self._held[name] = None


def merged(results: list[Result], again: list[int], redone: list[Result]) -> list[Result]:
    """``results`` with the items at ``again`` replaced by their second answers."""
    fixed = list(results)
    for position, result in zip(again, redone, strict=True):
        fixed[position] = result
    return fixed
