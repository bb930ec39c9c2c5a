"""How many sandboxes' programs are on a CPU or waiting for one, sampled from the kernel every
few milliseconds until SIGTERM, then written as JSON (one count per sample).

Run as its own process at a real-time priority (``chrt -f``), so that a sample is not
interrupted by the programs it counts: a sample taken by a thread of a busy test process could
be preempted between two sandboxes for tens of milliseconds and count a program that had
ended beside the one that took its CPU.

    python -m tests.api._runnable_sampler CGROUP_PARENT OUT_FILE
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path


def runnable_programs(parent: str) -> int:
    """Programs (processes two levels below their sandbox's first: the agent starts the
    helpers, a helper the program) in state R, over every sandbox under ``parent``."""
    runnable = 0
    for procs in Path(f"/sys/fs/cgroup/pids/{parent}").glob("*/cgroup.procs"):
        try:
            pids = {int(pid) for pid in procs.read_text().split()}
        except OSError:
            continue  # removed meanwhile
        stats = {}
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[pid] = (fields[0], int(fields[1]))  # state, parent
        first = {pid for pid, (_, ppid) in stats.items() if ppid not in pids}
        helpers = {pid for pid, (_, ppid) in stats.items() if ppid in first}
        runnable += sum(state == "R" for state, ppid in stats.values() if ppid in helpers)
    return runnable


def main() -> None:
    parent, out = sys.argv[1], Path(sys.argv[2])
    counts: list[int] = []
    stopped = False

    def stop(*_: object) -> None:
        nonlocal stopped
        stopped = True

    signal.signal(signal.SIGTERM, stop)
    while not stopped:
        counts.append(runnable_programs(parent))
        time.sleep(0.003)
    out.write_text(json.dumps(counts))


if __name__ == "__main__":
    main()
