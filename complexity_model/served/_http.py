"""POST with retries: connection errors, timeouts, 408, 429 and 5xx are retried with backoff.

Anything else that is not a 200 with a JSON body is a :class:`ServedModelError` at once: a
wrong model name or a refused request does not get better by asking again.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import httpx

from complexity_model.served.errors import (
    ServedModelError,
    ServedModelRejected,
    ServedModelUnavailable,
)

__all__ = ["RetryPolicy", "post_json"]

_RETRIED_STATUS = frozenset({408, 429})
_MAX_SLEEP_S = 8.0


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first try; sleep ``backoff_s * 2**k`` (k = 0, 1, ...)
    with up to 25% jitter, or the server's ``Retry-After`` when it sends one, capped at 8 s."""

    max_retries: int = 3
    backoff_s: float = 0.5

    def delay(self, retry: int, response: httpx.Response | None) -> float:
        if response is not None:
            header = response.headers.get("retry-after", "")
            try:
                return min(_MAX_SLEEP_S, max(0.0, float(header)))
            except ValueError:
                pass
        base = self.backoff_s * 2**retry
        return float(min(_MAX_SLEEP_S, base * (1.0 + 0.25 * random.random())))


def _snippet(response: httpx.Response) -> str:
    return response.text[:500].replace("\n", " ")


def post_json(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    policy: RetryPolicy,
) -> tuple[dict[str, Any], int]:
    """The JSON object the server answered and the number of attempts it took."""
    failure = ""
    for attempt in range(policy.max_retries + 1):
        response: httpx.Response | None = None
        try:
            response = client.post(url, json=payload)
        except httpx.TransportError as error:
            failure = f"{type(error).__name__}: {error}"
        else:
            status = response.status_code
            if status == 200:
                try:
                    body = response.json()
                except ValueError as error:
                    raise ServedModelError(f"{url} answered 200 with no JSON body") from error
                if not isinstance(body, dict):
                    raise ServedModelError(f"{url} answered 200 with a non-object JSON body")
                return body, attempt + 1
            if status < 500 and status not in _RETRIED_STATUS:
                detail = _snippet(response)
                raise ServedModelRejected(f"{url} answered {status}: {detail}", status, detail)
            failure = f"HTTP {status}: {_snippet(response)}"
        if attempt < policy.max_retries:
            time.sleep(policy.delay(attempt, response))
    raise ServedModelUnavailable(
        f"the model server at {url} did not answer after {policy.max_retries + 1} attempts "
        f"(last: {failure})"
    )
