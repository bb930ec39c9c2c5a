"""The GRPO objective (../shared/DESIGN.md section 6): group-normalised advantages, the
clipped ratio, the k3 KL to a reference, and the ``grpo`` and ``dapo`` token reductions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

__all__ = ["LossParts", "group_advantages", "normaliser", "policy_loss"]

LossType = Literal["grpo", "dapo"]


def group_advantages(
    rewards: torch.Tensor, group_size: int, eps: float = 1e-4, scale: bool = True
) -> torch.Tensor:
    """``(r - mean_group) / (std_group + eps)`` for rewards laid out group after group; the
    std is the sample std (n - 1), as TRL computes it. A group whose rewards are all equal
    gets advantages of 0: it teaches nothing."""
    if rewards.numel() % group_size:
        raise ValueError(f"{rewards.numel()} rewards do not split into groups of {group_size}")
    grouped = rewards.view(-1, group_size)
    centred = grouped - grouped.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / (grouped.std(dim=1, keepdim=True) + eps)
    return centred.reshape(-1)


def normaliser(mask: torch.Tensor, loss_type: LossType) -> float:
    """What a whole batch's loss is divided by: its sequences (``grpo``, after each sequence's
    own token mean) or its tokens (``dapo``). Micro-batches of one batch share it, so
    accumulating their gradients gives the whole batch's."""
    if loss_type == "grpo":
        return float(mask.shape[0])
    return float(mask.sum().clamp(min=1).item())


@dataclass(frozen=True)
class LossParts:
    loss: torch.Tensor  # scalar, differentiable
    per_token: torch.Tensor  # [batch, tokens], before the reduction (0 where masked)
    clip_fraction: float  # share of tokens whose ratio the clip changed the objective of
    kl: float  # mean k3 KL over the tokens (0 without a reference)


def policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    loss_type: LossType = "grpo",
    epsilon_low: float = 0.2,
    epsilon_high: float = 0.2,
    beta: float = 0.0,
    ref_logp: torch.Tensor | None = None,
    divide_by: float | None = None,
) -> LossParts:
    """The loss of completion tokens: ``logp``, ``old_logp`` (sampling policy, no gradient) and
    ``ref_logp`` are [batch, tokens] log-probabilities of the sampled tokens, ``advantages``
    [batch], ``mask`` [batch, tokens] 1 on completion tokens. ``divide_by`` is the whole
    batch's :func:`normaliser` when this is one micro-batch of it."""
    if beta and ref_logp is None:
        raise ValueError("beta > 0 needs ref_logp (the reference model's log-probabilities)")
    mask = mask.to(logp.dtype)
    ratio = torch.exp(logp - old_logp.detach())
    adv = advantages.detach().unsqueeze(1)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1 - epsilon_low, 1 + epsilon_high) * adv
    per_token = -torch.min(unclipped, clipped)
    kl_mean = 0.0
    if beta and ref_logp is not None:
        delta = ref_logp.detach() - logp
        kl = torch.exp(delta) - delta - 1
        per_token = per_token + beta * kl
        kl_mean = float(((kl * mask).sum() / mask.sum().clamp(min=1)).item())
    per_token = per_token * mask
    if loss_type == "grpo":
        per_sequence = per_token.sum(dim=1) / mask.sum(dim=1).clamp(min=1)
        total = per_sequence.sum()
    elif loss_type == "dapo":
        total = per_token.sum()
    else:
        raise ValueError(f"loss_type must be grpo or dapo, not {loss_type!r}")
    denominator = divide_by if divide_by is not None else normaliser(mask, loss_type)
    changed = (clipped < unclipped).to(logp.dtype) * mask
    clip_fraction = float((changed.sum() / mask.sum().clamp(min=1)).item())
    return LossParts(total / denominator, per_token, clip_fraction, kl_mean)
