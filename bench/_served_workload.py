"""``judge bench``'s served complexity row: the fallback model server (``judge complexity serve
--backend transformers``) with the tiny test model, 16 concurrent requests to a batching server
against one request at a time, through ``ServedModelJudge`` only (the server is a black box
here: its batching is another module's business). ``bench/served_batching.py`` measures the
same in more detail (four modes, batch sizes)."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from _table import Row, best
from served_batching import PROGRAMS, run, start

from complexity_model.ladder import ComplexityEstimate
from tests.complexity_model._tiny_model import build_tiny_model, fit_tiny_model

CONCURRENCY = 16
PROGRAMS_PER_TURN = 48
MAX_TOKENS = 64


def _server_options() -> argparse.Namespace:
    # One torch thread: on a shared host torch's threads spin and run several times slower.
    # No wait window: the server's default (requests join the batch between decode steps).
    return argparse.Namespace(device="cpu", batch_wait_ms=0.0, threads=1)


def _answers(estimates: list[ComplexityEstimate]) -> list[tuple[str, str]]:
    return [(str(e.evidence.get("raw")), e.predicted) for e in estimates]


def served(rounds: int, fitted: bool) -> Row:
    """Programs per second: ``CONCURRENCY`` at a time to a server batching up to that many,
    against one at a time to a server that does not batch (the better of that and one at a
    time to the batching server, so the wait window's cost to a lone request counts against
    batching). Every answer must equal the one-at-a-time reference's, or the bench stops."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars amid the table
    items = [PROGRAMS[i % len(PROGRAMS)] for i in range(PROGRAMS_PER_TURN)]
    options = _server_options()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        model = fit_tiny_model(root) if fitted else build_tiny_model(root / "random")
        batched, batched_process = start(model, CONCURRENCY, options)
        single, single_process = start(model, 1, options)
        try:
            modes = [(single, 1), (batched, 1), (batched, CONCURRENCY)]
            rates: list[list[float]] = [[] for _ in modes]
            for _ in range(rounds):  # modes in turn, so load changes fall on all of them
                answers = []
                for index, (base, concurrency) in enumerate(modes):
                    taken, estimates = run(base, concurrency, items, MAX_TOKENS)
                    rates[index].append(len(items) / taken)
                    answers.append(_answers(estimates))
                if any(other != answers[0] for other in answers[1:]):
                    raise SystemExit("served: batched answers differ from one at a time")
        finally:
            for process in (batched_process, single_process):
                process.terminate()
                process.wait(30)
    kind = "fitted (answers of about 20 tokens)" if fitted else "random weights (64 tokens)"
    return Row(
        f"Served complexity, tiny model {kind}: {CONCURRENCY} concurrent, batched",
        best(rates[2]),
        max(best(rates[0]), best(rates[1])),
        "programs/s",
        "one at a time, same model and run",
        "python bench/served_batching.py --threads 1" + ("" if fitted else " --random"),
        goal=">= 4x",
    )
