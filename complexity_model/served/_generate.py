"""Greedy generation with transformers for the CPU server (one request at a time)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from complexity_model.served.chat import encode_prompt

__all__ = ["Generation", "TransformersGenerator", "load_local"]


@dataclass(frozen=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    # (token text, logprob) per generated token; the texts concatenate to ``text``.
    token_logprobs: list[tuple[str, float]] | None


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

    Generation holds a lock: on a CPU, requests in parallel only thrash the cores, and a
    transformers model is not meant to run two generate calls at once.
    """

    def __init__(self, model_path: str | Path, device: str = "cpu") -> None:
        self.model, self.tokenizer = load_local(model_path)
        self.device = device
        self.model.to(device)
        self.model.eval()
        self.context = int(getattr(self.model.config, "max_position_embeddings", 0) or 0)
        self.stop_ids = _stop_ids(self.model, self.tokenizer)
        self._lock = threading.Lock()

    def generate(
        self, messages: Sequence[dict[str, str]], max_tokens: int, logprobs: bool
    ) -> Generation:
        # The optional [model] extra (see load_local).
        import torch
        from transformers import GenerationConfig

        prompt = encode_prompt(self.tokenizer, messages)
        if self.context and len(prompt) + max_tokens > self.context:
            raise PromptTooLong(
                f"this model's maximum context length is {self.context} tokens; the prompt has "
                f"{len(prompt)} and {max_tokens} were requested for the answer"
            )
        pad = self.tokenizer.pad_token_id
        config = GenerationConfig(
            max_new_tokens=max_tokens,
            do_sample=False,
            eos_token_id=sorted(self.stop_ids) or None,
            pad_token_id=pad if pad is not None else min(self.stop_ids, default=0),
            return_dict_in_generate=True,
            output_logits=logprobs,
        )
        input_ids = torch.tensor([prompt], device=self.device)
        with self._lock, torch.inference_mode():
            output = self.model.generate(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                generation_config=config,
            )
        generated = [int(token) for token in output.sequences[0, len(prompt) :]]
        finish = "stop" if generated and generated[-1] in self.stop_ids else "length"
        if finish == "stop":
            generated = generated[:-1]
        text = self.tokenizer.decode(generated, skip_special_tokens=True)
        pairs = None
        if logprobs:
            values = [
                float(torch.log_softmax(step[0].float(), dim=-1)[token])
                for step, token in zip(output.logits, generated, strict=False)
            ]
            pairs = list(zip(self._token_texts(generated, text), values, strict=True))
        return Generation(text, len(prompt), len(generated) + (finish == "stop"), finish, pairs)

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
