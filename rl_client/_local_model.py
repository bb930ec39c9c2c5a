"""Sampling from a local transformers causal LM (a directory with config, weights and
tokenizer; nothing is downloaded). Used by ``judge filter --model-dir`` and the
OpenAI-compatible policy server."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Generated", "LocalPolicy", "Prompt"]

Prompt = str | Sequence[dict[str, Any]]


@dataclass(frozen=True)
class Generated:
    text: str
    finish_reason: str  # "stop" (end of sequence) or "length"
    tokens: int


class LocalPolicy:
    """A model and its tokenizer. Generation holds a lock: one ``generate`` at a time (on a
    CPU parallel calls only thrash the cores); the ``n`` samples of a prompt are one batch."""

    def __init__(self, model_dir: str | Path, device: str = "cpu") -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
            self.model = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True)
        except OSError as error:
            raise FileNotFoundError(
                f"no model at {model_dir} (nothing is downloaded: give a directory with config, "
                f"weights and tokenizer): {error}"
            ) from error
        self.device = device
        self.model.to(device).eval()
        eos = self.tokenizer.eos_token_id
        self.stop_ids = {eos} if isinstance(eos, int) else set(eos or [])
        self._lock = threading.Lock()

    def prompt_ids(self, prompt: Prompt) -> list[int]:
        if isinstance(prompt, str):
            ids: list[int] = self.tokenizer.encode(prompt, add_special_tokens=False)
            return ids
        messages = [dict(message) for message in prompt]
        if self.tokenizer.chat_template:
            text = self.tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
        else:
            text = "".join(f"{m['role']}: {m.get('content') or ''}\n" for m in messages)
            text += "assistant: "
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def generate(
        self,
        prompt: Prompt,
        *,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        seed: int | None = None,
    ) -> list[Generated]:
        rows = self.generate_ids(
            self.prompt_ids(prompt),
            n=n,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            seed=seed,
        )
        return [self._decode(row) for row in rows]

    def generate_ids(
        self,
        ids: list[int],
        *,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int = 256,
        seed: int | None = None,
    ) -> list[list[int]]:
        """``n`` continuations of the token ids ``ids``, each as generated (through its stop
        token, padding after it removed)."""
        import torch
        from transformers import GenerationConfig

        pad = self.tokenizer.pad_token_id
        sampling = temperature > 0
        config = GenerationConfig(
            max_new_tokens=max_tokens,
            do_sample=sampling,
            num_return_sequences=n,
            temperature=temperature if sampling else None,
            top_p=top_p if sampling else None,
            top_k=0 if sampling else None,
            eos_token_id=sorted(self.stop_ids) or None,
            pad_token_id=pad if pad is not None else min(self.stop_ids, default=0),
        )
        inputs = torch.tensor([ids], device=self.device)
        with self._lock, torch.inference_mode():
            if seed is not None:
                torch.manual_seed(seed)
            output = self.model.generate(
                input_ids=inputs, attention_mask=torch.ones_like(inputs), generation_config=config
            )
        rows = []
        for row in output:
            tokens = [int(t) for t in row[len(ids) :]]
            stop = next((i for i, token in enumerate(tokens) if token in self.stop_ids), None)
            rows.append(tokens if stop is None else tokens[: stop + 1])
        return rows

    def _decode(self, tokens: list[int]) -> Generated:
        stop = next((i for i, token in enumerate(tokens) if token in self.stop_ids), None)
        kept = tokens if stop is None else tokens[:stop]
        text = self.tokenizer.decode(kept, skip_special_tokens=True)
        return Generated(text, "length" if stop is None else "stop", len(kept))
