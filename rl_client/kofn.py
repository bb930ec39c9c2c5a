"""The k-of-n problem filter: sample n completions per problem from the policy, judge them,
count the k that pass, keep the problems with kmin <= k <= kmax (on-policy filtering: a
problem the policy always or never solves teaches it nothing).

Criterion ``correct`` counts samples that pass every test; ``complexity`` counts those that
also meet the problem's optimal complexity. Each finished problem is appended at once to
``kept.jsonl`` or ``dropped.jsonl`` with k and the per-sample verdicts, so an interrupted run
started again on the same directory samples and judges only the problems not in them.
``k_histogram.png`` and ``summary.json`` are written at the end.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from rl_client._journal import append, read_records
from rl_client._progress import progress_bar
from rl_client._rewarding import problem_fields
from rl_client.aclient import AsyncJudgeClient
from rl_client.errors import JudgeUnavailable
from rl_client.rows import RowSource, problem_of_row, read_rows
from rl_client.sampling import Sampler, SamplingParams
from rl_client.types import JudgeOptions, Result

__all__ = ["KofnConfig", "KofnSummary", "kofn_filter", "problem_key"]

logger = logging.getLogger("rl_client")
_ROUNDS = 3  # judging rounds for samples that came back as system errors


@dataclass(frozen=True)
class KofnConfig:
    kmin: int = 1
    kmax: int = 5
    criterion: Literal["correct", "complexity"] = "correct"
    language: str = "python"
    prompt_field: str = "prompt"
    # Judge prompt + completion (a base model continuing a function's signature).
    include_prompt: bool = False
    concurrency: int = 4

    def __post_init__(self) -> None:
        if not 0 <= self.kmin <= self.kmax:
            raise ValueError(f"need 0 <= kmin <= kmax, not kmin={self.kmin}, kmax={self.kmax}")
        if self.criterion not in ("correct", "complexity"):
            raise ValueError(f"criterion must be correct or complexity, not {self.criterion!r}")


@dataclass
class KofnSummary:
    problems: int
    done_now: int
    kept: int
    dropped: int
    failed: int
    histogram: list[int] = field(default_factory=list)


def problem_key(row: dict[str, Any]) -> str:
    if row.get("problem_id"):
        return str(row["problem_id"])
    if "tests" in row:
        return str(row.get("id"))
    inline = row.get("problem")
    inline = json.loads(inline) if isinstance(inline, str) else inline
    return str((inline or {}).get("id"))


def _problem(row: dict[str, Any]) -> dict[str, Any]:
    if "tests" in row:
        return {"problem": problem_of_row(row)}
    return problem_fields(row.get("problem_id"), row.get("problem"))


def _sample_record(result: Result, counted: bool) -> dict[str, Any]:
    return {
        "status": result.status,
        "verdict": result.verdict,
        "pass_rate": result.pass_rate,
        "class": result.complexity.predicted if result.complexity else None,
        "counted": counted,
    }


class _Run:
    def __init__(
        self,
        client: AsyncJudgeClient,
        sampler: Sampler,
        out_dir: Path,
        config: KofnConfig,
        params: SamplingParams,
    ) -> None:
        self.client, self.sampler, self.out_dir = client, sampler, out_dir
        self.config, self.params = config, params
        # The correct criterion needs no complexity judging: it would only cost time.
        self.options = JudgeOptions(complexity="off" if config.criterion == "correct" else "auto")
        self.done_now = self.failed = 0

    def counts(self, result: Result) -> bool:
        if self.config.criterion == "correct":
            return result.accepted
        return (
            result.accepted and result.complexity is not None and result.complexity.meets_reference
        )

    async def judge(self, items: list[dict[str, Any]]) -> list[Result]:
        results: list[Result | None] = [None] * len(items)
        for _ in range(_ROUNDS):
            todo = [i for i, r in enumerate(results) if r is None or r.status == "system_error"]
            if not todo:
                break
            for index, result in zip(
                todo, await self.client.judge([items[i] for i in todo], self.options), strict=True
            ):
                results[index] = result
        return [result for result in results if result is not None]

    async def one(self, row: dict[str, Any]) -> None:
        prompt = row.get(self.config.prompt_field)
        if not isinstance(prompt, str | list):
            raise ValueError(
                f"problem {problem_key(row)}: no prompt in {self.config.prompt_field!r}"
            )
        base = {**_problem(row), "language": row.get("language") or self.config.language}
        try:
            completions = await self.sampler.sample(prompt, self.params)
            if self.config.include_prompt and isinstance(prompt, str):
                completions = [prompt + completion for completion in completions]
            results = await self.judge([{**base, "completion": text} for text in completions])
        except JudgeUnavailable as error:
            results, failure = [], str(error)
        else:
            failure = next((r.error or "" for r in results if r.status == "system_error"), "")
        if failure or not results:
            self.failed += 1  # left out of both files: the next run tries it again
            logger.warning("problem %s left for the next run: %s", problem_key(row), failure)
            return
        refused = [result.error for result in results if result.status == "error"]
        if refused:
            raise ValueError(f"problem {problem_key(row)}: {refused[0]}")
        counted = [self.counts(result) for result in results]
        k = sum(counted)
        record = {
            **row,
            "k": k,
            "n": len(results),
            "samples": [_sample_record(r, c) for r, c in zip(results, counted, strict=True)],
        }
        keep = self.config.kmin <= k <= self.config.kmax
        append(self.out_dir / ("kept.jsonl" if keep else "dropped.jsonl"), [record])
        self.done_now += 1


def _claim(out_dir: Path, config: KofnConfig, params: SamplingParams) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    state = out_dir / "state.json"
    mine = {"n": params.n, "kmin": config.kmin, "kmax": config.kmax, "criterion": config.criterion}
    if state.exists() and json.loads(state.read_text()) != mine:
        raise ValueError(
            f"{out_dir} holds a run with other settings ({state.read_text()}); "
            "use another directory"
        )
    state.write_text(json.dumps(mine))


async def kofn_filter(
    problems: RowSource,
    sampler: Sampler,
    client: AsyncJudgeClient,
    out_dir: Path,
    config: KofnConfig | None = None,
    params: SamplingParams | None = None,
    show_progress: bool = True,
) -> KofnSummary:
    """Filters ``problems`` (rows with a prompt and ``problem_id``, an inline ``problem``, or
    the problem's own fields) into ``out_dir``; see the module's documentation."""
    config, params = config or KofnConfig(), params or SamplingParams()
    rows = list(read_rows(problems))
    keys = [problem_key(row) for row in rows]
    if len(set(keys)) != len(keys):
        raise ValueError("problem ids must be unique (a resumed run finds problems by id)")
    _claim(out_dir, config, params)
    finished = {
        problem_key(record)
        for name in ("kept.jsonl", "dropped.jsonl")
        for record in read_records(out_dir / name)
    }
    pending = [row for row, key in zip(rows, keys, strict=True) if key not in finished]
    run, slots = (
        _Run(client, sampler, out_dir, config, params),
        asyncio.Semaphore(config.concurrency),
    )
    with progress_bar(
        "sampling and judging problems", len(rows), len(rows) - len(pending), show_progress
    ) as bar:

        async def guarded(row: dict[str, Any]) -> None:
            async with slots:
                await run.one(row)
                bar.advance()

        await asyncio.gather(*(guarded(row) for row in pending))
    return _finish(out_dir, params.n, len(rows), run)


def _finish(out_dir: Path, n: int, total: int, run: _Run) -> KofnSummary:
    kept, dropped = (read_records(out_dir / name) for name in ("kept.jsonl", "dropped.jsonl"))
    histogram = [0] * (n + 1)
    for record in (*kept, *dropped):
        histogram[min(int(record["k"]), n)] += 1
    summary = KofnSummary(total, run.done_now, len(kept), len(dropped), run.failed, histogram)
    (out_dir / "summary.json").write_text(json.dumps(asdict(summary), indent=2))
    write_histogram_png(out_dir / "k_histogram.png", histogram)
    return summary


def write_histogram_png(path: Path, histogram: list[int]) -> bool:
    """The k histogram as a bar chart; False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        logger.warning("matplotlib is not installed: no %s", path)
        return False
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.bar(range(len(histogram)), histogram, color="#4c72b0")
    axes.set_xlabel("k (samples counted of n)")
    axes.set_ylabel("problems")
    axes.set_xticks(range(len(histogram)))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True
