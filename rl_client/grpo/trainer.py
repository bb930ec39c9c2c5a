"""The training loop: for each stage, filter the problems on-policy, then take GRPO steps
(sample groups, judge them, update) until the stage ends; evaluate on held-out problems,
log, and checkpoint along the way. A run started again on the same ``output_dir`` resumes
from its latest checkpoint."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from rl_client._local_model import LocalPolicy
from rl_client.client import JudgeClient
from rl_client.grpo._batch import Batch, judge_groups, masked_advantages, optimise, reward_stats
from rl_client.grpo.checkpoint import (
    TrainState,
    latest_checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from rl_client.grpo.config import GRPOConfig
from rl_client.grpo.filtering import filter_problems
from rl_client.grpo.metrics import MetricsLog, plot_curves
from rl_client.grpo.rollout import Rollout, make_rollout
from rl_client.grpo.stages import StageSwitch
from rl_client.kofn import problem_key
from rl_client.rows import read_rows

__all__ = ["StepReport", "Trainer", "evaluate"]

logger = logging.getLogger("rl_client")


@dataclass(frozen=True)
class StepReport:
    step: int
    stage: int
    total_steps: int
    values: dict[str, Any]


def _device(name: str) -> str:
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name


def evaluate(
    rollout: Rollout,
    client: JudgeClient,
    rows: list[dict[str, Any]],
    c: GRPOConfig,
    stage: int,
) -> dict[str, Any]:
    """Held-out pass rate (share of samples passing every test) and, among the passing ones,
    the share in the problem's optimal class; complexity is always judged here (as stage 2
    does), so both stages' numbers compare."""
    samples = c.eval_samples if c.eval_temperature > 0 else 1
    groups = [
        rollout.sample(row[c.prompt_field], samples, c.eval_temperature or 0.0, c.top_p)
        for row in rows
    ]
    rewards = judge_groups(client, rows, groups, 2, c.language)
    stats = reward_stats(rewards)
    return {
        "stage": stage,
        "pass_rate": stats["pass_rate"],
        "time_optimal": stats["time_optimal"],
        "samples": len(rewards),
    }


