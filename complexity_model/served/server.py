"""A small OpenAI-compatible chat server backed by transformers, for CPUs and tests.

It answers the subset of vLLM's API that :class:`ServedModelJudge` uses:
``POST /v1/chat/completions`` (greedy; ``max_tokens`` or ``max_completion_tokens`` honoured;
``logprobs``), ``GET /v1/models`` and ``GET /health``. Sampling parameters are accepted and
ignored: a judge wants the same answer for the same program. Errors use OpenAI's shape
(``{"error": {"message", "type", "code"}}``), with vLLM's status codes: 404 for another model
name, 400 for a prompt that does not fit the context or an unsupported option.

Concurrent requests are decoded together (:mod:`complexity_model.served._batching`): a request
joins the batch being decoded at the next step, up to ``max_batch`` rows; an idle server
gathers a burst for up to ``batch_wait_ms``. Each answer equals what the request alone would
get. ``GET /stats`` says how many rows the decode steps had.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from complexity_model.served._batching import BatchScheduler
from complexity_model.served._generate import (
    Generation,
    GenerationRequest,
    PromptTooLong,
    TransformersGenerator,
)

__all__ = ["DEFAULT_BATCH_WAIT_MS", "DEFAULT_MAX_BATCH", "DEFAULT_MAX_TOKENS", "create_app"]

DEFAULT_MAX_TOKENS = 256
DEFAULT_MAX_BATCH = 16
# Requests join the running batch between steps, so an idle server need not wait for more:
# a burst's later requests join the first one's batch a step later.
DEFAULT_BATCH_WAIT_MS = 0.0


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    # A string, or OpenAI's list of parts ({"type": "text", "text": ...}).
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(str(part.get("text", "")) for part in self.content)
        return self.content or ""


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    logprobs: bool = False
    stream: bool = False
    n: int = 1


def _error(status: int, message: str, kind: str = "BadRequestError") -> JSONResponse:
    return JSONResponse(
        {"error": {"message": message, "type": kind, "code": status}}, status_code=status
    )


def _choice(generation: Generation) -> dict[str, Any]:
    logprobs = None
    if generation.token_logprobs is not None:
        logprobs = {
            "content": [
                {
                    "token": token,
                    "logprob": value,
                    "bytes": list(token.encode()),
                    "top_logprobs": [],
                }
                for token, value in generation.token_logprobs
            ]
        }
    return {
        "index": 0,
        "message": {"role": "assistant", "content": generation.text},
        "logprobs": logprobs,
        "finish_reason": generation.finish_reason,
    }


def create_app(
    generator: TransformersGenerator,
    served_name: str,
    max_tokens_limit: int = 1024,
    *,
    max_batch: int = DEFAULT_MAX_BATCH,
    batch_wait_ms: float = DEFAULT_BATCH_WAIT_MS,
) -> FastAPI:
    """The app serving ``generator`` under the model name ``served_name``; its batch
    scheduler is ``app.state.scheduler``, closed when the app shuts down."""
    scheduler = BatchScheduler(
        generator.new_batch, max_batch=max_batch, wait_s=batch_wait_ms / 1000
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await run_in_threadpool(scheduler.close)

    app = FastAPI(
        title="judge complexity model server", docs_url=None, redoc_url=None, lifespan=lifespan
    )
    app.state.scheduler = scheduler
    created = int(time.time())

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(400, f"invalid request: {error.errors()}")

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        card = {"id": served_name, "object": "model", "created": created, "owned_by": "judge"}
        return {"object": "list", "data": [card]}

    @app.get("/stats")
    def stats() -> dict[str, Any]:
        import torch  # loaded with the model already

        counts = scheduler.stats
        return {
            "device": generator.device,
            "threads": torch.get_num_threads(),
            "max_batch": scheduler.max_batch,
            "batch_wait_ms": scheduler.wait_s * 1000,
            # Decode steps, and how many rows each had (a request joins between two steps).
            "batches": counts.batches,
            "requests": counts.requests,
            "largest_batch": counts.largest,
            "batch_sizes": {str(size): n for size, n in sorted(counts.sizes.items())},
            # The prompts' common head read once, and how many prompts did not read it again.
            "shared_prefix_tokens": len(generator.prefix.ids),
            "prefix_hits": generator.prefix.hits,
        }

    @app.post("/v1/chat/completions", response_model=None)
    async def chat_completions(request: ChatRequest) -> dict[str, Any] | JSONResponse:
        if request.model != served_name:
            return _error(404, f"The model `{request.model}` does not exist.", "NotFoundError")
        if request.stream or request.n != 1:
            return _error(400, "this server supports neither streaming nor n > 1")
        max_tokens = request.max_completion_tokens or request.max_tokens or DEFAULT_MAX_TOKENS
        if max_tokens > max_tokens_limit:
            return _error(400, f"max_tokens is {max_tokens}; this server allows {max_tokens_limit}")
        messages = [
            {"role": message.role, "content": message.text()} for message in request.messages
        ]
        try:
            # Tokenising a long program takes milliseconds: off the event loop.
            prompt = await run_in_threadpool(generator.encode, messages, max_tokens)
        except PromptTooLong as error:
            return _error(400, str(error))
        job = GenerationRequest(prompt, max_tokens, request.logprobs)
        future = scheduler.submit(job)
        decoded = await asyncio.wrap_future(future)
        # Detokenising (and the logprobs' token texts) off the decoding thread.
        generation = await run_in_threadpool(generator.finish, job, decoded)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": served_name,
            "choices": [_choice(generation)],
            "usage": {
                "prompt_tokens": generation.prompt_tokens,
                "completion_tokens": generation.completion_tokens,
                "total_tokens": generation.prompt_tokens + generation.completion_tokens,
            },
        }

    return app
