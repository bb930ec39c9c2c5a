"""``judge complexity derive``: derive input generators for a file of problems and save them.

Each JSON line is a problem as the service takes it. A problem without ``input_generator``
gets one derived from its tests, validated by its reference in the sandbox (``--no-validate``:
structure only, nothing runs), written into the line as ``input_generator`` with
``input_generator_derived: true`` beside it, so a later judge reads it as an author's. A
problem whose tests show no input that grows, or whose reference refuses the derived inputs,
is written back unchanged and reported.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from complexity_model.derive.judge import derive_problem
from complexity_model.problem import ComplexityProblem

__all__ = ["derive_command"]


def derive_command(
    problems: Annotated[Path, typer.Argument(help="JSONL of problems with tests")],
    out: Annotated[
        Path | None, typer.Option("--out", help="write here (default: in place)")
    ] = None,
    validate: Annotated[
        bool, typer.Option("--validate/--no-validate", help="run the reference on the inputs")
    ] = True,
    replace: Annotated[
        bool, typer.Option("--replace", help="derive even where an author's generator exists")
    ] = False,
) -> None:
    """Derive an input generator from each problem's tests and write it into the problem."""
    lines = [line for line in problems.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows: list[dict[str, Any]] = [json.loads(line) for line in lines]
    derived_count = 0
    if validate:
        from complexity_model.empirical import EmpiricalComplexityJudge
        from judge_service.sandbox.config import SandboxConfig
        from judge_service.sandbox.pool import SandboxPool

        with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
            judge = EmpiricalComplexityJudge(pool)
            derived_count = sum(_derive_row(row, judge, replace) for row in rows)
    else:
        derived_count = sum(_derive_row(row, None, replace) for row in rows)
    target = out or problems
    target.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    typer.echo(f"derived {derived_count} of {len(rows)} generators; wrote {target}")


def _derive_row(row: dict[str, Any], judge: Any, replace: bool) -> bool:
    if row.get("input_generator") and not replace:
        return False
    problem = ComplexityProblem.model_validate({**row, "input_generator": None})
    started = time.perf_counter()
    derived = derive_problem(problem, judge)
    took = f" in {time.perf_counter() - started:.2f} s"  # the preparation a candidate is spared
    name = row.get("id", "?")
    if derived.problem is None:
        typer.echo(f"{name}: not derived{took}: {derived.reason}")
        return False
    row["input_generator"] = derived.problem.input_generator
    row["input_generator_derived"] = True
    discarded = f" ({len(derived.discarded)} inputs drawn again)" if derived.discarded else ""
    typer.echo(f"{name}: derived{took}{discarded}")
    return True
