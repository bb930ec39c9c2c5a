"""``judge train CONFIG`` end to end, one step per stage: a tiny policy (built from a config,
trained a few seconds to answer the ``sum`` problem right half the time) against the live
service; filtering, both stages, the logs, the curves, a checkpoint, and a resume that has
nothing left to do."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rl_client._journal import read_records
from tests.api._cluster import ApiServer
from tests.rl_client._tiny_policy import train_answer_policy
from tests.rl_client.conftest import SUM_OK, SUM_WRONG, fenced

pytestmark = pytest.mark.integration

PROMPT = "Add two numbers."


def test_judge_train_one_step_per_stage(service: ApiServer, tmp_path: Path) -> None:
    model = train_answer_policy(
        tmp_path / "model", [(PROMPT, [(fenced(SUM_OK), 2), (fenced(SUM_WRONG), 2)])], steps=60
    )
    problems = tmp_path / "problems.jsonl"
    problems.write_text(json.dumps({"prompt": PROMPT, "problem_id": "sum"}) + "\n")
    out = tmp_path / "run"
    config = tmp_path / "train.yaml"
    config.write_text(
        f"model: {model}\nproblems: {problems}\neval_problems: {problems}\n"
        f"output_dir: {out}\njudge_url: {service.url}\n"
        "group_size: 4\nprompts_per_step: 1\nmax_new_tokens: 4\nlearning_rate: 1.0e-3\n"
        "stage1_steps: 1\nstage2_steps: 1\nfilter_n: 4\nfilter_kmax: 3\neval_every: 0\n"
        "eval_samples: 2\nbeta: 0.04\ngrad_accum: 2\ndevice: cpu\n"
    )
    command = [sys.executable, "-m", "judge_service", "train", str(config)]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    print(f"judge train took {time.monotonic() - started:.1f} s")
    assert done.returncode == 0, done.stderr[-3000:]
    records = read_records(out / "metrics.jsonl")
    train = [r for r in records if r["kind"] == "train"]
    assert [(r["step"], r["stage"]) for r in train] == [(1, 1), (2, 2)]
    for r in train:
        for name in ("reward", "format", "correctness", "time", "pass_rate", "loss", "kl"):
            assert isinstance(r[name], float), name
    assert train[0]["time"] == 0.0  # no R_time in stage 1
    filters = [r for r in records if r["kind"] == "filter"]
    assert [r["stage"] for r in filters] == [1, 2]
    assert all(len(r["histogram"]) == 5 for r in filters)
    assert any(r["kind"] == "eval" for r in records)
    assert (out / "curves.png").stat().st_size > 1000
    assert list((out / "tensorboard").iterdir())
    (checkpoint,) = (out / "checkpoints").iterdir()
    state = json.loads((checkpoint / "state.json").read_text())
    assert state["step"] == 2 and state["finished"]
    # Started again on the same directory: resumed from the checkpoint, nothing left to train.
    from rl_client.grpo import Trainer, load_config

    resumed = Trainer(load_config(config))
    assert resumed.state.step == 2 and resumed.state.finished
    resumed.run()
    assert len(read_records(out / "metrics.jsonl")) == len(records)
