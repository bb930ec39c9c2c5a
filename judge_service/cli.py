"""The ``judge`` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from complexity_model.cli import app as complexity_app
from judge_service.exceptions import InvalidJobError, JudgeError
from judge_service.sandbox.images import LANGUAGES, build_images
from judge_service.sandbox.models import Checker, CheckerKind, Job, JobResult, Limits, TestMode
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings, get_settings
from rl_client.cli import filter_command, sft_filter_command, train_command

app = typer.Typer(help="Code-execution judge and complexity-reward service.", no_args_is_help=True)
images_app = typer.Typer(help="Sandbox images.", no_args_is_help=True)
app.add_typer(images_app, name="images")
app.add_typer(complexity_app, name="complexity")
# The data filters are rl_client's (they speak HTTP to a running service).
app.command("filter")(filter_command)
app.command("sft-filter")(sft_filter_command)
app.command("train")(train_command)
console = Console()


@images_app.command("build")
def images_build(
    lang: Annotated[
        list[str] | None, typer.Option("--lang", "-l", help="Language(s); default: all.")
    ] = None,
    rebuild: Annotated[bool, typer.Option(help="Rebuild even when up to date.")] = False,
) -> None:
    """Build the sandbox images as JUDGE_IMAGE_PREFIX<language>, the names the pool starts
    sandboxes from (making debian:trixie-slim locally when it cannot be pulled)."""
    try:
        tags = build_images(
            lang or None,
            prefix=get_settings().image_prefix,
            log=lambda line: console.print(line, markup=False, highlight=False),
            rebuild=rebuild,
        )
    except (JudgeError, ValueError) as error:
        console.print(f"[red]error:[/red] {error}")
        raise typer.Exit(1) from error
    console.print(f"ready: {', '.join(tags)}")


@app.command("run")
def run(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Source file.")],
    lang: Annotated[str, typer.Option("--lang", "-l", help=f"One of {', '.join(LANGUAGES)}.")],
    tests: Annotated[
        Path, typer.Option("--tests", "-t", exists=True, dir_okay=False, help="Tests, JSON lines.")
    ],
    mode: Annotated[TestMode, typer.Option(help="How tests run.")] = TestMode.STDIN,
    entry_point: Annotated[str | None, typer.Option(help="Function or Solution.method.")] = None,
    checker: Annotated[CheckerKind, typer.Option(help="Output checker.")] = CheckerKind.TOKENS,
    time_limit_ms: Annotated[int, typer.Option(help="CPU time per test.")] = 2000,
    memory_limit_mb: Annotated[int, typer.Option(help="Memory per test.")] = 256,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Judge one program locally and print a table of per-test verdicts and times."""
    try:
        cases = [json.loads(line) for line in tests.read_text().splitlines() if line.strip()]
        job = Job(
            language=lang,
            code=file.read_text(),
            tests=cases,
            mode=mode,
            entry_point=entry_point,
            checker=Checker(kind=checker),
            limits=Limits(time_limit_ms=time_limit_ms, memory_limit_mb=memory_limit_mb),
        )
    except (ValueError, ValidationError) as error:
        console.print(f"[red]invalid job:[/red] {error}")
        raise typer.Exit(2) from error
    try:
        with SandboxPool(Settings(sandboxes_per_language=1)) as pool:
            result = pool.judge(job)
    except InvalidJobError as error:
        console.print(f"[red]invalid job:[/red] {error}")
        raise typer.Exit(2) from error
    except JudgeError as error:
        console.print(f"[red]system error:[/red] {error}")
        raise typer.Exit(3) from error
    if as_json:
        print(result.model_dump_json(indent=2))
    else:
        _print_result(result)
    raise typer.Exit(0 if result.verdict.value == "AC" else 1)


@app.command("serve")
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Start the API (with an in-process worker when no broker is configured)."""
    # Each long-running command loads only its own stack: the API's here, Celery's in worker.
    import uvicorn

    from judge_service.api import create_app

    settings = get_settings()
    mode = f"Celery broker {settings.broker_url}" if settings.broker_url else "in-process worker"
    console.print(f"judge-service on http://{host}:{port} ({mode}, store {settings.database_url})")
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


@app.command("worker")
def worker(
    name: Annotated[str | None, typer.Option("--name", "-n", help="Celery node name.")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Chunks judged at once.")] = None,
) -> None:
    """Start a Celery worker that owns this machine's sandbox pools (needs JUDGE_BROKER_URL)."""
    from judge_service.worker.runner import run_worker

    run_worker(get_settings(), name, concurrency)


@app.command("bench")
def bench(
    only: Annotated[
        str | None, typer.Option(help="Comma-separated workloads (default: all).")
    ] = None,
    rounds: Annotated[int, typer.Option(help="Rounds of each side; the best counts.")] = 3,
    out: Annotated[Path | None, typer.Option(help="Also write the table (Markdown) here.")] = None,
    readme: Annotated[
        Path | None,
        typer.Option(help="Also put the table between this file's judge bench markers."),
    ] = None,
    old: Annotated[
        Path | None,
        typer.Option(help="submit: also /submit against this older checkout's service."),
    ] = None,
    old_prefix: Annotated[
        str, typer.Option(help="--old's sandbox images' prefix ('': its own default).")
    ] = "deb12-",
) -> None:
    """Run the benchmarks of bench/ and print one table: each figure beside a reference
    measured in the same run (needs a checkout: bench/ is not installed)."""
    suite = Path(__file__).resolve().parents[1] / "bench" / "suite.py"
    if not suite.is_file():
        console.print(f"[red]{suite} not found:[/red] run judge bench from a checkout of the repo")
        raise typer.Exit(2)
    command = [sys.executable, str(suite), "--rounds", str(rounds)]
    command += ["--only", only] if only else []
    command += ["--out", str(out)] if out else []
    command += ["--readme", str(readme)] if readme else []
    command += ["--old", str(old), "--old-prefix", old_prefix] if old else []
    raise typer.Exit(subprocess.run(command, check=False).returncode)


def _print_result(result: JobResult) -> None:
    if result.compile is not None:
        cached = " (cached)" if result.compile.cached else ""
        state = "ok" if result.compile.ok else "failed"
        console.print(f"compile: {state}{cached}, {result.compile.time_ms:.0f} ms")
        if result.compile.output.strip():
            console.print(result.compile.output, markup=False, highlight=False)
    table = Table("#", "verdict", "cpu ms", "wall ms", "memory KB", "exit", "message")
    for index, test in enumerate(result.tests, 1):
        exit_text = f"sig {test.signal}" if test.signal else str(test.exit_code)
        colour = "green" if test.verdict.value == "AC" else "red"
        table.add_row(
            str(index),
            f"[{colour}]{test.verdict.value}[/{colour}]",
            f"{test.time_ms:.1f}",
            f"{test.wall_ms:.1f}",
            str(test.memory_kb),
            exit_text,
            test.message[:80],
        )
    console.print(table)
    console.print(
        f"verdict: {result.verdict.value}, passed {result.passed}/{result.total}, "
        f"{result.duration_ms:.0f} ms"
    )
    if result.system_error:
        console.print(f"[red]system error:[/red] {result.system_error}")


def main() -> None:
    app()
