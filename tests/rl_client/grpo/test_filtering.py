"""On-policy filtering before a stage, through ``judge filter``'s code and the live service:
problems the policy solves outside [1, 5] times of 8 are dropped, the rest kept; stage 2
counts only solutions in the optimal class."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rl_client.grpo.filtering import filter_problems
from rl_client.grpo.rollout import Group
from tests.api._cluster import ApiServer
from tests.rl_client.conftest import SUM_OK, SUM_PROBLEM, SUM_WRONG, fenced

pytestmark = pytest.mark.integration

# How many times n halves to 1: O(log n) by halving (a static class trusted to pay R_time),
# or O(n) by counting up (correct, counted in stage 1, not in stage 2).
HALVINGS = {
    "tests": [{"input": f"{n}\n", "output": str(n.bit_length() - 1)} for n in (1, 6, 64, 1000)],
    "optimal_complexity": "O(log n)",
}
HALVING_FAST = "n = int(input())\nc = 0\nwhile n > 1:\n    n //= 2\n    c += 1\nprint(c)\n"
HALVING_SLOW = (
    "n = int(input())\nc = 0\np = 2\nfor i in range(2, n + 1):\n    if i == p:\n"
    "        c += 1\n        p *= 2\nprint(c)\n"
)


class ScriptedRollout:
    """For prompt ``p<i>``: the completions in SCRIPT[i], in order."""

    def __init__(self, script: dict[str, list[str]]) -> None:
        self.script = script

    def sample(self, prompt: Any, n: int, temperature: float, top_p: float) -> Group:
        texts = [fenced(code) for code in self.script[prompt]]
        assert len(texts) == n
        return Group([], [[] for _ in texts], texts)

    def sync_weights(self) -> None:
        return None


def _problems(ks: list[int]) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    rows, script = [], {}
    for i, k in enumerate(ks):
        tests = SUM_PROBLEM["tests"]
        # Inline problems, so each row is its own problem.
        rows.append(
            {"prompt": f"p{i}", "problem": {**SUM_PROBLEM, "id": f"sum{i}", "tests": tests}}
        )
        script[f"p{i}"] = [SUM_OK] * k + [SUM_WRONG] * (8 - k)
    return rows, script


def _run(
    api: ApiServer, rows: list[dict[str, Any]], script: dict[str, list[str]], stage: int, out: Path
) -> Any:
    return filter_problems(
        rows,
        ScriptedRollout(script),
        stage=stage,
        out_dir=out,
        judge_url=api.url,
        api_key=None,
        n=8,
        kmin=1,
        kmax=5,
        temperature=1.0,
        top_p=1.0,
        max_tokens=16,
        language="python",
        prompt_field="prompt",
        concurrency=4,
        show_progress=False,
    )


def test_stage_one_keeps_problems_solved_one_to_five_times(
    service: ApiServer, tmp_path: Path
) -> None:
    ks = [0, 1, 3, 5, 6, 8]
    rows, script = _problems(ks)
    outcome = _run(service, rows, script, 1, tmp_path)
    kept = [row["problem"]["id"] for row in outcome.kept]
    assert kept == ["sum1", "sum2", "sum3"]  # k = 1, 3, 5
    assert outcome.histogram == [1, 1, 0, 1, 0, 1, 1, 0, 1]
    assert not outcome.fallback


def test_stage_two_counts_only_time_optimal_solutions(service: ApiServer, tmp_path: Path) -> None:
    rows = [{"prompt": "p0", "problem": {**HALVINGS, "id": "slowfast"}}]
    # 8 correct solutions, 2 of them O(log n): stage 1 counts 8 (dropped), stage 2 counts 2.
    script = {"p0": [HALVING_FAST] * 2 + [HALVING_SLOW] * 6}
    first = _run(service, rows, script, 1, tmp_path / "stage1")
    assert first.histogram[8] == 1 and first.fallback  # nothing kept: trains on all
    second = _run(service, rows, script, 2, tmp_path / "stage2")
    assert second.histogram[2] == 1 and not second.fallback
    assert [row["problem"]["id"] for row in second.kept] == ["slowfast"]