class Trainer:
    def __init__(
        self, config: GRPOConfig, on_step: Callable[[StepReport], None] | None = None
    ) -> None:
        self.c, self.on_step = config, on_step
        self.out = Path(config.output_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(json.dumps(asdict(config), indent=1))
        self.rows = list(read_rows(config.problems))
        self.eval_rows = list(read_rows(config.eval_problems)) if config.eval_problems else []
        self.total_steps = sum(
            config.stage1_steps if s == 1 else config.stage2_steps for s in config.stages
        )
        torch.manual_seed(config.seed)
        random.seed(config.seed)
        checkpoint = latest_checkpoint(self.out) if config.resume else None
        device = _device(config.device)
        self.policy = LocalPolicy(checkpoint or config.model, device)
        self.model = self.policy.model
        self.ref_model = None
        if config.beta:
            self.ref_model = LocalPolicy(config.model, device).model.requires_grad_(False)
        self.optimiser = torch.optim.AdamW(
            self.model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.state = TrainState()
        if checkpoint is not None:
            self.state = load_checkpoint(checkpoint, self.optimiser)
            logger.info("resumed from %s at step %d", checkpoint, self.state.step)
        self.rollout = make_rollout(
            self.policy, config.model, config.rollout_backend, config.max_new_tokens
        )
        if checkpoint is not None:
            self.rollout.sync_weights()  # vLLM loaded the starting model, not the checkpoint
        pad = self.policy.tokenizer.pad_token_id
        self.pad = int(pad if pad is not None else min(self.policy.stop_ids, default=0))
        self.metrics = MetricsLog(self.out, config.tensorboard)
        self.client = JudgeClient(
            config.judge_url,
            api_key=config.judge_api_key,
            batch_size=64,
            concurrency=config.judge_concurrency,
        )

    @property
    def stage(self) -> int:
        return self.c.stages[self.state.stage_index]

    def run(self) -> TrainState:
        try:
            while self.state.stage_index < len(self.c.stages):
                self._run_stage()
                self.state.stage_index += 1
                self.state.steps_in_stage = self.state.cursor = 0
                self.state.filtered, self.state.stage_keys = False, []
                self.state.recent_pass = []
            self.state.finished = True
            self._save()
        finally:
            self.metrics.close()
            self.client.close()
            plot_curves(self.metrics.path, self.out / "curves.png")
        return self.state

    def _run_stage(self) -> None:
        c, stage = self.c, self.stage
        limit = c.stage1_steps if stage == 1 else c.stage2_steps
        switch = StageSwitch(limit, c.switch_pass_rate if stage == 1 else None, c.switch_window)
        for value in self.state.recent_pass:
            switch.record(value)
        if not self.state.filtered:
            self._choose_problems(filtered=c.filter_before_stage)
            self._evaluate()
        rows = self._stage_rows()
        while not switch.done(self.state.steps_in_stage):
            if (
                c.filter_every
                and self.state.steps_in_stage
                and not (self.state.steps_in_stage % c.filter_every)
            ):
                self._choose_problems(filtered=True)
                rows = self._stage_rows()
            values = self._step(rows)
            switch.record(values["pass_rate"])
            self.state.recent_pass = list(switch.recent)
            if c.eval_every and self.state.step % c.eval_every == 0:
                self._evaluate()
            if c.save_every and self.state.step % c.save_every == 0:
                self._save()
        if not c.eval_every or self.state.step % c.eval_every:
            self._evaluate()

    def _choose_problems(self, filtered: bool) -> None:
        c, stage = self.c, self.stage
        chosen = self.rows
        if filtered:
            outcome = filter_problems(
                self.rows,
                self.rollout,
                stage=stage,
                out_dir=self.out / "filter" / f"stage{stage}-step{self.state.step:06d}",
                judge_url=c.judge_url,
                api_key=c.judge_api_key,
                n=c.filter_n,
                kmin=c.filter_kmin,
                kmax=c.filter_kmax,
                temperature=c.temperature,
                top_p=c.top_p,
                max_tokens=c.max_new_tokens,
                language=c.language,
                prompt_field=c.prompt_field,
                concurrency=c.judge_concurrency,
                show_progress=self.on_step is not None,
            )
            chosen = outcome.kept
            self.metrics.log(
                "filter",
                self.state.step,
                {
                    "stage": stage,
                    "kept": len(outcome.kept),
                    "problems": len(self.rows),
                    "histogram": outcome.histogram,
                    "fallback": outcome.fallback,
                },
            )
        self.state.stage_keys = [problem_key(row) for row in chosen]
        self.state.filtered, self.state.cursor = True, 0

    def _stage_rows(self) -> list[dict[str, Any]]:
        keys = set(self.state.stage_keys)
        rows = [row for row in self.rows if problem_key(row) in keys]
        # A fixed order per stage and filtering, so a resumed run takes the same problems.
        random.Random(f"{self.c.seed}-{self.stage}-{len(rows)}").shuffle(rows)
        return rows

    def _step(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        c = self.c
        chosen = [rows[(self.state.cursor + i) % len(rows)] for i in range(c.prompts_per_step)]
        self.state.cursor = (self.state.cursor + c.prompts_per_step) % len(rows)
        groups = [
            self.rollout.sample(row[c.prompt_field], c.group_size, c.temperature, c.top_p)
            for row in chosen
        ]
        rewards = judge_groups(self.client, chosen, groups, self.stage, c.language)
        advantages, valid = masked_advantages(
            [r.total for r in rewards], c.group_size, c.advantage_eps, c.scale_rewards
        )
        batch = Batch(
            [g.prompt_ids for g in groups for _ in g.completion_ids],
            [ids for g in groups for ids in g.completion_ids],
            advantages,
            valid,
        )
        # The model stays in eval mode: dropout would make the sampled and the trained
        # log-probabilities differ (the ratio would not be 1 on the first update).
        update = optimise(self.model, self.ref_model, self.optimiser, batch, c, self.pad)
        self.rollout.sync_weights()
        self.state.step += 1
        self.state.steps_in_stage += 1
        lengths = [len(ids) for ids in batch.completion_ids]
        values = {
            "stage": self.stage,
            **reward_stats(rewards),
            **update,
            "completion_tokens": sum(lengths) / len(lengths),
            "problems": len(rows),
        }
        self.metrics.log("train", self.state.step, values)
        if self.on_step is not None:
            self.on_step(StepReport(self.state.step, self.stage, self.total_steps, values))
        return values

    def _evaluate(self) -> None:
        if not self.eval_rows:
            return
        values = evaluate(self.rollout, self.client, self.eval_rows, self.c, self.stage)
        self.metrics.log("eval", self.state.step, values)
        logger.info("step %d eval: %s", self.state.step, values)

    def _save(self) -> None:
        save_checkpoint(
            self.out,
            self.state,
            self.model,
            self.policy.tokenizer,
            self.optimiser,
            self.c.keep_checkpoints,
        )
