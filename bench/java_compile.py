"""HumanEval-X's 164 Java programs (prompt, canonical solution, tests: one whole program each)
through the engine, compiled on the sandbox's warm javac against plain javac per job
(``JUDGE_WARM_COMPILERS=false``), measured in the same run: two pools of the same size, warmed
alike (containers started, a first batch judged), then judged in alternating rounds, each
round's programs new to the compile cache. Prints programs/s of each side, the ratio, the
median compile CPU per program and the load average.

    .venv/bin/python bench/java_compile.py [--rounds 1] [--sandboxes 4] [--programs 164]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import time
from pathlib import Path

from _table import Row, best

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "humaneval-x" / "java.jsonl.gz"
LIMITS = {"time_limit_ms": 10_000, "memory_limit_mb": 512}
WARM_UP = 8
PROGRAMS = 164


def programs(count: int) -> list[str]:
    with gzip.open(DATA, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return [row["prompt"] + row["canonical_solution"] + "\n" + row["test"] + "\n" for row in rows][
        :count
    ]


def jobs(codes: list[str], tag: str) -> list[Job]:
    """A comment makes each round's programs new to the compile cache."""
    return [
        Job(language="java", code=f"{code}// {tag}\n", tests=[{"output": ""}], limits=LIMITS)
        for code in codes
    ]


def judged(pool: SandboxPool, batch: list[Job], workers: int) -> tuple[float, list[JobResult]]:
    started = time.perf_counter()
    results = pool.judge_many(batch, workers=workers)
    elapsed = time.perf_counter() - started
    wrong = [(index, r.verdict) for index, r in enumerate(results) if r.verdict is not Verdict.AC]
    if wrong:
        raise SystemExit(f"not all AC: {wrong[:5]}")
    return len(batch) / elapsed, results


def compile_ms(results: list[JobResult]) -> float:
    return statistics.median(r.compile.time_ms for r in results if r.compile is not None)


def measure(rounds: int, sandboxes: int, count: int) -> tuple[Row, dict[str, float]]:
    codes = programs(count)
    warm_pool = SandboxPool(SandboxConfig(sandboxes_per_language=sandboxes, warm_compilers=True))
    plain_pool = SandboxPool(SandboxConfig(sandboxes_per_language=sandboxes, warm_compilers=False))
    with warm_pool, plain_pool:
        for pool in (warm_pool, plain_pool):
            pool.warm(["java"])
            judged(pool, jobs(codes[:WARM_UP], "warm-up"), sandboxes)
        warm_rates, plain_rates, warm_cpu, plain_cpu = [], [], [], []
        load = [os.getloadavg()[0]]
        for round_no in range(rounds):  # alternating, so both sides see the same machine
            order = [(warm_pool, warm_rates, warm_cpu), (plain_pool, plain_rates, plain_cpu)]
            for pool, rates, cpu in order if round_no % 2 == 0 else order[::-1]:
                rate, results = judged(pool, jobs(codes, f"round {round_no}"), sandboxes)
                rates.append(rate)
                cpu.append(compile_ms(results))
            load.append(os.getloadavg()[0])
    row = Row(
        f"HumanEval-X Java, {len(codes)} programs (engine, {sandboxes} sandboxes)",
        best(warm_rates),
        best(plain_rates),
        "programs/s",
        "plain javac per job",
        "python bench/java_compile.py",
        goal=">= 3x",
    )
    details = {
        "warm compile CPU ms (median)": min(warm_cpu),
        "plain compile CPU ms (median)": min(plain_cpu),
        "load average (1 min), highest seen": max(load),
    }
    return row, details


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sandboxes", type=int, default=4)
    parser.add_argument("--programs", type=int, default=PROGRAMS)
    args = parser.parse_args()
    row, details = measure(args.rounds, args.sandboxes, args.programs)
    print(f"{row.workload}: warm javac {row.ours:.2f} programs/s, plain javac {row.reference:.2f}")
    print(f"ratio {row.ratio:.2f}x (goal {row.goal})")
    for name, value in details.items():
        print(f"{name}: {value:.1f}")


if __name__ == "__main__":
    main()
