"""On-policy filtering before a stage: ``judge filter``'s k-of-n filter (rl_client.kofn), run
with the policy being trained as its sampler. Stage 1 counts rollouts that pass every test;
stage 2 those that also meet the problem's optimal complexity."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rl_client._journal import read_records
from rl_client.aclient import AsyncJudgeClient
from rl_client.grpo.rollout import PolicySampler, Rollout
from rl_client.kofn import KofnConfig, kofn_filter, problem_key
from rl_client.sampling import SamplingParams

__all__ = ["FilterOutcome", "filter_problems"]

logger = logging.getLogger("rl_client")


@dataclass(frozen=True)
class FilterOutcome:
    kept: list[dict[str, Any]]  # the rows to train on, in their original order
    histogram: list[int]  # problems by k, k = 0..n
    fallback: bool  # nothing was kept, so the stage trains on every problem


def filter_problems(
    rows: list[dict[str, Any]],
    rollout: Rollout,
    *,
    stage: int,
    out_dir: Path,
    judge_url: str,
    api_key: str | None,
    n: int,
    kmin: int,
    kmax: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
    language: str,
    prompt_field: str,
    concurrency: int,
    show_progress: bool = True,
) -> FilterOutcome:
    """The rows whose problems the current policy solves kmin..kmax times of n; the k-of-n
    results are in ``out_dir`` (a finished directory is read, not sampled again, so a resumed
    run repeats no filtering)."""
    config = KofnConfig(
        kmin=kmin,
        kmax=kmax,
        criterion="correct" if stage == 1 else "complexity",
        language=language,
        prompt_field=prompt_field,
        concurrency=concurrency,
    )
    params = SamplingParams(n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens)

    async def run() -> list[int]:
        client = AsyncJudgeClient(
            judge_url, api_key=api_key, batch_size=max(n, 8), concurrency=concurrency
        )
        try:
            summary = await kofn_filter(
                rows, PolicySampler(rollout), client, out_dir, config, params, show_progress
            )
        finally:
            await client.aclose()
        return summary.histogram

    histogram = asyncio.run(run())
    kept_keys = {problem_key(record) for record in read_records(out_dir / "kept.jsonl")}
    kept = [row for row in rows if problem_key(row) in kept_keys]
    if not kept:
        logger.warning(
            "stage %d filter kept no problem (k histogram %s): training on all %d",
            stage,
            histogram,
            len(rows),
        )
        return FilterOutcome(list(rows), histogram, True)
    return FilterOutcome(kept, histogram, False)
