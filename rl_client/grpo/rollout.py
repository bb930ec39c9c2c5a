"""Rollouts: sampling groups of completions from the policy being trained, and the
log-probabilities of the sampled tokens under a model."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import torch

from rl_client._local_model import LocalPolicy, Prompt
from rl_client.sampling import SamplingParams

__all__ = [
    "Group",
    "PolicySampler",
    "Rollout",
    "TransformersRollout",
    "make_rollout",
    "token_logprobs",
]

logger = logging.getLogger("rl_client")


@dataclass
class Group:
    """The completions of one prompt: token ids (through the stop token when there was one)
    and their text (without it)."""

    prompt_ids: list[int]
    completion_ids: list[list[int]]
    texts: list[str]


class Rollout(Protocol):
    def sample(self, prompt: Prompt, n: int, temperature: float, top_p: float) -> Group: ...

    def sync_weights(self) -> None: ...


class TransformersRollout:
    """``generate`` on the training model itself: nothing to copy after an update."""

    def __init__(self, policy: LocalPolicy, max_new_tokens: int) -> None:
        self.policy, self.max_new_tokens = policy, max_new_tokens

    def sample(self, prompt: Prompt, n: int, temperature: float, top_p: float) -> Group:
        ids = self.policy.prompt_ids(prompt)
        rows = self.policy.generate_ids(
            ids, n=n, temperature=temperature, top_p=top_p, max_tokens=self.max_new_tokens
        )
        stops = self.policy.stop_ids
        texts = [
            self.policy.tokenizer.decode(
                row[:-1] if row and row[-1] in stops else row, skip_special_tokens=True
            )
            for row in rows
        ]
        return Group(ids, rows, texts)

    def sync_weights(self) -> None:
        return None


class PolicySampler:
    """The policy being trained as a :class:`rl_client.sampling.Sampler`, so that the k-of-n
    filter of ``judge filter`` samples from it unchanged."""

    def __init__(self, rollout: Rollout) -> None:
        self.rollout = rollout

    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]:
        group = await asyncio.to_thread(
            self.rollout.sample, prompt, params.n, params.temperature, params.top_p
        )
        return group.texts

    async def aclose(self) -> None:
        return None


def token_logprobs(
    model: Any, prompt_ids: list[list[int]], completion_ids: list[list[int]], pad_id: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(logp, mask)``, both [batch, longest completion]: the log-probability ``model`` gives
    each sampled completion token after its prompt, and 1 where a token exists. Sequences are
    right-padded, so positions stay those of generation."""
    device = next(model.parameters()).device
    lengths = [len(p) + len(c) for p, c in zip(prompt_ids, completion_ids, strict=True)]
    width = max(lengths)
    longest = max(len(c) for c in completion_ids)
    ids = torch.full((len(lengths), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(lengths), width), dtype=torch.long)
    for row, (p, c) in enumerate(zip(prompt_ids, completion_ids, strict=True)):
        ids[row, : len(p) + len(c)] = torch.tensor(p + c)
        attention[row, : len(p) + len(c)] = 1
    logits = model(input_ids=ids.to(device), attention_mask=attention.to(device)).logits
    logp_all = torch.log_softmax(logits.float(), dim=-1)
    out = torch.zeros((len(lengths), longest), device=device)
    mask = torch.zeros((len(lengths), longest), device=device)
    for row, (p, c) in enumerate(zip(prompt_ids, completion_ids, strict=True)):
        if not c:
            continue
        # The logits at position t predict token t + 1.
        positions = torch.arange(len(p) - 1, len(p) + len(c) - 1, device=device)
        targets = torch.tensor(c, device=device)
        out[row, : len(c)] = logp_all[row, positions, targets]
        mask[row, : len(c)] = 1
    return out, mask


def make_rollout(policy: LocalPolicy, model_dir: str, backend: str, max_new_tokens: int) -> Rollout:
    """vLLM when asked for (or ``auto`` with vLLM installed and a GPU), else ``generate``."""
    if backend in ("vllm", "auto"):
        from rl_client.grpo._vllm import VllmRollout, vllm_available

        if vllm_available():
            return VllmRollout(policy, model_dir, max_new_tokens)
        if backend == "vllm":
            raise RuntimeError("rollout_backend=vllm needs vllm installed and a CUDA GPU")
    return TransformersRollout(policy, max_new_tokens)
