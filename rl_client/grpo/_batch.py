"""One generation batch: its rewards from the judge, its advantages, and the optimiser steps
taken on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from rl_client.client import JudgeClient
from rl_client.grpo.config import GRPOConfig
from rl_client.grpo.loss import group_advantages, normaliser, policy_loss
from rl_client.grpo.rollout import Group, token_logprobs
from rl_client.grpo.stages import SampleReward, judge_options, stage_reward
from rl_client.kofn import _problem

__all__ = ["Batch", "judge_groups", "masked_advantages", "optimise", "reward_stats"]


def judge_groups(
    client: JudgeClient, rows: list[dict[str, Any]], groups: list[Group], stage: int, language: str
) -> list[SampleReward]:
    """Every completion of every group judged in one call; rewards in the same order."""
    items: list[dict[str, Any]] = []
    for row, group in zip(rows, groups, strict=True):
        base = {**_problem(row), "language": row.get("language") or language}
        items.extend({**base, "completion": text} for text in group.texts)
    results = client.judge(items, judge_options(stage))
    return [stage_reward(result, stage) for result in results]


def masked_advantages(
    rewards: list[float | None], group_size: int, eps: float, scale: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(advantages, valid): a rollout the judge failed on is left out of its group's mean and
    std and of the loss; a group with fewer than two judged rollouts teaches nothing."""
    advantages = torch.zeros(len(rewards))
    valid = torch.tensor([reward is not None for reward in rewards], dtype=torch.float32)
    for start in range(0, len(rewards), group_size):
        judged = [i for i in range(start, start + group_size) if rewards[i] is not None]
        if len(judged) < 2:
            valid[start : start + group_size] = 0
            continue
        values = torch.tensor([float(rewards[i] or 0.0) for i in judged])
        advantages[judged] = group_advantages(values, len(judged), eps, scale)
    return advantages, valid


def reward_stats(rewards: list[SampleReward]) -> dict[str, float | None]:
    judged = [r for r in rewards if r.total is not None]
    passed = [r for r in judged if r.passed]
    classed = [r for r in passed if r.time_optimal is not None]
    count = max(len(judged), 1)
    return {
        "reward": sum(r.total or 0.0 for r in judged) / count,
        "format": sum(r.format for r in judged) / count,
        "correctness": sum(r.correctness for r in judged) / count,
        "time": sum(r.time for r in judged) / count,
        "pass_rate": len(passed) / count,
        # Among passing solutions: the share in the problem's optimal class.
        "time_optimal": (
            sum(bool(r.time_optimal) for r in classed) / len(classed) if classed else None
        ),
        "system_errors": float(len(rewards) - len(judged)),
    }


@dataclass
class Batch:
    prompt_ids: list[list[int]]
    completion_ids: list[list[int]]
    advantages: torch.Tensor  # [batch]
    valid: torch.Tensor  # [batch], 0 for rollouts without a reward


def optimise(
    model: Any,
    ref_model: Any,
    optimiser: torch.optim.Optimizer,
    batch: Batch,
    c: GRPOConfig,
    pad: int,
) -> dict[str, float]:
    """``updates_per_batch`` optimiser steps on ``batch``, each over ``grad_accum``
    micro-batches whose gradients add up to the whole batch's."""
    size = len(batch.completion_ids)
    micro = size // c.grad_accum
    device = next(model.parameters()).device
    with torch.no_grad():
        old_logp, mask = token_logprobs(model, batch.prompt_ids, batch.completion_ids, pad)
        ref_logp = None
        if c.beta and ref_model is not None:
            ref_logp, _ = token_logprobs(ref_model, batch.prompt_ids, batch.completion_ids, pad)
    mask = mask * batch.valid.to(device).unsqueeze(1)
    divide_by = normaliser(mask, c.loss_type)
    advantages = batch.advantages.to(device)
    totals = {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0, "grad_norm": 0.0}
    for _ in range(c.updates_per_batch):
        optimiser.zero_grad(set_to_none=True)
        for start in range(0, size, micro):
            part = slice(start, start + micro)
            logp, _ = token_logprobs(model, batch.prompt_ids[part], batch.completion_ids[part], pad)
            width = logp.shape[1]
            parts = policy_loss(
                logp,
                old_logp[part, :width],
                advantages[part],
                mask[part, :width],
                loss_type=c.loss_type,
                epsilon_low=c.epsilon_low,
                epsilon_high=c.epsilon_high,
                beta=c.beta,
                ref_logp=ref_logp[part, :width] if ref_logp is not None else None,
                divide_by=divide_by,
            )
            parts.loss.backward()
            totals["loss"] += float(parts.loss.item()) / c.updates_per_batch
            share = micro / size / c.updates_per_batch
            totals["clip_fraction"] += parts.clip_fraction * share
            totals["kl"] += parts.kl * share
        if c.max_grad_norm:
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), c.max_grad_norm)
            totals["grad_norm"] += float(norm) / c.updates_per_batch
        optimiser.step()
    return totals
