"""``judge bench``: the benchmarks of ``bench/`` as one table. Each workload's figure stands
beside a reference measured in the same run (the bare floor: the same programs run outside any
sandbox; the engine called directly; ``/v1/judge``; one Celery worker), with the ratio and the
command that measures it alone in more detail.

    .venv/bin/python bench/suite.py [--rounds 3] [--only humaneval,stdin,...] [--out FILE]

Workloads (``--only`` names): ``humaneval`` (assert mode against the bare floor), ``stdin``
(20-test sum programs in Python, C++ and Java, 1 KB and 2 MB tests, against a plain loop over
the inputs in the same image), ``http`` (``/v1/judge`` against the engine, ``/run_code``
against ``/v1/judge``), ``submit`` (SandboxFusion's ``/submit`` against ``/v1/judge``),
``duplicates`` (a batch half of whose items repeat), ``complexity`` (seconds per candidate of
the static and the empirical judge), ``served`` (the fallback model server with the tiny test
model, built on the spot: 16 concurrent requests batched against one at a time, with random
weights and fitted), ``celery`` (two workers against one) and ``javac`` (HumanEval-X's 164
Java programs compiled on the warm javac against plain javac per job, one round of each: plain
javac takes minutes).

``--old CHECKOUT`` adds, to the ``submit`` workload, issue 17's ``/submit`` workload against
the service of an older checkout (``--old-prefix``: its images, ``deb12-`` by default), the two
services taking turns in this run (``bench/submit_ab.py``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the bench modules beside this file

import _engine_workloads as engine  # noqa: E402
import _http_workloads as http  # noqa: E402
import java_compile  # noqa: E402
import submit_ab  # noqa: E402
from _served_workload import served  # noqa: E402
from _table import BEGIN, Row, markdown, replace_block  # noqa: E402

from complexity_model.empirical import EmpiricalComplexityJudge  # noqa: E402
from complexity_model.empirical.problems import BENCHMARK, problem_of  # noqa: E402
from complexity_model.problem import ComplexityProblem  # noqa: E402
from complexity_model.static import StaticComplexityJudge  # noqa: E402
from judge_service.sandbox.pool import SandboxPool  # noqa: E402

WORKLOADS = (
    "humaneval",
    "stdin",
    "http",
    "submit",
    "duplicates",
    "complexity",
    "served",
    "celery",
    "javac",
)
FUNCTION_MODE = Path(__file__).resolve().parents[1] / "complexity_model/data/function_mode.jsonl"
EMPIRICAL_CASES = ("prefix-sums", "stdin-distinct-values")


def complexity_rows(pool: SandboxPool) -> list[Row]:
    programs = [json.loads(line) for line in FUNCTION_MODE.read_text().splitlines() if line]
    static = StaticComplexityJudge()
    started = time.perf_counter()
    for program in programs:
        problem = ComplexityProblem(mode="function", entry_point=program["entry_point"])
        static.estimate(program["code"], program["language"], problem)
    static_ms = (time.perf_counter() - started) / len(programs) * 1000
    judge = EmpiricalComplexityJudge(pool)
    seconds = []
    for case in (case for case in BENCHMARK if case.id in EMPIRICAL_CASES):
        problem = problem_of(case)
        for language, _, code in case.pairs():
            started = time.perf_counter()
            judge.estimate(code, language, problem)
            seconds.append(time.perf_counter() - started)
    return [
        Row(
            f"Static complexity, {len(programs)} function-mode programs",
            static_ms,
            None,
            "ms per candidate",
            "",
            "judge complexity evaluate complexity_model/data/function_mode.jsonl",
            higher_is_better=False,
        ),
        Row(
            f"Empirical complexity, {len(seconds)} candidates of {len(EMPIRICAL_CASES)} problems",
            sum(seconds) / len(seconds),
            None,
            "s per candidate",
            "",
            "python bench/empirical_complexity.py",
            higher_is_better=False,
            goal="<= 3 s",
        ),
    ]


class Stopwatch:
    """Seconds each workload took: the heading names them, so a slow one shows."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.monotonic() - started
        print(f"judge bench: {name} took {self.seconds[name]:.0f} s", file=sys.stderr, flush=True)

    def summary(self) -> str:
        return ", ".join(f"{name} {seconds:.0f} s" for name, seconds in self.seconds.items())


def run(
    only: set[str],
    rounds: int,
    sandboxes: int,
    old: Path | None,
    old_prefix: str | None,
    timed: Stopwatch,
) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as directory:
        if only & {"humaneval", "stdin", "complexity"}:
            with engine.open_pool(sandboxes) as pool:
                if "humaneval" in only:
                    with timed("humaneval"):
                        rows.append(engine.humaneval(pool, rounds))
                if "stdin" in only:
                    with timed("stdin"):
                        for language in ("python", "cpp", "java"):
                            for size in engine.SIZES:
                                rows.append(engine.stdin(pool, language, size, rounds))
                if "complexity" in only:
                    with timed("complexity"):
                        rows += complexity_rows(pool)
        served_by_http = [name for name in ("http", "submit", "duplicates") if name in only]
        if served_by_http:  # one service for the three
            with timed("+".join(served_by_http)):
                rows += http.http(directory, sandboxes, rounds, only)
        if "submit" in only and old is not None:
            with timed("submit --old"):
                rows.append(submit_ab.row(old, old_prefix, rounds + 1, sandboxes))
        if "served" in only:
            with timed("served"):
                rows += [served(rounds, fitted=False), served(rounds, fitted=True)]
        if "celery" in only:
            with timed("celery"):
                rows.append(http.celery(directory, sandboxes, rounds))
        if "javac" in only:
            with timed("javac"):
                rows.append(java_compile.measure(1, sandboxes, java_compile.PROGRAMS)[0])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sandboxes", type=int, default=2, help="per language and process")
    parser.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    parser.add_argument("--out", type=Path, help="also write the table (Markdown) here")
    parser.add_argument(
        "--readme", type=Path, help="also put the table between this file's judge bench markers"
    )
    parser.add_argument("--old", type=Path, help="submit: also against this older checkout")
    parser.add_argument("--old-prefix", default="deb12-", help="--old's images ('': its own)")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    unknown = only - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workload(s) {sorted(unknown)}; choose from {', '.join(WORKLOADS)}")
    if args.old is not None and not (args.old / "judge_service").is_dir():
        parser.error(f"--old {args.old}: not a checkout of this project (no judge_service/)")
    if args.readme is not None and BEGIN not in args.readme.read_text():
        parser.error(f"--readme {args.readme}: no {BEGIN} marker")
    started = time.monotonic()
    began = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_before = submit_ab.load()
    timed = Stopwatch()
    rows = run(only, args.rounds, args.sandboxes, args.old, args.old_prefix or None, timed)
    command = f"judge bench --rounds {args.rounds}"
    command += f" --only {args.only}" if only != set(WORKLOADS) else ""
    command += f" --old {args.old}" if args.old else ""
    heading = (
        f"`{command}` on {began}, {platform.node()}, best round of "
        f"each side; {time.monotonic() - started:.0f} s in all ({timed.summary()}).\n\n"
        f"Load before: `{load_before}`; after: `{submit_ab.load()}`"
    )
    table = f"{heading}\n\n{markdown(rows)}\n"
    print(table)
    if args.out:
        args.out.write_text(table)
    if args.readme:
        args.readme.write_text(replace_block(args.readme.read_text(), table))


if __name__ == "__main__":
    main()
