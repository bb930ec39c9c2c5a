"""The asyncio client: ``await AsyncJudgeClient(url).judge(submissions)``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
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

__all__ = ["AsyncJudgeClient", "AsyncProblems"]


class AsyncJudgeClient:
    """:class:`rl_client.JudgeClient` for asyncio: the same batching, concurrency limit (one
    semaphore per client, shared by every concurrent ``judge`` call) and retries."""

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
        transport: httpx.AsyncBaseTransport | None = None,
        name_repeated_problems: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.problem_names = ProblemNames(name_repeated_problems)
        self.batch_size = batch_size
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.options = options or JudgeOptions()
        self._base_url = base_url.rstrip("/")
        self._headers = headers(api_key)
        self._timeout = timeout
        self._transport = transport
        # The connection pool is made here (its TLS context costs tens of ms), the semaphore
        # on first use: it belongs to the event loop it is used in, and a client may be built
        # outside any loop (TRL builds reward functions before training starts).
        self._http: httpx.AsyncClient | None = self._new_http()
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.problems = AsyncProblems(self)

    def _new_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self._base_url,
            headers=self._headers,
            timeout=self._timeout,
            limits=httpx.Limits(max_connections=self.concurrency + 2),
            transport=self._transport,
        )

    def _session(self) -> tuple[httpx.AsyncClient, asyncio.Semaphore]:
        loop = asyncio.get_running_loop()
        if self._http is None or (self._loop is not None and self._loop is not loop):
            # Closed, or a new event loop (asyncio.run called again): the old loop's
            # connections cannot be used from this one.
            self._http = self._new_http()
        if self._slots is None or self._loop is not loop:
            self._slots = asyncio.Semaphore(self.concurrency)
            self._loop = loop
        return self._http, self._slots

    async def judge(
        self,
        submissions: Iterable[SubmissionLike],
        options: JudgeOptions | None = None,
        on_batch: Callable[[list[Result]], None] | None = None,
    ) -> list[Result]:
        """Every submission's result, in order; ``on_batch`` sees each batch as it finishes."""
        chosen = options or self.options

        async def post(batch: list[dict[str, Any]]) -> list[Result]:
            body = await self.request("POST", "/v1/judge", judge_body(batch, chosen))
            return read_results(body, len(batch))

        async def send(batch: list[dict[str, Any]]) -> list[Result]:
            sent, carried = self.problem_names.shorten(batch)
            results = await post(sent)
            again = self.problem_names.answered(sent, carried, results)
            if again:
                inline = [batch[p] for p in again]
                results = merged(results, again, await post(inline))
                self.problem_names.resent(inline)
            if on_batch is not None:
                on_batch(results)
            return results

        parts = await asyncio.gather(
            *(send(part) for part in batches(submissions, self.batch_size))
        )
        return [result for part in parts for result in part]

    async def judge_one(
        self, submission: SubmissionLike, options: JudgeOptions | None = None
    ) -> Result:
        return (await self.judge([submission], options))[0]

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """One API call with retries, holding one of the ``concurrency`` slots while it runs
        (not while it waits to retry)."""
        http, slots = self._session()
        failure = ""
        for attempt in range(self.retry.max_retries + 1):
            response: httpx.Response | None = None
            try:
                async with slots:
                    response = await http.request(method, path, json=body)
            except httpx.TransportError as error:
                failure = f"{type(error).__name__}: {error}"
            else:
                if not is_retryable(response.status_code):
                    return check_response(response)
                failure = f"HTTP {response.status_code}: {response.text[:300]}"
            if attempt < self.retry.max_retries:
                await asyncio.sleep(self.retry.delay(attempt, response))
        raise JudgeUnavailable(
            f"{method} {self._base_url}{path} failed {self.retry.max_retries + 1} times "
            f"(last: {failure})"
        )

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
        self._http = None
        self._slots = self._loop = None

    async def __aenter__(self) -> AsyncJudgeClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class AsyncProblems:
    """``client.problems`` of the async client."""

    def __init__(self, client: AsyncJudgeClient) -> None:
        self._client = client

    async def upsert(self, rows: RowSource) -> list[UpsertedProblem]:
        stored: list[UpsertedProblem] = []
        for part in problem_batches(rows):
            stored.extend(read_upserted(await self._client.request("POST", "/v1/problems", part)))
        return stored

    async def get(self, problem_id: str) -> dict[str, Any]:
        found: dict[str, Any] = await self._client.request(
            "GET", f"/v1/problems/{quote(problem_id, safe='')}"
        )
        return found
