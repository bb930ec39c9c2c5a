"""The GRPO objective against a reference computed element by element from its definition
(../shared/DESIGN.md section 6): per-token loss ``-min(r A, clip(r, 1-el, 1+eh) A) + beta k3``
with ``r = exp(logp - old)`` and ``k3 = exp(ref - logp) - (ref - logp) - 1``, reduced by
``grpo`` (per-sequence token mean, then batch mean) or ``dapo`` (sum / token count); its
gradient with respect to logp written out by hand."""

from __future__ import annotations

import math

import pytest
import torch

from rl_client.grpo.loss import group_advantages, normaliser, policy_loss

EPS_LOW, EPS_HIGH = 0.2, 0.28
# Three sequences of 4, 2 and 3 completion tokens (right-padded to 4).
LENGTHS = [4, 2, 3]
LOGP = [[-1.0, -0.5, -2.0, -0.1], [-0.3, -1.5, 0.0, 0.0], [-0.8, -0.05, -1.2, 0.0]]
# Old log-probabilities chosen so that some ratios fall outside [0.8, 1.28] on both sides.
OLD = [[-1.0, -0.9, -1.7, -0.1], [-0.6, -1.0, 0.0, 0.0], [-0.5, -0.3, -1.25, 0.0]]
REF = [[-1.2, -0.4, -2.5, -0.3], [-0.2, -1.1, 0.0, 0.0], [-0.9, -0.2, -1.0, 0.0]]
ADV = [1.3, -0.7, 0.4]


def _reference(beta: float, loss_type: str) -> tuple[float, list[list[float]]]:
    """(loss, d loss / d logp) by hand, token by token."""
    per_token: list[list[float]] = []
    grads: list[list[float]] = []
    for i, length in enumerate(LENGTHS):
        row_loss, row_grad = [], []
        for t in range(length):
            ratio = math.exp(LOGP[i][t] - OLD[i][t])
            clipped = min(max(ratio, 1 - EPS_LOW), 1 + EPS_HIGH)
            a = ADV[i]
            unclipped_term, clipped_term = ratio * a, clipped * a
            loss = -min(unclipped_term, clipped_term)
            # The unclipped term is the minimum: its derivative -A r; else the clipped term is
            # a constant in logp.
            grad = -a * ratio if unclipped_term <= clipped_term else 0.0
            if beta:
                delta = REF[i][t] - LOGP[i][t]
                loss += beta * (math.exp(delta) - delta - 1)
                grad += beta * (1 - math.exp(delta))
            row_loss.append(loss)
            row_grad.append(grad)
        per_token.append(row_loss)
        grads.append(row_grad)
    if loss_type == "grpo":
        total = sum(sum(row) / len(row) for row in per_token) / len(LENGTHS)
        weights = [1 / (length * len(LENGTHS)) for length in LENGTHS]
    else:
        tokens = sum(LENGTHS)
        total = sum(sum(row) for row in per_token) / tokens
        weights = [1 / tokens] * len(LENGTHS)
    scaled = [[g * weights[i] for g in row] + [0.0] * (4 - len(row)) for i, row in enumerate(grads)]
    return total, scaled


def _tensors() -> tuple[torch.Tensor, ...]:
    mask = torch.tensor([[1.0] * n + [0.0] * (4 - n) for n in LENGTHS])
    return torch.tensor(LOGP, requires_grad=True), torch.tensor(OLD), torch.tensor(REF), mask


@pytest.mark.parametrize("loss_type", ["grpo", "dapo"])
@pytest.mark.parametrize("beta", [0.0, 0.1])
def test_loss_and_gradient_match_the_definition(loss_type: str, beta: float) -> None:
    logp, old, ref, mask = _tensors()
    parts = policy_loss(
        logp,
        old,
        torch.tensor(ADV),
        mask,
        loss_type=loss_type,  # type: ignore[arg-type]
        epsilon_low=EPS_LOW,
        epsilon_high=EPS_HIGH,
        beta=beta,
        ref_logp=ref if beta else None,
    )
    parts.loss.backward()
    expected_loss, expected_grad = _reference(beta, loss_type)
    assert parts.loss.item() == pytest.approx(expected_loss, rel=1e-6, abs=1e-7)
    assert logp.grad is not None
    assert torch.allclose(logp.grad, torch.tensor(expected_grad), atol=1e-7)
    # Some tokens were clipped (zero gradient there without KL), others not.
    assert 0 < parts.clip_fraction < 1
    if beta:
        assert parts.kl > 0


def test_the_two_reductions_differ_on_unequal_lengths() -> None:
    grpo, _ = _reference(0.0, "grpo")
    dapo, _ = _reference(0.0, "dapo")
    assert abs(grpo - dapo) > 1e-3


@pytest.mark.parametrize("loss_type", ["grpo", "dapo"])
def test_on_policy_gradient_is_minus_advantage_times_grad_logp(loss_type: str) -> None:
    """One step per batch: ratio 1, so the gradient is -A grad logp / normaliser."""
    logp, _, _, mask = _tensors()
    parts = policy_loss(logp, logp.detach(), torch.tensor(ADV), mask, loss_type=loss_type)  # type: ignore[arg-type]
    parts.loss.backward()
    assert logp.grad is not None
    for i, length in enumerate(LENGTHS):
        scale = length * len(LENGTHS) if loss_type == "grpo" else sum(LENGTHS)
        for t in range(4):
            expected = -ADV[i] / scale if t < length else 0.0
            assert logp.grad[i, t].item() == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("loss_type", ["grpo", "dapo"])
def test_micro_batches_add_up_to_the_whole_batch(loss_type: str) -> None:
    logp, old, ref, mask = _tensors()
    adv = torch.tensor(ADV)
    whole = policy_loss(logp, old, adv, mask, loss_type=loss_type, beta=0.05, ref_logp=ref)  # type: ignore[arg-type]
    whole.loss.backward()
    assert logp.grad is not None
    expected = logp.grad.clone()
    logp.grad = None
    divide_by = normaliser(mask, loss_type)  # type: ignore[arg-type]
    total = 0.0
    for part in (slice(0, 2), slice(2, 3)):
        piece = policy_loss(
            logp[part],
            old[part],
            adv[part],
            mask[part],
            loss_type=loss_type,  # type: ignore[arg-type]
            beta=0.05,
            ref_logp=ref[part],
            divide_by=divide_by,
        )
        piece.loss.backward()
        total += piece.loss.item()
    assert total == pytest.approx(whole.loss.item(), rel=1e-6)
    assert torch.allclose(logp.grad, expected, atol=1e-8)


def test_group_advantages() -> None:
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 2.0])
    advantages = group_advantages(rewards, 4, eps=1e-4)
    first = [1.0, 0.0, 0.0, 1.0]
    std = math.sqrt(sum((x - 0.5) ** 2 for x in first) / 3)
    assert advantages[:4].tolist() == pytest.approx([(x - 0.5) / (std + 1e-4) for x in first])
    # A group with equal rewards teaches nothing.
    assert advantages[4:].tolist() == [0.0, 0.0, 0.0, 0.0]
    unscaled = group_advantages(rewards, 4, scale=False)
    assert unscaled[:4].tolist() == [0.5, -0.5, -0.5, 0.5]
    with pytest.raises(ValueError, match="groups of 3"):
        group_advantages(rewards, 3)


def test_kl_needs_the_reference() -> None:
    logp, old, _, mask = _tensors()
    with pytest.raises(ValueError, match="ref_logp"):
        policy_loss(logp, old, torch.tensor(ADV), mask, beta=0.1)
