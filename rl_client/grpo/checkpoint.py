"""Checkpoints: the policy (a directory ``LocalPolicy`` and ``judge filter --model-dir`` load
as it is), the optimiser and random states, and where training stood."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

__all__ = ["TrainState", "latest_checkpoint", "load_checkpoint", "save_checkpoint"]


@dataclass
class TrainState:
    step: int = 0  # optimiser steps done, over all stages
    stage_index: int = 0  # into config.stages
    steps_in_stage: int = 0
    filtered: bool = False  # the current stage's problems were chosen
    stage_keys: list[str] = field(default_factory=list)  # the current stage's problems
    cursor: int = 0  # next position in the stage's shuffled problem order
    recent_pass: list[float] = field(default_factory=list)  # for the pass-rate switch
    finished: bool = False


def _directory(out_dir: Path, step: int) -> Path:
    return out_dir / "checkpoints" / f"step-{step:06d}"


def latest_checkpoint(out_dir: Path) -> Path | None:
    """The newest complete checkpoint (one with its state.json written last)."""
    root = out_dir / "checkpoints"
    done = sorted(p for p in root.glob("step-*") if (p / "state.json").exists())
    return done[-1] if done else None


def save_checkpoint(
    out_dir: Path, state: TrainState, model: Any, tokenizer: Any, optimiser: Any, keep: int
) -> Path:
    directory = _directory(out_dir, state.step)
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    torch.save(
        {
            "optimiser": optimiser.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "python_rng": random.getstate(),
        },
        directory / "trainer.pt",
    )
    # Written last: a checkpoint without it was interrupted and is not resumed from.
    (directory / "state.json").write_text(json.dumps(asdict(state), indent=1))
    complete = sorted(p for p in directory.parent.glob("step-*") if (p / "state.json").exists())
    for old in complete[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return directory


def load_checkpoint(directory: Path, optimiser: Any) -> TrainState:
    """Restores the optimiser and random states; the model is loaded from ``directory`` by
    the caller."""
    saved = torch.load(directory / "trainer.pt", weights_only=False)
    optimiser.load_state_dict(saved["optimiser"])
    torch.set_rng_state(saved["torch_rng"])
    random.setstate(saved["python_rng"])
    return TrainState(**json.loads((directory / "state.json").read_text()))
