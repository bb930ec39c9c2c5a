"""Plots of measured time against n, and ``judge complexity plot``.

One PNG: log-log axes, each program's measured points (hollow markers for censored ones, the
timeouts) and the curve of the class it was fitted to, so that a reader can see why a class
was chosen. The candidate and the reference are measured on the same inputs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from complexity_model.empirical.judge import EmpiricalComplexityJudge, Measurement
from complexity_model.problem import ComplexityProblem
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import JudgeError
from judge_service.sandbox.pool import SandboxPool

__all__ = ["plot_command", "plot_measurements"]


def plot_measurements(measurements: dict[str, Measurement], out: Path, title: str = "") -> Path:
    """Write the PNG of ``measurements`` (label -> measurement) to ``out``; returns ``out``."""
    # matplotlib takes seconds to import (pyplot, imported once the backend is chosen, most of
    # them): only a plot pays for it, not every `judge` command, which registers this module.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=110)
    for (label, measured), colour in zip(
        measurements.items(), ("tab:blue", "tab:orange", "tab:green"), strict=False
    ):
        timed = [p for p in measured.points if not p.censored]
        censored = [p for p in measured.points if p.censored]
        predicted = measured.predicted
        axes.scatter(
            [p.n for p in timed],
            [p.seconds for p in timed],
            s=14,
            color=colour,
            label=f"{label}: {predicted} (confidence {measured.confidence:.2f})",
        )
        if censored:
            axes.scatter(
                [p.n for p in censored],
                [p.seconds for p in censored],
                s=40,
                facecolors="none",
                edgecolors=colour,
                label=f"{label}: timed out (censored)",
            )
        fit = measured.fit.fits.get(measured.fit.predicted)
        if fit is not None and measured.points:
            sizes = sorted({p.n for p in measured.points})
            axes.plot(
                sizes, [max(fit.predict(n), 1e-9) for n in sizes], color=colour, linewidth=1.2
            )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("input size n")
    axes.set_ylabel("CPU seconds per call (minimum of repeats)")
    axes.set_title(title or "measured time and fitted class")
    axes.grid(True, which="both", alpha=0.25)
    axes.legend(fontsize=8)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, format="png")
    plt.close(figure)
    return out


def plot_command(
    problem: Annotated[
        Path,
        typer.Option(
            exists=True, dir_okay=False, help="Problem JSON (with input_generator, entry_point)."
        ),
    ],
    code: Annotated[
        Path, typer.Option(exists=True, dir_okay=False, help="The candidate's source.")
    ],
    out: Annotated[Path, typer.Option(help="Where the PNG goes.")] = Path("complexity.png"),
    language: Annotated[str, typer.Option(help="The candidate's language.")] = "python",
) -> None:
    """Time a candidate (and the problem's reference, on the same inputs) and plot both."""
    try:
        parsed = ComplexityProblem.model_validate(json.loads(problem.read_text()))
    except (ValueError, ValidationError) as error:
        raise typer.BadParameter(f"not a valid problem: {error}", param_hint="--problem") from error
    try:
        with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
            judge = EmpiricalComplexityJudge(pool)
            compared = judge.compare(code.read_text(), language, parsed)
    except JudgeError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(1) from error
    if "reason" in compared:
        typer.echo(f"cannot measure: {compared['reason']}", err=True)
        raise typer.Exit(2)
    measurements = {"candidate": compared["candidate"], "reference": compared["reference"]}
    plot_measurements(measurements, out, title=f"{parsed.id} (optimal {parsed.optimal_complexity})")
    for label, measured in measurements.items():
        line = f"{label}: {measured.predicted} (confidence {measured.confidence:.2f})"
        typer.echo(line + (f"; {measured.reason}" if measured.reason else ""))
    typer.echo(f"wrote {out}")
