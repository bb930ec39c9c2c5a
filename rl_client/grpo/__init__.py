"""The included GRPO trainer: two stages (correctness, then the gated time reward), on-policy
k-of-n filtering before each, judged by the service over HTTP. ``judge train CONFIG``.

The configuration imports nothing heavy; the trainer (torch, transformers) loads on first use,
so ``judge filter`` and the rest of the CLI start without torch."""

from typing import TYPE_CHECKING, Any

from rl_client.grpo.config import GRPOConfig, describe_fields, load_config

if TYPE_CHECKING:
    from rl_client.grpo.loss import group_advantages, policy_loss
    from rl_client.grpo.trainer import StepReport, Trainer

__all__ = [
    "GRPOConfig",
    "StepReport",
    "Trainer",
    "describe_fields",
    "group_advantages",
    "load_config",
    "policy_loss",
]

_LAZY = {
    "StepReport": "rl_client.grpo.trainer",
    "Trainer": "rl_client.grpo.trainer",
    "group_advantages": "rl_client.grpo.loss",
    "policy_loss": "rl_client.grpo.loss",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'rl_client.grpo' has no attribute {name!r}")
