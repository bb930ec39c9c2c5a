"""``judge filter`` and ``judge sft-filter`` (also ``rl-judge ...`` where rl_client is installed
alone): the k-of-n problem filter and the SFT candidate filter, over the service's HTTP API."""

from __future__ import annotations

import asyncio
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from rl_client.aclient import AsyncJudgeClient
from rl_client.client import JudgeClient
from rl_client.errors import JudgeClientError
from rl_client.grpo.cli import train_command
from rl_client.kofn import KofnConfig, KofnSummary, kofn_filter
from rl_client.sampling import LocalSampler, OpenAISampler, SamplingParams
from rl_client.sft import SftSummary, sft_filter

__all__ = ["app", "filter_command", "main", "sft_filter_command", "train_command"]

console = Console(stderr=True)

Url = Annotated[str, typer.Option("--url", help="The judge service.", envvar="JUDGE_URL")]
ApiKey = Annotated[
    str | None,
    typer.Option("--api-key", help="Bearer key, if the service wants one.", envvar="JUDGE_API_KEY"),
]


def sft_filter_command(
    candidates: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="Candidates: JSONL or parquet.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (resumable).")],
    url: Url = "http://127.0.0.1:8000",
    api_key: ApiKey = None,
    language: Annotated[str, typer.Option(help="Language of rows without one.")] = "python",
    batch_size: Annotated[int, typer.Option(help="Submissions per request.")] = 32,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 4,
) -> None:
    """Keep the candidates that pass every test and are time-optimal.

    A row holds ``problem_id`` (a stored problem) or an inline ``problem``, and ``completion``
    (a model's answer; the code is extracted) or ``code``. Writes kept.jsonl, dropped.jsonl
    (with the reason) and summary.json to OUT; run it again on the same OUT to resume."""
    try:
        with JudgeClient(
            url, api_key=api_key, batch_size=batch_size, concurrency=concurrency
        ) as client:
            summary = sft_filter(candidates, client, out, language=language)
    except (JudgeClientError, ValueError, OSError) as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    except KeyboardInterrupt:
        console.print(f"interrupted: run the same command again to resume from {out}")
        raise typer.Exit(130) from None
    _print_sft(summary, out)
    raise typer.Exit(1 if summary.system_errors else 0)


def _print_sft(summary: SftSummary, out: Path) -> None:
    table = Table("problem", "candidates", "passed", "kept", "optimal class")
    for name, counts in sorted(summary.problems.items()):
        declared = "" if counts.declared else " (best passing)"
        table.add_row(
            name,
            str(counts.candidates),
            str(counts.passed),
            str(counts.kept),
            f"{counts.optimal_class or '-'}{declared}",
        )
    console.print(table)
    width = max(summary.classes.values(), default=1)
    for name, count in sorted(summary.classes.items()):
        console.print(f"  {name:>11} {'#' * max(1, round(30 * count / width))} {count}")
    console.print(
        f"{summary.candidates} candidates ({summary.judged_now} judged in this run): "
        f"{summary.passed} passed, {summary.kept} kept, {summary.system_errors} system errors; "
        f"{out / 'kept.jsonl'}"
    )


class Criterion(StrEnum):
    CORRECT = "correct"
    COMPLEXITY = "complexity"


