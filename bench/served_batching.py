"""The fallback model server's continuous batching: 16 concurrent requests against one at a time.

Starts ``judge complexity serve --backend transformers`` twice on loopback ports with the tiny
test model (a 2-layer Qwen2 built from a config, nothing downloaded; by default trained for 40
steps on the test rows so that it writes real answers and stops after them): one server with
``--max-batch 16`` and one with ``--max-batch 1`` (the same decoding loop and shared prefix
cache, one row at a time). Each round asks,
through ``ServedModelJudge``, for the class of ``--requests`` programs:

- one at a time (concurrency 1) from the unbatched server, the reference;
- one at a time from the batched server (what batching costs a lone request);
- ``--concurrency`` at a time from the unbatched server (concurrency alone);
- ``--concurrency`` at a time from the batched server.

The modes take turns ``--chunk`` programs at a time. Prints each mode's throughput, the
batched server's mean rows per decode step, the ratio of concurrent batched throughput to the
better one-at-a-time figure in the same round (goal: at least 4x on a CPU), and whether every answer
(raw text and parsed class) equals the reference's. On a shared host give ``--threads 1``:
torch's threads spin and a loaded host makes them several times slower.

    PYTHONPATH=. .venv/bin/python bench/served_batching.py [--rounds 3] [--requests 96]
        [--chunk 48] [--concurrency 16] [--max-tokens 64] [--batch-wait-ms 0] [--threads N]
        [--random] [--device cpu]
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from complexity_model.ladder import ComplexityEstimate  # noqa: E402
from complexity_model.served import ServedModelJudge  # noqa: E402
from tests.complexity_model._tiny_model import (  # noqa: E402
    LABELLED_ROWS,
    build_tiny_model,
    fit_tiny_model,
)

NAME = "tiny"
_EXTRA = [
    ("x = 1\n" * 20, "python"),
    ("for i in range(n):\n    for j in range(i):\n        s += j\n" * 3, "python"),
    ("int main() { int n; std::cin >> n; return n; }", "cpp"),
    ("public class Main { public static void main(String[] a) { } }", "java"),
]
PROGRAMS = [(str(row["code"]), str(row["language"])) for row in LABELLED_ROWS[:4]] + _EXTRA


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(
    model: Path, max_batch: int, args: argparse.Namespace
) -> tuple[str, subprocess.Popen[bytes]]:
    port = free_port()
    command = [
        sys.executable,
        "-c",
        "from judge_service.cli import app; app()",
        "complexity",
        "serve",
        "--backend",
        "transformers",
        "--model",
        str(model),
        "--port",
        str(port),
        "--served-model-name",
        NAME,
        "--device",
        args.device,
        "--max-batch",
        str(max_batch),
        "--batch-wait-ms",
        str(args.batch_wait_ms),
    ]
    if args.threads:
        command += ["--threads", str(args.threads)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return base, process
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("the server did not become healthy in 180 s")


def run(
    base: str, concurrency: int, items: list[tuple[str, str]], max_tokens: int
) -> tuple[float, list[ComplexityEstimate]]:
    """Seconds taken and the estimates."""
    with ServedModelJudge(base, NAME, concurrency=concurrency, max_tokens=max_tokens) as judge:
        judge.estimate(*items[0])  # a warm connection and warm caches, not timed
        start = time.perf_counter()
        estimates = judge.estimate_many(items)
        return time.perf_counter() - start, estimates


def measure(
    modes: list[tuple[str, int]], items: list[tuple[str, str]], chunk: int, max_tokens: int
) -> tuple[list[float], list[list[ComplexityEstimate]], dict[int, int]]:
    """Requests per second of each (server, concurrency) mode, its estimates, and the batch
    sizes of the last mode. The modes take turns a chunk of programs at a time, so a change
    in the host's load between the start and the end of a round falls on all of them alike."""
    seconds = [0.0] * len(modes)
    answers: list[list[ComplexityEstimate]] = [[] for _ in modes]
    sizes: dict[int, int] = {}
    for first in range(0, len(items), chunk):
        part = items[first : first + chunk]
        for index, (base, concurrency) in enumerate(modes):
            before = batch_sizes(base)
            taken, estimates = run(base, concurrency, part, max_tokens)
            seconds[index] += taken
            answers[index] += estimates
            if index == len(modes) - 1:
                for size, count in batch_sizes(base).items():
                    sizes[size] = sizes.get(size, 0) + count - before.get(size, 0)
    sizes = {size: count for size, count in sorted(sizes.items()) if count}
    return [len(items) / total for total in seconds], answers, sizes


def batch_sizes(base: str) -> dict[int, int]:
    """How many batches of each size the server has run."""
    stats = httpx.get(f"{base}/stats", timeout=10).json()
    return {int(size): int(count) for size, count in stats["batch_sizes"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=96, help="programs per mode per round")
    parser.add_argument("--chunk", type=int, default=48, help="programs per mode per turn")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--batch-wait-ms", type=float, default=0.0)
    parser.add_argument("--threads", type=int, default=None, help="the servers' torch threads")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--random", action="store_true", help="untrained model (token soup)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        began = time.perf_counter()
        model = build_tiny_model(root / "random") if args.random else fit_tiny_model(root)
        print(
            f"model: {'random' if args.random else 'fitted'} ({time.perf_counter() - began:.0f} s)"
        )
        batched, batched_process = start(model, args.concurrency, args)
        single, single_process = start(model, 1, args)
        try:
            items = [PROGRAMS[i % len(PROGRAMS)] for i in range(args.requests)]
            concurrency = args.concurrency
            for number in range(1, args.rounds + 1):
                modes = [(single, 1), (batched, 1), (single, concurrency), (batched, concurrency)]
                rates, answers, sizes = measure(modes, items, args.chunk, args.max_tokens)
                reference_rate, lone_rate, unbatched_rate, rate = rates
                reference = answers[0]
                mean = sum(k * v for k, v in sizes.items()) / max(1, sum(sizes.values()))
                raw = [e.evidence["raw"] for e in reference]
                same = all(
                    [e.evidence["raw"] for e in other] == raw
                    and [e.predicted for e in other] == [e.predicted for e in reference]
                    for other in answers[1:]
                )
                classes = sorted({e.predicted for e in reference})
                ratio = rate / max(reference_rate, lone_rate)
                print(
                    f"round {number}: one at a time {reference_rate:.1f}/s (max-batch 1), "
                    f"{lone_rate:.1f}/s (max-batch {args.concurrency}); {args.concurrency} "
                    f"concurrent {unbatched_rate:.1f}/s (max-batch 1), {rate:.1f}/s (batched)\n"
                    f"  ratio {ratio:.1f}x; mean rows per step {mean:.1f}, steps by rows {sizes} "
                    "(warm-ups too); "
                    f"answers identical: {same}; classes {classes}"
                )
        finally:
            for process in (batched_process, single_process):
                process.terminate()
                process.wait(30)


if __name__ == "__main__":
    main()
