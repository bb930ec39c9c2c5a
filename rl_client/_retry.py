"""When to retry a request, and how long to wait first: exponential backoff with jitter.

Connection errors, time-outs, 408, 429 and 5xx are retried; a retry of ``/v1/judge`` is cheap,
because the service's result cache answers what it already judged.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import httpx

from rl_client.errors import JudgeRejected

__all__ = ["RetryPolicy", "check_response", "is_retryable"]

_RETRIED_STATUS = frozenset({408, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first try. Retry k (from 0) waits a random time in
    ``[d/2, d]`` with ``d = min(max_backoff_s, backoff_s * 2**k)`` (the jitter keeps many
    clients that failed together from retrying together), or what the server's
    ``Retry-After`` asks for, capped likewise."""

    max_retries: int = 5
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0

    def delay(self, retry: int, response: httpx.Response | None = None) -> float:
        if response is not None:
            try:
                asked = float(response.headers.get("retry-after", ""))
            except ValueError:
                pass
            else:
                return min(self.max_backoff_s, max(0.0, asked))
        ceiling = min(self.max_backoff_s, self.backoff_s * 2**retry)
        return float(ceiling / 2 + random.uniform(0, ceiling / 2))


def is_retryable(status_code: int) -> bool:
    return status_code >= 500 or status_code in _RETRIED_STATUS


def _detail(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return response.text[:1000]
    return body.get("detail", body) if isinstance(body, dict) else body


def check_response(response: httpx.Response) -> Any:
    """The JSON body of a 2xx answer. Raises :class:`JudgeRejected` for a status that is not
    retried; the caller retries the others."""
    if response.is_success:
        return response.json()
    detail = _detail(response)
    raise JudgeRejected(
        f"{response.request.method} {response.request.url.path} answered "
        f"{response.status_code}: {detail}",
        response.status_code,
        detail,
    )