def filter_command(
    problems: Annotated[
        Path,
        typer.Argument(
            exists=True, dir_okay=False, help="Problems: JSONL or parquet, with a prompt."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (resumable).")],
    base_url: Annotated[
        str | None, typer.Option(help="The policy's OpenAI-compatible endpoint (vLLM).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model name at --base-url.")] = None,
    model_dir: Annotated[
        Path | None, typer.Option(help="Or a local transformers model directory to sample from.")
    ] = None,
    chat: Annotated[bool, typer.Option(help="Send text prompts as a chat message.")] = False,
    policy_api_key: Annotated[str | None, typer.Option(envvar="POLICY_API_KEY")] = None,
    n: Annotated[int, typer.Option("--n", min=1, help="Samples per problem.")] = 8,
    kmin: Annotated[int, typer.Option(min=0, help="Keep problems with k >= kmin.")] = 1,
    kmax: Annotated[int, typer.Option(min=0, help="Keep problems with k <= kmax.")] = 5,
    criterion: Annotated[
        Criterion,
        typer.Option(help="correct: passes every test; complexity: and meets the optimal class."),
    ] = Criterion.CORRECT,
    temperature: Annotated[float, typer.Option(min=0.0)] = 1.0,
    top_p: Annotated[float, typer.Option(min=0.0, max=1.0)] = 1.0,
    max_tokens: Annotated[int, typer.Option(min=1)] = 1024,
    seed: Annotated[int | None, typer.Option(help="Sampling seed.")] = None,
    prompt_field: Annotated[str, typer.Option(help="The column holding the prompt.")] = "prompt",
    include_prompt: Annotated[
        bool,
        typer.Option(
            help="Judge prompt + completion (a completion that continues the prompt's code)."
        ),
    ] = False,
    language: Annotated[str, typer.Option(help="Language of rows without one.")] = "python",
    concurrency: Annotated[int, typer.Option(min=1, help="Problems in flight.")] = 4,
    url: Url = "http://127.0.0.1:8000",
    api_key: ApiKey = None,
) -> None:
    """Keep the problems the policy solves k of n times, kmin <= k <= kmax.

    Writes kept.jsonl and dropped.jsonl (each problem with k and its samples' verdicts),
    k_histogram.png and summary.json to OUT; run it again on the same OUT to resume."""
    if (base_url is None) == (model_dir is None) or (base_url is not None and not model):
        console.print("[red]error:[/red] give --base-url with --model, or --model-dir")
        raise typer.Exit(2)
    try:
        config = KofnConfig(
            kmin=kmin,
            kmax=kmax,
            criterion=criterion.value,
            language=language,
            prompt_field=prompt_field,
            include_prompt=include_prompt,
            concurrency=concurrency,
        )
        params = SamplingParams(
            n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed
        )
    except ValueError as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error

    async def run() -> KofnSummary:
        sampler: OpenAISampler | LocalSampler
        if model_dir is not None:
            sampler = LocalSampler(model_dir)
        else:
            sampler = OpenAISampler(str(base_url), str(model), api_key=policy_api_key, chat=chat)
        client = AsyncJudgeClient(
            url, api_key=api_key, batch_size=max(n, 8), concurrency=concurrency
        )
        try:
            return await kofn_filter(problems, sampler, client, out, config, params)
        finally:
            await client.aclose()
            await sampler.aclose()

    try:
        summary = asyncio.run(run())
    except (JudgeClientError, ValueError, OSError) as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    except KeyboardInterrupt:
        console.print(f"interrupted: run the same command again to resume from {out}")
        raise typer.Exit(130) from None
    _print_histogram(summary.histogram, kmin, kmax)
    console.print(
        f"{summary.problems} problems ({summary.done_now} done in this run): {summary.kept} "
        f"kept, {summary.dropped} dropped, {summary.failed} left for the next run (judge "
        f"failures); {out / 'kept.jsonl'}, {out / 'k_histogram.png'}"
    )
    raise typer.Exit(1 if summary.failed else 0)


def _print_histogram(histogram: list[int], kmin: int, kmax: int) -> None:
    width = max(histogram, default=1) or 1
    console.print("k  problems")
    for k, count in enumerate(histogram):
        mark = "kept" if kmin <= k <= kmax else ""
        bar = "#" * round(40 * count / width)
        console.print(f"{k:>2} {bar:<40} {count:>5} {mark}", highlight=False)


app = typer.Typer(help="Judge-service client tools.", no_args_is_help=True)
app.command("filter")(filter_command)
app.command("sft-filter")(sft_filter_command)
app.command("train")(train_command)


def main() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    app()
