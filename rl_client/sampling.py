"""Policies to sample completions from: an OpenAI-compatible endpoint (vLLM, SGLang, the
policy server here) or a local transformers model."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx

from rl_client._local_model import Prompt
from rl_client._retry import RetryPolicy, check_response, is_retryable
from rl_client.errors import JudgeUnavailable

__all__ = ["LocalSampler", "OpenAISampler", "Sampler", "SamplingParams"]


@dataclass(frozen=True)
class SamplingParams:
    n: int = 8
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 1024
    seed: int | None = None


class Sampler(Protocol):
    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]: ...


class OpenAISampler:
    """``POST /v1/completions`` for a text prompt, ``/v1/chat/completions`` for a list of
    messages (or for text too with ``chat=True``), asking for ``n`` choices at once, which
    vLLM batches. Connection errors, time-outs, 429 and 5xx are retried."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        chat: bool = False,
        timeout: float = 600.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        root = base_url.rstrip("/")
        self.base_url = root if root.endswith("/v1") else f"{root}/v1"
        self.model, self.chat = model, chat
        self.retry = retry or RetryPolicy()
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._http: httpx.AsyncClient | None = None

    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]:
        body: dict[str, Any] = {
            "model": self.model,
            "n": params.n,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
        }
        if params.seed is not None:
            body["seed"] = params.seed
        if isinstance(prompt, str) and not self.chat:
            answer = await self._post("/completions", {**body, "prompt": prompt})
            choices = sorted(answer["choices"], key=lambda choice: choice.get("index", 0))
            return [str(choice.get("text") or "") for choice in choices]
        messages = (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
        )
        answer = await self._post("/chat/completions", {**body, "messages": messages})
        choices = sorted(answer["choices"], key=lambda choice: choice.get("index", 0))
        return [str((choice.get("message") or {}).get("content") or "") for choice in choices]

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        if self._http is None:
            self._http = httpx.AsyncClient(
                base_url=self.base_url, headers=self._headers, timeout=self._timeout
            )
        failure = ""
        for attempt in range(self.retry.max_retries + 1):
            response: httpx.Response | None = None
            try:
                response = await self._http.post(path, json=body)
            except httpx.TransportError as error:
                failure = f"{type(error).__name__}: {error}"
            else:
                if not is_retryable(response.status_code):
                    return check_response(response)
                failure = f"HTTP {response.status_code}: {response.text[:300]}"
            if attempt < self.retry.max_retries:
                await asyncio.sleep(self.retry.delay(attempt, response))
        raise JudgeUnavailable(f"the policy at {self.base_url}{path} did not answer ({failure})")

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None


class LocalSampler:
    """A local transformers model (``judge filter --model-dir``), sampled in a worker thread so
    that judging goes on while it generates."""

    def __init__(self, model_dir: str | Path, device: str = "cpu") -> None:
        from rl_client._local_model import LocalPolicy

        self.policy = LocalPolicy(model_dir, device)

    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]:
        generated = await asyncio.to_thread(
            self.policy.generate,
            prompt,
            n=params.n,
            temperature=params.temperature,
            top_p=params.top_p,
            max_tokens=params.max_tokens,
            seed=params.seed,
        )
        return [item.text for item in generated]

    async def aclose(self) -> None:
        return None
