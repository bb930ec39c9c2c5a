"""The two stages: what each rewards, and when the first gives way to the second.

Stage 1 rewards format and correctness; R_time is absent (the judge is not even asked for a
complexity). Stage 2 adds R_time, counted only for a submission that passes every test (the
service gates it; this gates it again, so a service configured otherwise cannot leak it)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rl_client.types import JudgeOptions, Result

__all__ = ["SampleReward", "StageSwitch", "judge_options", "stage_reward"]


@dataclass(frozen=True)
class SampleReward:
    """One rollout's reward and its parts; ``total`` is None when the judge failed (a system
    error is never a reward of 0: the rollout is left out of the loss)."""

    total: float | None
    format: float = 0.0
    correctness: float = 0.0
    time: float = 0.0
    passed: bool = False
    # Passed, and in the problem's optimal class or better; None when no complexity was judged
    # (stage 1 does not ask for one).
    time_optimal: bool | None = None


def judge_options(stage: int) -> JudgeOptions:
    return JudgeOptions(complexity="off" if stage == 1 else "auto")


def stage_reward(result: Result, stage: int) -> SampleReward:
    if result.status != "ok" or result.reward is None:
        return SampleReward(total=None)
    reward = result.reward
    passed = result.accepted
    optimal = None if result.complexity is None else passed and result.complexity.meets_reference
    time = reward.time if stage == 2 and passed else 0.0
    return SampleReward(
        total=reward.format + reward.correctness + time,
        format=reward.format,
        correctness=reward.correctness,
        time=time,
        passed=passed,
        time_optimal=optimal,
    )


class StageSwitch:
    """Stage 1 ends after ``max_steps`` steps, or earlier when the mean training pass rate of
    the last ``window`` steps reaches ``threshold``."""

    def __init__(self, max_steps: int, threshold: float | None, window: int) -> None:
        self.max_steps, self.threshold = max_steps, threshold
        self.recent: deque[float] = deque(maxlen=window)

    def record(self, pass_rate: float) -> None:
        self.recent.append(pass_rate)

    def done(self, steps_in_stage: int) -> bool:
        if steps_in_stage >= self.max_steps:
            return True
        if self.threshold is None or len(self.recent) < (self.recent.maxlen or 1):
            return False
        return sum(self.recent) / len(self.recent) >= self.threshold
