"""A soak: 10,000 mixed submissions over 10 minutes against a real service; nothing may be lost,
duplicated or misjudged, and the service's memory must not grow.

Starts the service in processes of its own: by default ``judge serve`` with Celery workers on
this machine's Redis (``--workers`` of them; SQLite store), or with ``--embedded`` on embedded
defaults (in-process dispatcher). This process is the client: it sends the submissions (see
``_soak_mix.py``: Python, C++ and JavaScript; AC, WA, RE, CE, TLE, MLE, a fork bomb, endless
output; stdin, function and assert mode) spread evenly over ``--duration``, as single
submissions and batches through ``/v1/judge``, batches through ``/v1/submissions`` then
polling, single programs through ``/run_code`` and rows through ``/openrlhf/reward``, up to
``--in-flight`` requests at once.

Checks: every submission id is answered exactly once, with a verdict its kind may get (a
``/run_code`` status, an OpenRLHF score); and the resident memory of the API and worker
processes (``/proc/PID/status``) once the load is over is within 10% of what it was after the
warm-up (the first ``--warmup`` seconds of load, default a tenth). Prints a summary and exits 1
when a check fails.

    .venv/bin/python bench/soak.py                       # 10,000 in 10 minutes, Celery
    .venv/bin/python bench/soak.py --count 500 --duration 60 --embedded
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _soak_mix import KINDS, Submission, make, problems  # noqa: E402

REDIS = "redis://127.0.0.1:6379/9"
RLHF_KINDS = [kind for kind in KINDS if kind.name in ("py AC", "py WA", "py RE")]
RUN_CODE_KINDS = [kind for kind in KINDS if kind.run_code_status]
# (endpoint, share of requests, sizes): singles dominate, as verl's per-test requests do.
REQUESTS = [
    ("judge", 50, [1]),
    ("judge", 12, [4, 16, 64]),
    ("submissions", 8, [8, 32, 128]),
    ("run_code", 20, [1]),
    ("openrlhf", 10, [4, 16]),
]


@dataclass
class Tally:
    answers: Counter[str] = field(default_factory=Counter)  # submission id -> times answered
    wrong: list[str] = field(default_factory=list)
    by_kind: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    failed_requests: list[str] = field(default_factory=list)

    def answer(self, sub: Submission, seen: str, right: bool, cached: bool = False) -> None:
        self.answers[sub.id] += 1
        counts = self.by_kind[sub.kind.name]
        counts["answered"] += 1
        counts["cached"] += cached
        if not right:
            counts["wrong"] += 1
            self.wrong.append(f"{sub.id} ({sub.kind.name}): {seen}")


# ---- the service ---------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Service:
    """``judge serve`` and its workers, logging to files in ``directory``."""

    def __init__(self, args: argparse.Namespace, directory: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "JUDGE_DATABASE_URL": f"sqlite:///{directory}/soak.db",
            "JUDGE_SANDBOXES_PER_LANGUAGE": str(args.sandboxes),
            "JUDGE_WORKER_CONCURRENCY": str(args.concurrency),
        }
        env.pop("JUDGE_BROKER_URL", None)
        if not args.embedded:
            env["JUDGE_BROKER_URL"] = REDIS
            env["JUDGE_QUEUE_NAME"] = f"soak-{uuid.uuid4().hex[:8]}"
        judge = str(Path(sys.executable).with_name("judge"))
        self.directory = directory
        self.workers = 0 if args.embedded else args.workers
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self._start("api", [judge, "serve", "--host", "127.0.0.1", "--port", str(self.port)], env)
        for n in range(1, self.workers + 1):
            self._start(f"worker{n}", [judge, "worker", "-n", f"soak{n}@%h"], env)

    def _start(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        log = (self.directory / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise SystemExit(f"{name} exited; see {self.directory}/{name}.log")
            try:
                health = httpx.get(f"{self.url}/health", timeout=5).json()
                if len(health.get("queue", {}).get("workers", [])) >= self.workers:
                    return
            except (httpx.HTTPError, ValueError):
                pass
            time.sleep(0.5)
        raise SystemExit("the service did not become ready in 180 s")

    def rss_mb(self) -> dict[str, float]:
        sizes = {}
        for name, process in self.processes.items():
            try:
                for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        sizes[name] = int(line.split()[1]) / 1024
            except OSError:
                continue
        return sizes

    def stop(self) -> None:
        for process in self.processes.values():
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# ---- the requests --------------------------------------------------------------------------
def plan(count: int, rng: random.Random) -> list[tuple[str, list[Submission]]]:
    """Requests in sending order, ``count`` submissions in all."""
    requests: list[tuple[str, list[Submission]]] = []
    serial = 0
    while serial < count:
        endpoint, _, sizes = rng.choices(REQUESTS, weights=[r[1] for r in REQUESTS])[0]
        size = min(rng.choice(sizes), count - serial)
        kinds = {"openrlhf": RLHF_KINDS, "run_code": RUN_CODE_KINDS}.get(endpoint)
        requests.append((endpoint, [make(serial + i, rng, kinds) for i in range(size)]))
        serial += size
    return requests


async def send(
    client: httpx.AsyncClient, endpoint: str, subs: list[Submission], tally: Tally
) -> None:
    started = time.monotonic()
    try:
        if endpoint == "judge":
            response = await client.post("/v1/judge", json={"submissions": _items(subs)})
            _judged(subs, _ok(response)["results"], tally)
        elif endpoint == "submissions":
            response = await client.post("/v1/submissions", json={"submissions": _items(subs)})
            job_id = _ok(response, 202)["job_id"]
            while (status := _ok(await client.get(f"/v1/submissions/{job_id}")))["status"] in (
                "queued",
                "running",
            ):
                await asyncio.sleep(0.5)
            if status["status"] != "done":
                raise RuntimeError(f"job {job_id} {status['status']}: {status.get('error')}")
            _judged(subs, status["results"], tally)
        elif endpoint == "run_code":
            await _run_code(client, subs[0], tally)
        else:
            await _openrlhf(client, subs, tally)
    except Exception as error:  # the submissions stay unanswered: counted as lost
        tally.failed_requests.append(f"{endpoint} of {len(subs)}: {error!r}"[:300])
    tally.latency[endpoint].append(time.monotonic() - started)


def _items(subs: list[Submission]) -> list[dict[str, Any]]:
    return [sub.item() for sub in subs]


def _ok(response: httpx.Response, status: int = 200) -> Any:
    if response.status_code != status:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    return response.json()


def _judged(subs: list[Submission], results: list[dict[str, Any]], tally: Tally) -> None:
    by_id = {sub.id: sub for sub in subs}
    if [r["id"] for r in results] != list(by_id):
        tally.failed_requests.append(f"results out of order or missing: {len(results)}")
    for result in results:
        sub = by_id.get(result["id"])
        if sub is None:
            continue
        seen = f"{result['status']} {result.get('verdict')} {result.get('error') or ''}"[:200]
        right = result["status"] == "ok" and result.get("verdict") in sub.kind.verdicts
        tally.answer(sub, seen, right, bool(result.get("cached")))


async def _run_code(client: httpx.AsyncClient, sub: Submission, tally: Tally) -> None:
    language = "nodejs" if sub.kind.language == "javascript" else sub.kind.language
    body = {"code": sub.code, "language": language, "stdin": sub.stdin(), "run_timeout": 5}
    answer = _ok(await client.post("/run_code", json=body))
    tally.answer(
        sub,
        f"{answer['status']} {answer['message']}"[:200],
        (answer["status"] == sub.kind.run_code_status),
    )


async def _openrlhf(client: httpx.AsyncClient, subs: list[Submission], tally: Tally) -> None:
    body = {
        "query": [f"Sum two numbers.\n```python\n{sub.code}```" for sub in subs],
        "prompts": ["Sum two numbers.\n"] * len(subs),
        "labels": [sub.problem_id for sub in subs],
    }
    answer = _ok(await client.post("/openrlhf/reward", json=body))
    if len(answer["scores"]) != len(subs):
        raise RuntimeError(f"{len(answer['scores'])} scores for {len(subs)} rows")
    for sub, score in zip(subs, answer["scores"], strict=True):
        tally.answer(sub, f"score {score}", score == (1.0 if "AC" in sub.kind.verdicts else 0.0))


# ---- the run -------------------------------------------------------------------------------
async def load(
    service: Service,
    args: argparse.Namespace,
    requests: list[tuple[str, list[Submission]]],
    tally: Tally,
) -> tuple[dict[str, float], dict[str, float], float]:
    """Sends every request on its schedule; the RSS after warm-up, the peaks, and the time."""
    limit = asyncio.Semaphore(args.in_flight)
    warm: dict[str, float] = {}
    peak: dict[str, float] = defaultdict(float)
    started = time.monotonic()

    async def sample() -> None:
        while True:
            for name, size in service.rss_mb().items():
                peak[name] = max(peak[name], size)
            if not warm and time.monotonic() - started >= args.warmup:
                warm.update(service.rss_mb())
            await asyncio.sleep(2)

    async def one(at: float, endpoint: str, subs: list[Submission]) -> None:
        await asyncio.sleep(max(0.0, started + at - time.monotonic()))
        async with limit:
            await send(client, endpoint, subs, tally)

    timeout = httpx.Timeout(900, connect=30)
    limits = httpx.Limits(max_connections=args.in_flight + 8)
    async with httpx.AsyncClient(base_url=service.url, timeout=timeout, limits=limits) as client:
        sampler = asyncio.create_task(sample())
        sent = 0
        tasks = []
        for endpoint, subs in requests:
            tasks.append(
                asyncio.create_task(one(sent / args.count * args.duration, endpoint, subs))
            )
            sent += len(subs)
        await asyncio.gather(*tasks)
        sampler.cancel()
    return warm, dict(peak), time.monotonic() - started


def summary(
    requests: list[tuple[str, list[Submission]]],
    tally: Tally,
    rss: tuple[dict[str, float], dict[str, float], dict[str, float]],
    elapsed: float,
) -> bool:
    subs = [sub for _, batch in requests for sub in batch]
    lost = [sub.id for sub in subs if tally.answers[sub.id] == 0]
    duplicated = [sid for sid, times in tally.answers.items() if times > 1]
    print(
        f"\n{len(subs)} submissions in {len(requests)} requests, {elapsed:.0f} s "
        f"({len(subs) / elapsed:.1f}/s)\n"
    )
    print(f"{'kind':<16} {'sent':>6} {'answered':>9} {'cached':>7} {'wrong':>6}")
    sent_by_kind = Counter(sub.kind.name for sub in subs)
    for name, sent in sorted(sent_by_kind.items(), key=lambda item: -item[1]):
        counts = tally.by_kind[name]
        print(
            f"{name:<16} {sent:>6} {counts['answered']:>9} {counts['cached']:>7} "
            f"{counts['wrong']:>6}"
        )
    print(f"\n{'endpoint':<12} {'requests':>9} {'subs':>6} {'p50 s':>7} {'p95 s':>7} {'max s':>7}")
    for endpoint in ("judge", "submissions", "run_code", "openrlhf"):
        times = sorted(tally.latency[endpoint])
        count = sum(len(batch) for name, batch in requests if name == endpoint)
        if times:
            p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
            print(
                f"{endpoint:<12} {len(times):>9} {count:>6} {statistics.median(times):>7.2f} "
                f"{p95:>7.2f} {times[-1]:>7.2f}"
            )
    warm, peak, end = rss
    print(
        f"\n{'process':<10} {'RSS after warm-up MB':>21} {'at the end MB':>14} {'change':>8} "
        f"{'peak MB':>8}"
    )
    grown = []
    for name in sorted(end):
        change = (end[name] - warm.get(name, end[name])) / warm.get(name, end[name])
        grown += [name] if abs(change) > 0.10 else []
        print(
            f"{name:<10} {warm.get(name, 0):>21.1f} {end[name]:>14.1f} {change:>+8.1%} "
            f"{peak.get(name, 0):>8.1f}"
        )
    print(
        f"\nlost: {len(lost)}  duplicated: {len(duplicated)}  wrong verdicts: "
        f"{len(tally.wrong)}  failed requests: {len(tally.failed_requests)}  "
        f"RSS outside 10%: {', '.join(grown) or 'none'}"
    )
    for line in tally.wrong[:10] + tally.failed_requests[:10] + lost[:10] + duplicated[:10]:
        print("  ", line)
    return not (lost or duplicated or tally.wrong or tally.failed_requests or grown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of sending")
    parser.add_argument("--warmup", type=float, help="seconds; default a tenth of --duration")
    parser.add_argument("--embedded", action="store_true", help="in-process, no Celery")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2, help="chunks per worker")
    parser.add_argument("--sandboxes", type=int, default=2, help="per language and process")
    parser.add_argument("--in-flight", type=int, default=64, help="most requests at once")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.warmup = args.warmup if args.warmup is not None else args.duration / 10
    directory = Path(tempfile.mkdtemp(prefix="judge-soak-"))
    mode = "embedded" if args.embedded else f"Celery, {args.workers} workers"
    print(f"soak: {args.count} submissions over {args.duration:.0f} s, {mode}; logs in {directory}")
    service = Service(args, directory)
    try:
        service.wait_ready()
        with httpx.Client(base_url=service.url, timeout=60) as client:
            _ok(client.post("/v1/problems", json=problems()))
        tally = Tally()
        requests = plan(args.count, random.Random(args.seed))
        warm, peak, elapsed = asyncio.run(load(service, args, requests, tally))
        time.sleep(5)  # requests have ended; let the processes settle
        end = service.rss_mb()
    finally:
        service.stop()
    passed = summary(requests, tally, (warm, peak, end), elapsed)
    print("\nPASS" if passed else "\nFAIL")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
