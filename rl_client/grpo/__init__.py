"""The included GRPO trainer: two stages (correctness, then the gated time reward), on-policy
k-of-n filtering before each, judged by the service over HTTP. ``judge train CONFIG``."""

from rl_client.grpo.config import GRPOConfig, describe_fields, load_config
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
