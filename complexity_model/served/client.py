"""The served-model complexity judge: asks a chat model behind an OpenAI-compatible endpoint.

Any server that speaks ``POST /v1/chat/completions`` works: ``vllm serve MODEL`` on a GPU,
or ``judge complexity serve --backend transformers`` on a CPU (what the tests run).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Any

import httpx

from complexity_model.ladder import UNKNOWN, ComplexityEstimate
from complexity_model.problem import ComplexityProblem
from complexity_model.served._http import RetryPolicy, post_json
from complexity_model.served._logprobs import answer_probability
from complexity_model.served.errors import ServedModelError, ServedModelRejected
from complexity_model.served.parse import parse_answer
from complexity_model.served.prompt import MAX_CODE_CHARS, build_messages

__all__ = ["ServedModelJudge"]

_RAW_CHARS = 2000


def chat_completions_url(base_url: str) -> str:
    """``.../v1/chat/completions`` for a base URL given with or without its ``/v1``."""
    base = base_url.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    return f"{base}/chat/completions"


class ServedModelJudge:
    """Estimates time complexity by asking a served chat model for a JSON answer.

    The answer is parsed strictly (:func:`~complexity_model.served.parse.parse_answer`): an
    answer that is not one JSON object naming one ladder class is ``unknown`` with confidence
    0 and the raw text in the evidence. The confidence of a valid answer is the lower of the
    model's stated confidence and, when the server returns token logprobs, the probability
    the model gave the tokens of its class.

    A server that cannot be reached, or keeps failing, after ``max_retries`` retries raises
    :class:`~complexity_model.served.errors.ServedModelUnavailable`; that is an
    infrastructure failure, never an ``unknown``; so is any other refusal (a 4xx), except a
    prompt longer than the model's context, which is ``unknown`` for that program alone.
    ``estimate_many`` sends up to
    ``concurrency`` requests at once, which is how a vLLM server batches them.
    """

    method = "served"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        concurrency: int = 8,
        *,
        backoff_s: float = 0.5,
        max_tokens: int = 128,
        max_code_chars: int = MAX_CODE_CHARS,
        logprobs: bool = True,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if max_retries < 0 or timeout_s <= 0 or max_tokens < 1:
            raise ValueError("max_retries must be >= 0, timeout_s > 0 and max_tokens >= 1")
        self.url = chat_completions_url(base_url)
        self.model = model
        self.concurrency = concurrency
        self.max_tokens = max_tokens
        self.max_code_chars = max_code_chars
        self.logprobs = logprobs
        self.policy = RetryPolicy(max_retries=max_retries, backoff_s=backoff_s)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s),
            headers=headers,
            limits=httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        """The model's class for ``code``. ``problem`` is accepted for the judge interface and
        not sent: its optimal class would bias the answer, and it has no statement."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": build_messages(code, language, max_code_chars=self.max_code_chars),
            "temperature": 0.0,
            "max_tokens": self.max_tokens,
        }
        if self.logprobs:
            payload["logprobs"] = True
        start = time.perf_counter()
        try:
            body, attempts = post_json(self._client, self.url, payload, self.policy)
        except ServedModelRejected as error:
            if not error.prompt_too_long:
                raise
            evidence = {
                "model": self.model,
                "reason": "the prompt does not fit the model's "
                "context (lower max_code_chars or serve a longer context)",
                "server": error.detail,
            }
            return ComplexityEstimate(UNKNOWN, 0.0, self.method, evidence)
        latency_ms = (time.perf_counter() - start) * 1000
        return self._estimate_from(body, attempts, latency_ms)

    def estimate_many(self, items: Iterable[tuple[str, str]]) -> list[ComplexityEstimate]:
        """Estimates for ``(code, language)`` pairs, in order, ``concurrency`` at a time.

        The first infrastructure error cancels the requests not yet sent and is raised.
        """
        pairs = list(items)
        if len(pairs) <= 1 or self.concurrency == 1:
            return [self.estimate(code, language) for code, language in pairs]
        workers = min(self.concurrency, len(pairs))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="served") as pool:
            futures: Sequence[Future[ComplexityEstimate]] = [
                pool.submit(self.estimate, code, language) for code, language in pairs
            ]
            try:
                return [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise

    def _estimate_from(
        self, body: dict[str, Any], attempts: int, latency_ms: float
    ) -> ComplexityEstimate:
        try:
            choice = body["choices"][0]
            content = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as error:
            raise ServedModelError(f"{self.url} answered without choices[0].message") from error
        if not isinstance(content, str):
            raise ServedModelError(f"{self.url} answered a non-string message content")
        parsed = parse_answer(content)
        evidence: dict[str, Any] = {
            "model": self.model,
            "raw": content[:_RAW_CHARS],
            "finish_reason": choice.get("finish_reason"),
            "attempts": attempts,
            "latency_ms": round(latency_ms, 1),
        }
        if not parsed.ok:
            evidence["reason"] = parsed.reason
            return ComplexityEstimate(UNKNOWN, 0.0, self.method, evidence)
        probability = answer_probability(content, choice.get("logprobs"))
        confidence = parsed.stated_confidence
        evidence["stated_confidence"] = confidence
        if probability is not None:
            evidence["answer_probability"] = round(probability, 4)
            confidence = min(confidence, probability)
        return ComplexityEstimate(parsed.predicted, round(confidence, 4), self.method, evidence)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> ServedModelJudge:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
