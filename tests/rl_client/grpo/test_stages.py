"""What each stage rewards (R_time absent in stage 1, present and gated on passing every test
in stage 2) and when stage 1 gives way to stage 2."""

from __future__ import annotations

import pytest

from rl_client.grpo.stages import StageSwitch, judge_options, stage_reward
from rl_client.types import Complexity, Result, Reward


def _result(verdict: str, pass_rate: float, time: float, predicted: str = "O(1)") -> Result:
    correctness = pass_rate
    return Result(
        id=None,
        status="ok",
        verdict=verdict,
        pass_rate=pass_rate,
        reward=Reward(format=0.0, correctness=correctness, time=time, total=correctness + time),
        complexity=Complexity(predicted, "O(1)", "static", 0.8),
    )


def test_stage_one_has_no_time_reward() -> None:
    fast = stage_reward(_result("AC", 1.0, 1.0), stage=1)
    assert (fast.total, fast.time, fast.correctness) == (1.0, 0.0, 1.0)
    assert fast.passed and fast.time_optimal
    # Stage 1 does not ask the judge for a complexity at all.
    assert judge_options(1).complexity == "off"


def test_stage_two_adds_the_time_reward_for_passing_solutions() -> None:
    fast = stage_reward(_result("AC", 1.0, 1.0), stage=2)
    slow = stage_reward(_result("AC", 1.0, 0.5, predicted="O(n)"), stage=2)
    assert (fast.total, fast.time) == (2.0, 1.0)
    assert (slow.total, slow.time) == (1.5, 0.5)
    assert fast.time_optimal and not slow.time_optimal
    assert judge_options(2).complexity == "auto"


def test_stage_two_gates_the_time_reward_on_passing_every_test() -> None:
    # A service configured to pay R_time regardless: the trainer still gates it.
    partial = stage_reward(_result("WA", 0.5, 0.7), stage=2)
    assert (partial.total, partial.time, partial.passed) == (0.5, 0.0, False)
    assert not partial.time_optimal


def test_a_system_error_has_no_reward() -> None:
    failed = stage_reward(Result.failed(None, "judge down"), stage=2)
    assert failed.total is None


def test_switch_after_the_step_budget() -> None:
    switch = StageSwitch(max_steps=3, threshold=None, window=2)
    for value in (1.0, 1.0):
        switch.record(value)
    assert not switch.done(2)
    assert switch.done(3)


def test_switch_when_the_pass_rate_crosses_the_threshold() -> None:
    switch = StageSwitch(max_steps=100, threshold=0.75, window=3)
    for steps, value in enumerate((0.9, 0.9), start=1):
        switch.record(value)
        assert not switch.done(steps)  # the window is not full yet
    for steps, value in ((3, 0.3), (4, 1.0)):  # means 0.7, 0.73
        switch.record(value)
        assert not switch.done(steps)
    switch.record(1.0)
    assert switch.done(5)  # mean of 0.3, 1.0, 1.0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"group_size": 1}, "group_size=1"),
        ({"grad_accum": 3}, "does not divide"),
        ({"filter_kmin": 6, "filter_kmax": 5}, "filter_kmin <= filter_kmax"),
        ({"stages": [2, 1]}, "use \\[1, 2\\]"),
        ({"temperature": 0.0}, "use > 0"),
    ],
)
def test_config_checks_say_how_to_fix(overrides: dict[str, object], message: str) -> None:
    from rl_client.grpo.config import GRPOConfig

    with pytest.raises(ValueError, match=message):
        GRPOConfig(model="m", problems="p.jsonl", **overrides)  # type: ignore[arg-type]


def test_config_from_yaml_and_overrides(tmp_path: object) -> None:
    from pathlib import Path

    from rl_client.grpo.config import load_config

    path = Path(str(tmp_path)) / "c.yaml"
    path.write_text("model: m\nproblems: p.jsonl\nbeta: 0.04\nstages: [1]\n")
    config = load_config(path, ["beta=0.1", "switch_pass_rate=0.9"])
    assert (config.beta, config.stages, config.switch_pass_rate) == (0.1, [1], 0.9)
    with pytest.raises(ValueError, match="unknown configuration fields \\['bogus'\\]"):
        load_config(path, ["bogus=1"])
