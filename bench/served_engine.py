"""The fallback server's decoding engine alone: 16 concurrent requests against one at a time.

What ``bench/served_batching.py`` measures through HTTP, without HTTP: the server's scheduler
(:class:`~complexity_model.served._batching.BatchScheduler`) over the generator's decode batch
(shared prefix cache included) and the answer's detokenising, in one process, with the random
tiny model whose every answer runs to ``--tokens`` tokens. ``--concurrency`` client threads
each submit their next request when an answer comes back; the reference is one thread on a
scheduler of ``max_batch`` 1. The gap between this ratio and the HTTP one is what a request
costs outside decoding (HTTP, JSON, the client).

    PYTHONPATH=. .venv/bin/python bench/served_engine.py [--tokens 24] [--rounds 2]
        [--requests 96] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from complexity_model.served import build_messages  # noqa: E402
from complexity_model.served._batching import BatchScheduler  # noqa: E402
from complexity_model.served._generate import (  # noqa: E402
    GenerationRequest,
    TransformersGenerator,
)
from tests.complexity_model._tiny_model import build_tiny_model  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from served_batching import PROGRAMS  # noqa: E402


def rate(
    generator: TransformersGenerator, jobs: list[GenerationRequest], max_batch: int, threads: int
) -> float:
    """Requests per second with ``threads`` closed-loop clients."""
    scheduler = BatchScheduler(generator.new_batch, max_batch=max_batch, wait_s=0.0)
    pending = iter(jobs)
    lock = threading.Lock()

    def client() -> None:
        while True:
            with lock:
                job = next(pending, None)
            if job is None:
                return
            generator.finish(job, scheduler.submit(job).result())

    start = time.perf_counter()
    workers = [threading.Thread(target=client) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    taken = time.perf_counter() - start
    scheduler.close()
    return len(jobs) / taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=96)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)  # as the server's --threads 1 on a shared host
    with tempfile.TemporaryDirectory() as directory:
        generator = TransformersGenerator(build_tiny_model(Path(directory) / "random"))
        prompts = [generator.encode(build_messages(c, lang), args.tokens) for c, lang in PROGRAMS]
        jobs = [
            GenerationRequest(prompts[i % len(prompts)], args.tokens, True)
            for i in range(args.requests)
        ]
        rate(generator, jobs[: args.concurrency], args.concurrency, args.concurrency)  # warm
        for number in range(1, args.rounds + 1):
            alone = rate(generator, jobs, 1, 1)
            together = rate(generator, jobs, args.concurrency, args.concurrency)
            print(
                f"round {number}, {args.tokens} tokens: one at a time {alone:.1f}/s, "
                f"{args.concurrency} concurrent {together:.1f}/s, ratio {together / alone:.1f}x"
            )


if __name__ == "__main__":
    main()
