"""``judge train CONFIG`` (and ``rl-judge train``): the GRPO trainer with a progress display."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from rl_client.errors import JudgeClientError
from rl_client.grpo.config import describe_fields, load_config

if TYPE_CHECKING:
    from rl_client.grpo.trainer import StepReport

__all__ = ["train_command"]

console = Console(stderr=True)


def train_command(
    config: Annotated[
        Path | None,
        typer.Argument(exists=True, dir_okay=False, help="YAML file of GRPOConfig fields."),
    ] = None,
    overrides: Annotated[
        list[str] | None,
        typer.Option("--set", "-s", help="field=value (YAML value), applied after CONFIG."),
    ] = None,
    list_fields: Annotated[
        bool, typer.Option("--list-fields", help="List the configuration fields and exit.")
    ] = False,
    quiet: Annotated[bool, typer.Option(help="No progress display.")] = False,
) -> None:
    """Train a policy with GRPO against the judge: stage 1 rewards correctness, stage 2 adds
    the time reward (gated on passing every test); problems are filtered on-policy (solved k
    of n times, kmin <= k <= kmax) before each stage. Writes checkpoints, metrics.jsonl,
    TensorBoard events and curves.png to output_dir; run it again to resume."""
    if list_fields:
        table = Table("field", "default", "help")
        for name, default, text in describe_fields():
            table.add_row(name, default, text)
        Console().print(table)
        raise typer.Exit(0)
    try:
        settings = load_config(config, overrides)
    except (ValueError, OSError) as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    from rich.progress import (  # noqa: I001
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from rl_client.grpo.trainer import Trainer

    progress = Progress(
        TextColumn("[bold]stage {task.fields[stage]}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("reward {task.fields[reward]}  pass {task.fields[passed]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=quiet,
    )
    task = progress.add_task("train", total=None, stage="-", reward="-", passed="-")

    def show(report: StepReport) -> None:
        values = report.values
        progress.update(
            task,
            completed=report.step,
            total=report.total_steps,
            stage=report.stage,
            reward=f"{values['reward']:.3f}",
            passed=f"{values['pass_rate']:.2f}",
        )

    try:
        with progress:
            state = Trainer(settings, on_step=None if quiet else show).run()
    except (JudgeClientError, ValueError, OSError, RuntimeError) as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(2) from error
    except KeyboardInterrupt:
        console.print(
            f"interrupted: run the same command again to resume from {settings.output_dir}"
        )
        raise typer.Exit(130) from None
    out = Path(settings.output_dir)
    console.print(
        f"trained {state.step} steps; {out / 'metrics.jsonl'}, {out / 'curves.png'}, "
        f"{out / 'checkpoints'}"
    )
