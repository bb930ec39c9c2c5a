"""Evaluate a complexity backend on labelled programs (default: CodeComplex dev half).

``python -m complexity_model.evaluate`` or ``judge complexity evaluate``; ``--backend static``
(default) runs :class:`StaticComplexityJudge`, ``--backend served`` asks a served model
(``--base-url``, ``--model``), ``--backend empirical`` times the labelled solutions of
problems in the sandbox (:mod:`._empirical_evaluate`; ``--derive``: with generators derived
from the tests). A row's class is its ``complexity`` or else its ``label``; a row
with an ``entry_point`` (:data:`FUNCTION_MODE_DATA`) is judged from that function, as in
function mode. Prints, per language and overall, exact-class accuracy,
macro-F1, within-one-class accuracy, per-class precision/recall/F1/support, a confusion
matrix and the time per program; ``--json PATH`` writes the same numbers.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from complexity_model._empirical_evaluate import predict_empirical
from complexity_model._metrics import ClassScores, Report, format_report, score
from complexity_model.ladder import ComplexityEstimate, normalise_class
from complexity_model.served import ServedModelJudge
from complexity_model.static import StaticComplexityJudge

DEFAULT_DATA = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "codecomplex_dev.jsonl"
)
# Hand-written LeetCode and HumanEval style functions and Solution methods, with entry points.
FUNCTION_MODE_DATA = Path(__file__).resolve().parent / "data" / "function_mode.jsonl"
BACKENDS = ("static", "served", "empirical")


@dataclass(frozen=True)
class _EntryPoint:
    """The part of a problem the static judge reads."""

    entry_point: str | None


def load_rows(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Rows with at least ``code``, ``language`` and ``complexity`` or ``label`` (a ladder
    class), and optionally ``entry_point``."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def _predict(
    rows: Sequence[dict[str, Any]], backend: str, base_url: str | None, model: str | None
) -> tuple[list[ComplexityEstimate], list[float]]:
    """Estimates and per-program seconds (a batched backend reports its mean for each)."""
    items = [(str(row["code"]), str(row["language"])) for row in rows]
    if backend == "static":
        judge = StaticComplexityJudge()
        estimates, seconds = [], []
        for row, (code, language) in zip(rows, items, strict=True):
            problem = _EntryPoint(row["entry_point"]) if row.get("entry_point") else None
            start = time.perf_counter()
            estimates.append(judge.estimate(code, language, problem))
            seconds.append(time.perf_counter() - start)
        return estimates, seconds
    if not base_url or not model:
        raise typer.BadParameter("--backend served needs --base-url and --model")
    served = ServedModelJudge(base_url=base_url, model=model)
    start = time.perf_counter()
    estimates = list(served.estimate_many(items))
    mean = (time.perf_counter() - start) / max(len(items), 1)
    return estimates, [mean] * len(items)


def run_evaluation(
    rows: Sequence[dict[str, Any]],
    backend: str = "static",
    base_url: str | None = None,
    model: str | None = None,
    derive: bool = False,
) -> dict[str, Any]:
    """Predict every row and score per language and overall; returns the numbers as a dict.
    ``empirical``: the rows are problems with labelled ``solutions``, each solution scored."""
    preparation: dict[str, float] = {}
    if backend == "empirical":
        run = predict_empirical(rows, derive)
        rows, estimates, seconds, preparation = (
            run.rows,
            run.estimates,
            run.seconds,
            run.preparation_s,
        )
    else:
        estimates, seconds = _predict(rows, backend, base_url, model)
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        groups.setdefault(str(row["language"]), []).append(index)
    if len(groups) > 1:
        groups["all"] = list(range(len(rows)))
    results: dict[str, Any] = {"backend": backend, "languages": {}}
    for language, indices in groups.items():
        report = score(
            [_truth(rows[i]) for i in indices], [estimates[i].predicted for i in indices]
        )
        times = sorted(seconds[i] * 1000 for i in indices)
        timing = {
            "ms_per_program_mean": statistics.fmean(times) if times else 0.0,
            "ms_per_program_p95": times[int(0.95 * (len(times) - 1))] if times else 0.0,
            "ms_per_program_max": times[-1] if times else 0.0,
        }
        results["languages"][language] = {**report.as_dict(), **timing}
    if preparation:
        # Per problem, before its candidates (the generator derived, the reference measured):
        # apart from the seconds per program, which are each candidate's own.
        prepared = sorted(preparation.values())
        results["preparation_s"] = {
            "per_problem": preparation,
            "mean": statistics.fmean(prepared),
            "p95": prepared[int(0.95 * (len(prepared) - 1))],
            "max": prepared[-1],
        }
    return results


def _truth(row: dict[str, Any]) -> str:
    if "complexity" in row:
        return str(row["complexity"])
    label = str(row["label"])
    return normalise_class(label) or label


def format_results(results: dict[str, Any]) -> str:
    blocks = []
    for language, numbers in results["languages"].items():
        report = Report(
            count=numbers["count"],
            accuracy=numbers["accuracy"],
            macro_f1=numbers["macro_f1"],
            within_one=numbers["within_one"],
            per_class={cls: ClassScores(**scores) for cls, scores in numbers["per_class"].items()},
            confusion=numbers["confusion"],
        )
        blocks.append(format_report(f"{results['backend']} / {language}", report))
        blocks.append(
            f"time per program: mean {numbers['ms_per_program_mean']:.2f} ms, "
            f"p95 {numbers['ms_per_program_p95']:.2f} ms, "
            f"max {numbers['ms_per_program_max']:.2f} ms"
        )
    prepared = results.get("preparation_s")
    if prepared:
        blocks.append(
            f"preparation per problem (before its candidates, not in the times above): "
            f"mean {prepared['mean']:.2f} s, p95 {prepared['p95']:.2f} s, "
            f"max {prepared['max']:.2f} s, {len(prepared['per_problem'])} problems"
        )
    return "\n\n".join(blocks)


def evaluate(
    data: Annotated[
        Path,
        typer.Option(
            "--data",
            help="JSONL: code, language, complexity or label, optional entry_point; "
            f"the function-mode set is {FUNCTION_MODE_DATA}",
        ),
    ] = DEFAULT_DATA,
    backend: Annotated[
        str, typer.Option("--backend", help="static, served or empirical (problems with solutions)")
    ] = "static",
    base_url: Annotated[str | None, typer.Option("--base-url", help="served: base URL")] = None,
    model: Annotated[str | None, typer.Option("--model", help="served: model name")] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="write the numbers")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="only the first N rows")] = None,
    derive: Annotated[
        bool,
        typer.Option(
            "--derive", help="empirical: drop the authors' generators, derive them from the tests"
        ),
    ] = False,
) -> None:
    """Score a complexity backend on labelled programs and print the metrics."""
    if backend not in BACKENDS:
        raise typer.BadParameter(f"--backend must be one of {', '.join(BACKENDS)}")
    if not data.exists():
        raise typer.BadParameter(f"no data file at {data}")
    rows = load_rows(data, limit)
    results = run_evaluation(rows, backend, base_url, model, derive)
    results["data"] = str(data)
    results["derived_generators"] = derive
    typer.echo(format_results(results))
    if json_path is not None:
        json_path.write_text(json.dumps(results, indent=2), encoding="utf-8")
        typer.echo(f"\nwrote {json_path}")


def main() -> None:
    typer.run(evaluate)


if __name__ == "__main__":
    main()
