"""The synchronous client: ``JudgeClient(url).judge(submissions)``."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

import httpx

from rl_client._problem_names import ProblemNames, merged
from rl_client._retry import RetryPolicy, check_response, is_retryable
from rl_client._wire import (
    DEFAULT_TIMEOUT,
    SubmissionLike,
    UpsertedProblem,
    batches,
    headers,
    judge_body,
    problem_batches,
    read_results,
    read_upserted,
)
from rl_client.errors import JudgeUnavailable
from rl_client.rows import RowSource
from rl_client.types import JudgeOptions, Result

__all__ = ["JudgeClient", "Problems"]


class JudgeClient:
    """A client of the judge service's ``/v1`` API.

    ``judge`` cuts the submissions into batches of ``batch_size`` and keeps at most
    ``concurrency`` of them in flight; a batch that meets a connection error, a time-out, 429
    or 5xx is sent again after a backoff with jitter (``retry``). Results come back in order.
    ``transport`` replaces httpx's (a proxy, or a scripted one in tests). An inline problem
    travels once: its later copies go by ``problem_hash`` (``name_repeated_problems``; items the
    service cannot resolve by name are sent again with the problem).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        batch_size: int = 64,
        concurrency: int = 4,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        options: JudgeOptions | None = None,
        transport: httpx.BaseTransport | None = None,
        name_repeated_problems: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.problem_names = ProblemNames(name_repeated_problems)
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.options = options or JudgeOptions()
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers=headers(api_key),
            timeout=timeout,
            limits=httpx.Limits(max_connections=concurrency + 2),
            transport=transport,
        )
        self.problems = Problems(self)

    def judge(
        self,
        submissions: Iterable[SubmissionLike],
        options: JudgeOptions | None = None,
        on_batch: Callable[[list[Result]], None] | None = None,
    ) -> list[Result]:
        """Every submission's result, in order. ``on_batch`` is called with each batch's
        results as it finishes (from a worker thread), for progress."""
        chosen = options or self.options
        parts = batches(submissions, self.batch_size)

        def post(batch: list[dict[str, Any]]) -> list[Result]:
            return read_results(
                self.request("POST", "/v1/judge", judge_body(batch, chosen)), len(batch)
            )

        def send(batch: list[dict[str, Any]]) -> list[Result]:
            sent, carried = self.problem_names.shorten(batch)
            results = post(sent)
            again = self.problem_names.answered(sent, carried, results)
            if again:
                inline = [batch[p] for p in again]
                results = merged(results, again, post(inline))
                self.problem_names.resent(inline)
            if on_batch is not None:
                on_batch(results)
            return results

        if len(parts) <= 1:
            return [result for part in parts for result in send(part)]
        with ThreadPoolExecutor(min(self.concurrency, len(parts))) as pool:
            return [result for part in pool.map(send, parts) for result in part]

    def judge_one(self, submission: SubmissionLike, options: JudgeOptions | None = None) -> Result:
        return self.judge([submission], options)[0]

    def health(self) -> Any:
        """``GET /health``: the service answers 503 when degraded, which is returned too."""
        response = self._http.get("/health")
        return response.json()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One API call with retries; the answer's JSON."""
        failure = ""
        for attempt in range(self.retry.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response = self._http.request(method, path, json=body)
            except httpx.TransportError as error:
                failure = f"{type(error).__name__}: {error}"
            else:
                if not is_retryable(response.status_code):
                    return check_response(response)
                failure = f"HTTP {response.status_code}: {response.text[:300]}"
            if attempt < self.retry.max_retries:
                time.sleep(self.retry.delay(attempt, response))
        raise JudgeUnavailable(
            f"{method} {self._http.base_url}{path} failed {self.retry.max_retries + 1} times "
            f"(last: {failure})"
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> JudgeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Problems:
    """``client.problems``: register and read problems."""

    def __init__(self, client: JudgeClient) -> None:
        self._client = client

    def upsert(self, rows: RowSource) -> list[UpsertedProblem]:
        """Registers every problem in ``rows`` (a JSONL, JSON or parquet path, a
        ``datasets.Dataset`` or dicts; see :func:`rl_client.rows.problem_of_row`). An edited
        problem gets a new version; an unchanged one keeps its version."""
        stored: list[UpsertedProblem] = []
        for part in problem_batches(rows):
            stored.extend(read_upserted(self._client.request("POST", "/v1/problems", part)))
        return stored

    def get(self, problem_id: str) -> dict[str, Any]:
        """The latest version of a problem, with its ``version``."""
        found: dict[str, Any] = self._client.request(
            "GET", f"/v1/problems/{quote(problem_id, safe='')}"
        )
        return found
