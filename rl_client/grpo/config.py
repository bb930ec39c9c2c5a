"""The trainer's one configuration: a dataclass whose fields carry their help text, read from
a YAML file and ``key=value`` overrides. Every check says how to fix the value it rejects."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["GRPOConfig", "describe_fields", "load_config"]


def _f(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass
class GRPOConfig:
    # Where things are.
    model: str = _f("", "Directory of the policy to start from (config, weights, tokenizer).")
    problems: str = _f(
        "", "Training problems: JSONL or parquet rows with a prompt and problem_id or problem."
    )
    eval_problems: str = _f("", "Held-out problems (same format) for the pass-rate evaluation.")
    output_dir: str = _f("grpo-out", "Checkpoints, logs, filter results and the curves' PNG.")
    judge_url: str = _f("http://127.0.0.1:8000", "The judge service.")
    judge_api_key: str | None = _f(None, "Bearer key, if the service wants one.")
    language: str = _f("python", "Language of rows that name none.")
    prompt_field: str = _f("prompt", "The column holding the prompt (text or chat messages).")
    # Rollouts.
    group_size: int = _f(8, "Rollouts per prompt (the GRPO group).")
    prompts_per_step: int = _f(4, "Prompts per optimiser step (batch = prompts x group_size).")
    max_new_tokens: int = _f(256, "Longest completion sampled.")
    temperature: float = _f(1.0, "Sampling temperature of the rollouts.")
    top_p: float = _f(1.0, "Nucleus sampling threshold of the rollouts.")
    rollout_backend: Literal["auto", "transformers", "vllm"] = _f(
        "auto", "auto: vLLM when installed and a GPU is present, else transformers generate."
    )
    device: str = _f("auto", "torch device: auto (cuda when available, else cpu), cpu, cuda.")
    # Objective.
    loss_type: Literal["grpo", "dapo"] = _f(
        "grpo",
        "grpo: mean over each sequence's tokens, then over sequences; dapo: sum over all "
        "tokens / token count.",
    )
    learning_rate: float = _f(1e-5, "AdamW learning rate.")
    weight_decay: float = _f(0.0, "AdamW weight decay.")
    max_grad_norm: float = _f(1.0, "Gradient clipping norm (0: none).")
    epsilon_low: float = _f(0.2, "Lower clip of the ratio: 1 - epsilon_low.")
    epsilon_high: float = _f(0.2, "Upper clip of the ratio: 1 + epsilon_high (DAPO: 0.28).")
    beta: float = _f(0.0, "Weight of the k3 KL to the reference model (0: no reference kept).")
    advantage_eps: float = _f(1e-4, "Added to the group's std when normalising rewards.")
    scale_rewards: bool = _f(True, "Divide by the group's std (False: only subtract its mean).")
    updates_per_batch: int = _f(1, "Optimiser steps on each generated batch (1: ratio is 1).")
    grad_accum: int = _f(1, "Micro-batches per optimiser step (the batch is cut into this many).")
    # Stages.
    stage1_steps: int = _f(50, "Most optimiser steps of stage 1 (correctness).")
    stage2_steps: int = _f(50, "Optimiser steps of stage 2 (correctness + gated time reward).")
    switch_pass_rate: float | None = _f(
        None,
        "Switch to stage 2 early when the training pass rate (mean over switch_window steps) "
        "reaches this (None: only after stage1_steps).",
    )
    switch_window: int = _f(5, "Steps averaged for switch_pass_rate.")
    stages: list[int] = field(
        default_factory=lambda: [1, 2],
        metadata={"help": "Stages to run, in order: [1, 2], [1] or [2]."},
    )
    # On-policy filtering.
    filter_before_stage: bool = _f(True, "Filter the problems on-policy before each stage.")
    filter_every: int = _f(0, "Filter again every this many steps within a stage (0: never).")
    filter_n: int = _f(8, "Rollouts per problem when filtering.")
    filter_kmin: int = _f(1, "Keep problems solved at least kmin times of filter_n.")
    filter_kmax: int = _f(5, "Keep problems solved at most kmax times of filter_n.")
    # Evaluation, logging, checkpoints.
    eval_every: int = _f(10, "Evaluate on eval_problems every this many steps (0: never).")
    eval_samples: int = _f(4, "Samples per held-out problem at evaluation.")
    eval_temperature: float = _f(1.0, "Sampling temperature at evaluation.")
    save_every: int = _f(0, "Checkpoint every this many steps (0: only at the end).")
    keep_checkpoints: int = _f(2, "Checkpoints kept (the oldest are removed).")
    resume: bool = _f(True, "Continue from the latest checkpoint in output_dir, if there is one.")
    tensorboard: bool = _f(True, "Also write TensorBoard events (needs tensorboard).")
    judge_concurrency: int = _f(4, "Judge requests in flight.")
    seed: int = _f(0, "Seed of torch and the problem order.")

    def __post_init__(self) -> None:
        _check(self)


def describe_fields() -> list[tuple[str, str, str]]:
    """(name, default, help) of every field, for ``judge train --help-config``."""
    out = []
    for item in dataclasses.fields(GRPOConfig):
        default = (
            item.default_factory()
            if item.default_factory is not dataclasses.MISSING
            else item.default
        )
        out.append((item.name, json.dumps(default), str(item.metadata.get("help", ""))))
    return out


def _check(c: GRPOConfig) -> None:
    problems: list[str] = []

    def need(ok: bool, message: str) -> None:
        if not ok:
            problems.append(message)

    need(bool(c.model), "model is empty: give the policy's directory (model: path/to/model)")
    need(bool(c.problems), "problems is empty: give a JSONL or parquet file of training problems")
    need(c.group_size >= 2, f"group_size={c.group_size}: GRPO needs at least 2 rollouts a group")
    need(c.prompts_per_step >= 1, f"prompts_per_step={c.prompts_per_step}: use 1 or more")
    need(c.max_new_tokens >= 1, f"max_new_tokens={c.max_new_tokens}: use 1 or more")
    need(c.temperature > 0, f"temperature={c.temperature}: rollouts must sample, use > 0")
    need(0 < c.top_p <= 1, f"top_p={c.top_p}: use a value in (0, 1]")
    need(c.rollout_backend in ("auto", "transformers", "vllm"), "rollout_backend: auto, "
         f"transformers or vllm, not {c.rollout_backend!r}")  # fmt: skip
    need(c.loss_type in ("grpo", "dapo"), f"loss_type: grpo or dapo, not {c.loss_type!r}")
    need(c.learning_rate > 0, f"learning_rate={c.learning_rate}: use > 0 (e.g. 1e-5)")
    need(c.max_grad_norm >= 0, f"max_grad_norm={c.max_grad_norm}: use >= 0 (0 turns it off)")
    need(0 <= c.epsilon_low < 1, f"epsilon_low={c.epsilon_low}: use a value in [0, 1)")
    need(c.epsilon_high >= 0, f"epsilon_high={c.epsilon_high}: use >= 0")
    need(c.beta >= 0, f"beta={c.beta}: use >= 0 (0: no KL term)")
    need(c.advantage_eps > 0, f"advantage_eps={c.advantage_eps}: use > 0 (e.g. 1e-4)")
    need(c.updates_per_batch >= 1, f"updates_per_batch={c.updates_per_batch}: use 1 or more")
    need(c.grad_accum >= 1, f"grad_accum={c.grad_accum}: use 1 or more")
    batch = c.prompts_per_step * c.group_size
    need(
        batch % max(c.grad_accum, 1) == 0,
        f"grad_accum={c.grad_accum} does not divide the batch of {batch} rollouts "
        "(prompts_per_step x group_size): pick a divisor",
    )
    need(c.stage1_steps >= 0 and c.stage2_steps >= 0, "stage1_steps, stage2_steps: use >= 0")
    need(
        c.switch_pass_rate is None or 0 < c.switch_pass_rate <= 1,
        f"switch_pass_rate={c.switch_pass_rate}: use a value in (0, 1] or null",
    )
    need(c.switch_window >= 1, f"switch_window={c.switch_window}: use 1 or more")
    need(
        bool(c.stages) and list(c.stages) in ([1], [2], [1, 2]),
        f"stages={c.stages}: use [1, 2], [1] or [2]",
    )
    need(c.filter_every >= 0, f"filter_every={c.filter_every}: use >= 0 (0: never)")
    need(c.filter_n >= 1, f"filter_n={c.filter_n}: use 1 or more")
    need(
        0 <= c.filter_kmin <= c.filter_kmax <= c.filter_n,
        f"need 0 <= filter_kmin <= filter_kmax <= filter_n, not {c.filter_kmin}, "
        f"{c.filter_kmax}, {c.filter_n}",
    )
    need(c.eval_every >= 0, f"eval_every={c.eval_every}: use >= 0 (0: never)")
    need(c.eval_samples >= 1, f"eval_samples={c.eval_samples}: use 1 or more")
    need(c.eval_temperature >= 0, f"eval_temperature={c.eval_temperature}: use >= 0 (0: greedy)")
    need(c.save_every >= 0, f"save_every={c.save_every}: use >= 0 (0: only at the end)")
    need(c.keep_checkpoints >= 1, f"keep_checkpoints={c.keep_checkpoints}: use 1 or more")
    need(c.judge_concurrency >= 1, f"judge_concurrency={c.judge_concurrency}: use 1 or more")
    if problems:
        raise ValueError("bad training configuration:\n  " + "\n  ".join(problems))


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> GRPOConfig:
    """The configuration in the YAML file ``path`` (None: defaults), then ``key=value``
    overrides (values read as YAML: ``beta=0.04``, ``stages=[1]``, ``switch_pass_rate=null``)."""
    import yaml  # type: ignore[import-untyped]

    values: dict[str, Any] = {}
    if path is not None:
        loaded = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"{path}: expected a mapping of field: value at the top")
        values.update(loaded)
    for item in overrides or []:
        key, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"override {item!r}: write it as key=value")
        values[key.strip()] = yaml.safe_load(text)
    known = {item.name for item in dataclasses.fields(GRPOConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(
            f"unknown configuration fields {unknown}; `judge train --list-fields` lists them"
        )
    return GRPOConfig(**values)
