"""Greedy generation with transformers for the fallback server: one request, or a batch.

:meth:`TransformersGenerator.generate` decodes one unpadded prompt with ``model.generate``; it
is the reference that :meth:`TransformersGenerator.generate_batch` must equal. A batch is
left-padded (a decoder-only model continues from the last position of every row, so the pads
go in front, masked out, with positions counted from each row's first real token) and decoded
greedily by :func:`~complexity_model.served._greedy.greedy_batch`, each row leaving at its own
stop token or ``max_tokens``: greedy decoding of one row does not depend on the other rows, so
each row is what its request alone would have produced.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from complexity_model.served._greedy import DecodeBatch, Decoded, greedy_batch
from complexity_model.served._prefix import SharedPrefix
from complexity_model.served.chat import encode_prompt

__all__ = [
    "Generation",
    "GenerationRequest",
    "PromptTooLong",
    "TransformersGenerator",
    "load_local",
]


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    # (token text, logprob) per generated token; the texts concatenate to ``text``.
    token_logprobs: list[tuple[str, float]] | None


@dataclass(frozen=True)
class GenerationRequest:
    """A prompt already encoded (and checked against the context) and what to generate."""

    prompt: list[int]
    max_tokens: int
    logprobs: bool


class PromptTooLong(ValueError):
    """The prompt and the requested tokens do not fit the model's context."""


def load_local(model_path: str | Path, **kwargs: Any) -> tuple[Any, Any]:
    """(model, tokenizer) from a local directory or the local cache; never downloads."""
    # The optional [model] extra, imported when a model is loaded: the client works without it.
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            str(model_path), local_files_only=True, **kwargs
        )
    except OSError as error:
        raise FileNotFoundError(
            f"no model at {model_path} (nothing is downloaded: give a local directory with "
            f"config, weights and tokenizer): {error}"
        ) from error
    return model, tokenizer


def _stop_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    for value in (tokenizer.eos_token_id, getattr(model.generation_config, "eos_token_id", None)):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, list | tuple):
            ids.update(int(item) for item in value)
    return ids


class TransformersGenerator:
    """A causal LM and its tokenizer, answering chat messages greedily.

    Generation holds a lock: a transformers model is not meant to run two generate calls at
    once, and concurrent requests are served faster as one batch (see
    :mod:`complexity_model.served._batching`) than as parallel calls that thrash the cores.
    """

    def __init__(self, model_path: str | Path, device: str = "cpu") -> None:
        self.model, self.tokenizer = load_local(model_path)
        self.device = device
        self.model.to(device)
        self.model.eval()
        self.context = int(getattr(self.model.config, "max_position_embeddings", 0) or 0)
        self.stop_ids = _stop_ids(self.model, self.tokenizer)
        pad = self.tokenizer.pad_token_id
        self.pad_id = int(pad) if pad is not None else min(self.stop_ids, default=0)
        # See greedy_batch: on a GPU a padded prompt batch is the faster way.
        self.prefill_rows = not str(device).startswith("cuda")
        # The prompts' common head (chat header, system prompt), read once for the server's
        # batches (prompts read one by one only; see DecodeBatch).
        self.prefix = SharedPrefix()
        self._lock = threading.Lock()

    def encode(self, messages: Sequence[dict[str, str]], max_tokens: int) -> list[int]:
        """The prompt's token ids; PromptTooLong when it and ``max_tokens`` overflow."""
        prompt = encode_prompt(self.tokenizer, messages)
        if self.context and len(prompt) + max_tokens > self.context:
            raise PromptTooLong(
                f"this model's maximum context length is {self.context} tokens; the prompt has "
                f"{len(prompt)} and {max_tokens} were requested for the answer"
            )
        return prompt

    def generate(
        self, messages: Sequence[dict[str, str]], max_tokens: int, logprobs: bool
    ) -> Generation:
        """One request alone, unpadded: the reference a batch must equal."""
        import torch  # the optional [model] extra (see load_local)

        prompt = self.encode(messages, max_tokens)
        input_ids = torch.tensor([prompt], device=self.device)
        output = self._decode(input_ids, torch.ones_like(input_ids), max_tokens, logprobs)
        tokens = [int(token) for token in output.sequences[0, len(prompt) :]]
        values = None
        if logprobs:
            values = [
                float(torch.log_softmax(step[0].float(), dim=-1)[token])
                for step, token in zip(output.logits, tokens, strict=False)
            ]
        return self.finish(GenerationRequest(prompt, max_tokens, logprobs), Decoded(tokens, values))

    def new_batch(self) -> DecodeBatch[Any]:
        """An empty batch that rows join and leave between decode steps (the server's
        scheduler is its only user, so it takes no lock)."""
        return DecodeBatch(
            self.model, self.stop_ids, prefill_rows=self.prefill_rows, prefix=self.prefix
        )

    def generate_batch(self, requests: Sequence[GenerationRequest]) -> list[Generation]:
        """Each request's generation, decoded together in one left-padded batch whose rows
        leave as they stop (:func:`~complexity_model.served._greedy.greedy_batch`)."""
        if not requests:
            return []
        with self._lock:
            decoded = greedy_batch(
                self.model,
                [request.prompt for request in requests],
                [request.max_tokens for request in requests],
                self.stop_ids,
                [request.logprobs for request in requests],
                prefill_rows=self.prefill_rows,
            )
        return [self.finish(request, row) for request, row in zip(requests, decoded, strict=True)]

    def _decode(self, input_ids: Any, attention_mask: Any, max_tokens: int, logits: bool) -> Any:
        import torch
        from transformers import GenerationConfig

        config = GenerationConfig(
            max_new_tokens=max_tokens,
            do_sample=False,
            eos_token_id=sorted(self.stop_ids) or None,
            pad_token_id=self.pad_id,
            return_dict_in_generate=True,
            output_logits=logits,
        )
        with self._lock, torch.inference_mode():
            return self.model.generate(
                input_ids=input_ids, attention_mask=attention_mask, generation_config=config
            )

    def finish(self, request: GenerationRequest, decoded: Decoded) -> Generation:
        """The generation of ``decoded`` cut at the first stop token or ``max_tokens`` (off
        the decoding thread in the server: detokenising is per request, not per batch)."""
        tokens = decoded.tokens[: request.max_tokens]
        stop = next((i for i, token in enumerate(tokens) if token in self.stop_ids), None)
        generated = tokens if stop is None else tokens[:stop]
        text = self.tokenizer.decode(generated, skip_special_tokens=True)
        pairs = None
        if request.logprobs and decoded.logprobs is not None:
            values = decoded.logprobs[: len(generated)]
            pairs = list(zip(self._token_texts(generated, text), values, strict=True))
        finish = "length" if stop is None else "stop"
        completion = len(generated) + (stop is not None)
        return Generation(text, len(request.prompt), completion, finish, pairs)

    def _token_texts(self, generated: list[int], text: str) -> list[str]:
        """Each token's share of ``text``; a token that ends inside a multi-byte character
        gets "" and the next one carries the character."""
        pieces, done = [], ""
        for end in range(1, len(generated) + 1):
            prefix = self.tokenizer.decode(generated[:end], skip_special_tokens=True)
            if prefix.startswith(done) and not prefix.endswith("\ufffd"):
                pieces.append(prefix[len(done) :])
                done = prefix
            else:
                pieces.append("")
        if done != text and pieces:
            pieces[-1] += text[len(done) :] if text.startswith(done) else ""
        return pieces
