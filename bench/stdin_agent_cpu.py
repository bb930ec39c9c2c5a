"""The agent's own CPU per stdin test: the 20-test sum program of ``language_overhead.py``,
ten times over (200 tests a job), judged ``--jobs`` times in one sandbox; the agent's CPU is
read from its process on the host (``/proc/PID/stat``) before and after. CPU, not wall: it
moves little when other work shares the machine, so two checkouts can be compared run by run
(``PYTHONPATH`` pointing at each, alternately).

    PYTHONPATH=. .venv/bin/python bench/stdin_agent_cpu.py [--languages c,go] [--jobs 20]
"""

from __future__ import annotations

import argparse
import os
import time

from language_overhead import SUM_PROGRAMS, TESTS  # bench/, beside this file

from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

try:  # the engine's own config since the layering; the service's Settings before
    from judge_service.sandbox.config import SandboxConfig as Config
except ImportError:  # pragma: no cover - older checkouts
    from judge_service.settings import Settings as Config  # type: ignore[assignment]

TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--languages", default="c,go")
    parser.add_argument("--jobs", type=int, default=20)
    args = parser.parse_args()
    with SandboxPool(Config(sandboxes_per_language=1)) as pool:
        for language in args.languages.split(","):
            job = Job(language=language, code=SUM_PROGRAMS[language], tests=TESTS * 10)
            assert pool.judge(job).verdict is Verdict.AC  # compiled and cached
            (box,) = pool._pools[language].idle
            box._container.reload()
            agent_pid = box._container.attrs["State"]["Pid"]
            before, started = process_cpu_s(agent_pid), time.perf_counter()
            for _ in range(args.jobs):
                assert pool.judge(job).verdict is Verdict.AC
            tests = args.jobs * len(job.tests)
            agent_ms = (process_cpu_s(agent_pid) - before) * 1000 / tests
            wall_ms = (time.perf_counter() - started) * 1000 / tests
            print(f"{language}: agent CPU per test {agent_ms:.3f} ms, wall {wall_ms:.3f} ms")


if __name__ == "__main__":
    main()
