"""CPU per job of the 20-test stdin sum problems of ``judge bench --only stdin``, against the CPU
of the plain loop over the same inputs in a throwaway container of the same image. CPU time,
not wall time: it barely moves when other work shares the machine, so two versions of the
engine can be compared on a busy host (run this file from each checkout with PYTHONPATH
pointing at it, alternately).

A job's CPU is its sandbox container's (cgroup v1 ``cpuacct``: the agent and the program), this
process's (building and sending the frame, reading the reply) and the container's containerd
shim's (it relays the attach stream); the Docker daemon's share of the relay is left out (it
serves every container on the host). The plain loop's is what ``times`` reports for the
loop's children.

    PYTHONPATH=. .venv/bin/python bench/stdin_cpu.py [--languages cpp,python] [--sizes 1KB,2MB]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import time

from _engine_workloads import (  # bench/, beside this file
    SIZES,
    SUM_PROGRAMS,
    _tests,
    plain_loop_output,
)

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

# Under Docker's default parent (older checkouts) or the judge's own (judge_sandboxes).
CPUACCT = "/sys/fs/cgroup/cpuacct/*/{}/cpuacct.usage"


def container_cpu_s(container: str) -> float:
    with open(glob.glob(CPUACCT.format(container))[0]) as usage:
        return int(usage.read()) / 1e9


def shim_cpu_s(container: str) -> float:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read()
            if b"containerd-shim" not in command or container.encode() not in command:
                continue
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return 0.0


def plain_loop_cpu_s(language: str, tests: list[dict[str, str]], rounds: int, prefix: str) -> float:
    """The least CPU of ``rounds`` runs of the program over every input (compiled once)."""
    loop = (
        f"for r in $(seq {rounds}); do times; for f in /data/in*; do $RUN < $f > /dev/null;"
        " done; done; times"
    )
    output = plain_loop_output(language, tests, prefix, loop)

    def seconds(token: str) -> float:
        minutes, secs = token.rstrip("s").split("m")
        return int(minutes) * 60 + float(secs)

    lines = output.strip().splitlines()
    # `times` prints the shell's user and system time, then its children's.
    children = [sum(map(seconds, lines[i].split())) for i in range(1, len(lines), 2)]
    return min(after - before for before, after in zip(children, children[1:], strict=False))


def measure(pool: SandboxPool, language: str, size: str, rounds: int) -> str:
    tests = _tests(SIZES[size], seed=len(size) * 31 + len(language))
    job = Job(
        language=language,
        code=SUM_PROGRAMS[language],
        tests=tests,
        limits={"time_limit_ms": 10_000, "memory_limit_mb": 256},
    )
    pool.judge(job)  # starts the sandbox, compiles, sends the tests
    pool.judge(job)
    (sandbox,) = pool._pools[language].idle
    totals, walls = [], []
    for _ in range(rounds):
        before = (container_cpu_s(sandbox.id), time.process_time(), shim_cpu_s(sandbox.id))
        started = time.perf_counter()
        result = pool.judge(job)
        walls.append(time.perf_counter() - started)
        after = (container_cpu_s(sandbox.id), time.process_time(), shim_cpu_s(sandbox.id))
        if result.verdict is not Verdict.AC:
            raise SystemExit(f"{language} {size}: {result.verdict}")
        totals.append(sum(a - b for a, b in zip(after, before, strict=True)))
    floor = plain_loop_cpu_s(language, tests, rounds, pool.settings.image_prefix)
    ours = min(totals)
    return (
        f"{language:6s} {size:4s}: CPU per job {ours * 1000:7.1f} ms (median "
        f"{statistics.median(totals) * 1000:7.1f}), plain loop {floor * 1000:7.1f} ms, ratio "
        f"{ours / floor:5.2f}x; wall per job {min(walls) * 1000:6.0f} ms; "
        f"load {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", default="cpp,python")
    parser.add_argument("--sizes", default="1KB,2MB")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        for language in args.languages.split(","):
            for size in args.sizes.split(","):
                print(measure(pool, language, size, args.rounds), flush=True)


if __name__ == "__main__":
    main()
