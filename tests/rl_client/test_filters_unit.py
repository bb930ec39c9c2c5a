"""The filters' own logic on a canned policy and a scripted judge (no service): k counting,
kmin/kmax, problems the judge failed on left for the next run, the SFT filter's optimal class
with and without a declared one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from rl_client import AsyncJudgeClient, JudgeClient, RetryPolicy
from rl_client._local_model import Prompt
from rl_client.kofn import KofnConfig, kofn_filter
from rl_client.sampling import SamplingParams
from rl_client.sft import sft_filter


class CannedPolicy:
    """Answers prompt "p<k>" with k good and n - k bad completions; counts the calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]:
        assert isinstance(prompt, str)
        self.calls.append(prompt)
        k = int(prompt[1:])
        return ["good"] * k + ["bad"] * (params.n - k)


def scripted_judge(broken: set[str]) -> httpx.MockTransport:
    """AC for "good" code or completion, WA otherwise; system errors for broken problems.
    Classes: code "slow" is O(n^2), anything else O(n); the problem's reference from
    ``reference`` in the inline problem."""

    def handler(request: httpx.Request) -> httpx.Response:
        results = []
        for item in json.loads(request.content)["submissions"]:
            if "problem_hash" in item:  # this judge keeps no inline problem: send it again
                error = "unknown problem_hash: send the problem inline"
                results.append({"id": item.get("id"), "status": "error", "error": error})
                continue
            problem = item.get("problem_id") or item["problem"]["id"]
            text = item.get("code") or item.get("completion")
            if problem in broken:
                results.append({"id": item.get("id"), "status": "system_error", "error": "down"})
                continue
            ok = text in ("good", "fast", "slow")
            reference = (item.get("problem") or {}).get("optimal_complexity")
            results.append(
                {
                    "id": item.get("id"),
                    "status": "ok",
                    "verdict": "AC" if ok else "WA",
                    "pass_rate": 1.0 if ok else 0.0,
                    "reward": {
                        "format": 0.0,
                        "correctness": float(ok),
                        "time": 0.0,
                        "total": float(ok),
                    },
                    "complexity": {
                        "predicted": "O(n^2)" if text == "slow" else "O(n)",
                        "reference": reference,
                        "method": "static",
                        "confidence": 1.0,
                    }
                    if ok
                    else None,
                }
            )
        return httpx.Response(200, json={"results": results})

    return httpx.MockTransport(handler)


def test_kofn_counts_keeps_and_leaves_failed_problems_for_the_next_run(tmp_path: Path) -> None:
    rows = [{"problem_id": f"q{k}", "prompt": f"p{k}"} for k in range(9)]
    policy, out = CannedPolicy(), tmp_path / "out"
    fast = RetryPolicy(0, 0.001)

    async def run(broken: set[str]) -> Any:
        client = AsyncJudgeClient(retry=fast, transport=scripted_judge(broken))
        return await kofn_filter(
            rows,
            policy,
            client,
            out,
            KofnConfig(kmin=1, kmax=5),
            SamplingParams(n=8),
            show_progress=False,
        )

    first = asyncio.run(run({"q3"}))
    assert (first.done_now, first.failed, first.kept + first.dropped) == (8, 1, 8)
    second = asyncio.run(run(set()))
    assert (second.done_now, second.failed) == (1, 0)
    assert policy.calls.count("p3") == 2 and len(policy.calls) == 10  # only q3 again
    kept = [json.loads(line) for line in (out / "kept.jsonl").read_text().splitlines()]
    assert sorted(r["k"] for r in kept) == [1, 2, 3, 4, 5]
    assert second.histogram == [1] * 9
    with pytest.raises(ValueError, match="other settings"):
        asyncio.run(
            kofn_filter(
                rows,
                policy,
                AsyncJudgeClient(transport=scripted_judge(set())),
                out,
                KofnConfig(kmin=2),
                SamplingParams(n=8),
            )
        )


def test_sft_optimal_class_declared_or_best_passing(tmp_path: Path) -> None:
    declared = {"id": "d", "tests": [{"input": "", "output": ""}], "optimal_complexity": "O(n)"}
    undeclared = {"id": "u", "tests": [{"input": "", "output": ""}]}
    only_slow = {"id": "s", "tests": [{"input": "", "output": ""}], "optimal_complexity": "O(n)"}
    rows = [
        {"problem": declared, "code": "fast"},
        {"problem": declared, "code": "slow"},
        {"problem": declared, "code": "wrong"},
        {"problem": undeclared, "code": "slow"},
        {"problem": undeclared, "code": "fast"},
        {"problem": only_slow, "code": "slow"},
    ]
    client = JudgeClient(batch_size=2, transport=scripted_judge(set()))
    summary = sft_filter(rows, client, tmp_path / "sft", show_progress=False)
    kept = [json.loads(line) for line in (tmp_path / "sft" / "kept.jsonl").read_text().splitlines()]
    assert [(r["problem"]["id"], r["code"]) for r in kept] == [("d", "fast"), ("u", "fast")]
    assert summary.problems["u"].optimal_class == "O(n)" and not summary.problems["u"].declared
    assert summary.problems["s"].kept == 0 and summary.classes == {"O(n)": 2, "O(n^2)": 3}
    again = sft_filter(rows, client, tmp_path / "sft", show_progress=False)
    assert again.judged_now == 0 and again.kept == 2


class FastAndSlowPolicy:
    """Three O(n) answers, three O(n^2) ones (both pass) and two wrong ones."""

    async def sample(self, prompt: Prompt, params: SamplingParams) -> list[str]:
        return ["good"] * 3 + ["slow"] * 3 + ["bad"] * (params.n - 6)


def test_kofn_complexity_criterion_counts_only_optimal_samples(tmp_path: Path) -> None:
    problem = {"id": "c", "tests": [{"input": "", "output": ""}], "optimal_complexity": "O(n)"}
    rows = [{"problem": problem, "prompt": "p"}]
    counted = {}
    for criterion in ("correct", "complexity"):
        client = AsyncJudgeClient(transport=scripted_judge(set()))
        config = KofnConfig(kmin=1, kmax=8, criterion=criterion)  # type: ignore[arg-type]
        asyncio.run(
            kofn_filter(
                rows,
                FastAndSlowPolicy(),
                client,
                tmp_path / criterion,
                config,
                SamplingParams(n=8),
                show_progress=False,
            )
        )
        [record] = [json.loads(line) for line in (tmp_path / criterion / "kept.jsonl").open()]
        counted[criterion] = record["k"]
        assert [s["class"] for s in record["samples"]][:6] == ["O(n)"] * 3 + ["O(n^2)"] * 3
    assert counted == {"correct": 6, "complexity": 3}
    with pytest.raises(ValueError, match="kmin <= kmax"):
        KofnConfig(kmin=6, kmax=5)
