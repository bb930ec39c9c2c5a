"""The continuous batch scheduler of the fallback model server, with a stand-in for the model.

The stand-in "decodes" a prompt ``[n]`` as the tokens n, n+1, ... (``limit`` of them), one per
step, and records how many rows each step had; it can hold a step until released, refuse to
read a negative prompt, and fail a step that holds a prompt of 666.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from complexity_model.served._batching import BatchScheduler
from complexity_model.served._generate import GenerationRequest
from complexity_model.served._greedy import Decoded, Prompt

POISON = 666


class Stand:
    """Shared by every batch the scheduler makes: the record and the hold."""

    def __init__(self, hold_first: bool = False, step_s: float = 0.0) -> None:
        self.step_s = step_s
        self.steps: list[list[int]] = []  # each step's rows (their first prompt ids)
        self.admitted: list[list[int]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold_first:
            self.release.set()

    def batch(self) -> FakeBatch:
        return FakeBatch(self)


class FakeBatch:
    def __init__(self, stand: Stand) -> None:
        self.stand = stand
        self.rows: list[tuple[Prompt[Any], Decoded]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def admit(self, prompts: Sequence[Prompt[Any]]) -> list[tuple[Any, Decoded]]:
        if any(prompt.ids[0] < 0 for prompt in prompts):
            raise ValueError("negative prompt")
        self.stand.admitted.append([prompt.ids[0] for prompt in prompts])
        new = [(prompt, Decoded([prompt.ids[0]], None)) for prompt in prompts]
        self.rows += new
        return self._done([row for row in new if row[0].limit <= 1])

    def step(self) -> list[tuple[Any, Decoded]]:
        self.stand.steps.append([prompt.ids[0] for prompt, _ in self.rows])
        self.stand.started.set()
        self.stand.release.wait(10)
        time.sleep(self.stand.step_s)
        if any(prompt.ids[0] == POISON for prompt, _ in self.rows):
            raise RuntimeError("poisoned step")
        for _, decoded in self.rows:
            decoded.tokens.append(decoded.tokens[-1] + 1)
        return self._done([row for row in self.rows if len(row[1].tokens) >= row[0].limit])

    def clear(self) -> list[Prompt[Any]]:
        prompts = [prompt for prompt, _ in self.rows]
        self.rows = []
        return prompts

    def _done(self, rows: list[tuple[Prompt[Any], Decoded]]) -> list[tuple[Any, Decoded]]:
        self.rows = [row for row in self.rows if row not in rows]
        return [(prompt.key, decoded) for prompt, decoded in rows]


def job(first: int, limit: int) -> GenerationRequest:
    return GenerationRequest([first], limit, False)


def tokens(first: int, limit: int) -> list[int]:
    return list(range(first, first + limit))


def test_a_request_that_arrives_mid_decode_joins_at_the_next_step() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=16, wait_s=0.0)
    try:
        long = scheduler.submit(job(100, 6))
        assert stand.started.wait(5)
        late = scheduler.submit(job(200, 3))
        stand.release.set()
        assert long.result(5).tokens == tokens(100, 6)
        assert late.result(5).tokens == tokens(200, 3)
    finally:
        scheduler.close()
    # The late request decoded beside the running one, not after it; each left at its end.
    assert stand.steps == [[100], [100, 200], [100, 200], [100], [100]]
    assert scheduler.stats.sizes == {1: 3, 2: 2} and scheduler.stats.requests == 2
    assert scheduler.stats.mean == pytest.approx(7 / 5)


def test_the_row_cap_holds_the_rest_until_rows_leave() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=4, wait_s=0.0)
    try:
        futures = [scheduler.submit(job(0, 3))]
        assert stand.started.wait(5)
        futures += [scheduler.submit(job(10 * value, 2 + value % 3)) for value in range(1, 10)]
        stand.release.set()
        assert futures[0].result(5).tokens == tokens(0, 3)
        for value, future in enumerate(futures[1:], start=1):
            assert future.result(5).tokens == tokens(10 * value, 2 + value % 3)
    finally:
        scheduler.close()
    assert max(len(rows) for rows in stand.steps) == 4
    assert scheduler.stats.largest == 4 and scheduler.stats.requests == 10
    # A freed row is taken by the next waiting request at once.
    assert stand.admitted[:2] == [[0], [10, 20, 30]]


def test_the_window_gathers_requests_that_arrive_apart_when_idle() -> None:
    stand = Stand()
    scheduler = BatchScheduler(stand.batch, max_batch=8, wait_s=0.5)
    try:
        futures = []
        for value in range(3):
            futures.append(scheduler.submit(job(value, 2)))
            time.sleep(0.05)
        assert [future.result(5).tokens for future in futures] == [tokens(v, 2) for v in range(3)]
    finally:
        scheduler.close()
    assert stand.admitted == [[0, 1, 2]]


def test_a_full_batch_does_not_wait_for_the_window() -> None:
    stand = Stand()
    scheduler = BatchScheduler(stand.batch, max_batch=2, wait_s=30.0)
    try:
        start = time.monotonic()
        futures = [scheduler.submit(job(1, 2)), scheduler.submit(job(2, 2))]
        assert [future.result(5).tokens for future in futures] == [[1, 2], [2, 3]]
        assert time.monotonic() - start < 5
    finally:
        scheduler.close()


def test_one_at_a_time_has_no_window_and_one_row() -> None:
    stand = Stand()
    scheduler = BatchScheduler(stand.batch, max_batch=1, wait_s=30.0)
    try:
        assert scheduler.wait_s == 0.0
        start = time.monotonic()
        futures = [scheduler.submit(job(value, 3)) for value in range(4)]
        assert [future.result(5).tokens for future in futures] == [tokens(v, 3) for v in range(4)]
        assert time.monotonic() - start < 5
    finally:
        scheduler.close()
    assert all(len(rows) == 1 for rows in stand.steps) and scheduler.stats.sizes == {1: 8}


def test_a_request_finished_by_its_prompt_takes_no_step() -> None:
    stand = Stand()
    scheduler = BatchScheduler(stand.batch, max_batch=4, wait_s=0.0)
    try:
        assert scheduler.submit(job(7, 1)).result(5).tokens == [7]
    finally:
        scheduler.close()
    assert stand.steps == [] and scheduler.stats.requests == 1


def test_a_prompt_that_cannot_be_read_fails_alone() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=8, wait_s=0.0)
    try:
        first = scheduler.submit(job(0, 3))
        assert stand.started.wait(5)
        good, bad = scheduler.submit(job(1, 2)), scheduler.submit(job(-1, 2))
        other = scheduler.submit(job(2, 2))
        stand.release.set()
        assert first.result(5).tokens == tokens(0, 3)
        assert (good.result(5).tokens, other.result(5).tokens) == ([1, 2], [2, 3])
        with pytest.raises(ValueError, match="negative"):
            bad.result(5)
    finally:
        scheduler.close()
    assert stand.admitted == [[0], [1], [2]]


def test_a_failing_step_reruns_each_row_alone() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=8, wait_s=0.0)
    try:
        first = scheduler.submit(job(0, 4))
        assert stand.started.wait(5)
        poisoned, later = scheduler.submit(job(POISON, 3)), scheduler.submit(job(5, 3))
        stand.release.set()
        # The rows that shared the failed step start again from their prompts.
        assert first.result(5).tokens == tokens(0, 4)
        assert later.result(5).tokens == tokens(5, 3)
        with pytest.raises(RuntimeError, match="poisoned"):
            poisoned.result(5)
        # The worker is still there.
        assert scheduler.submit(job(9, 2)).result(5).tokens == [9, 10]
    finally:
        scheduler.close()


def test_a_cancelled_request_is_not_run() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=8, wait_s=0.0)
    try:
        scheduler.submit(job(0, 2))
        assert stand.started.wait(5)
        dropped, kept = scheduler.submit(job(1, 2)), scheduler.submit(job(2, 2))
        assert dropped.cancel()
        stand.release.set()
        assert kept.result(5).tokens == [2, 3]
    finally:
        scheduler.close()
    assert stand.admitted == [[0], [2]]


def test_close_answers_what_was_queued_and_refuses_the_rest() -> None:
    stand = Stand(hold_first=True)
    scheduler = BatchScheduler(stand.batch, max_batch=8, wait_s=0.0)
    first = scheduler.submit(job(0, 3))
    assert stand.started.wait(5)
    queued = scheduler.submit(job(5, 3))
    closing = threading.Thread(target=scheduler.close)
    closing.start()
    stand.release.set()
    closing.join(10)
    assert (first.result(5).tokens, queued.result(5).tokens) == (tokens(0, 3), tokens(5, 3))
    with pytest.raises(RuntimeError, match="closed"):
        scheduler.submit(job(1, 2))


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_batch"):
        BatchScheduler(Stand().batch, max_batch=0)
    with pytest.raises(ValueError, match="wait_s"):
        BatchScheduler(Stand().batch, wait_s=-1.0)


def test_clients_that_come_back_keep_the_batch_full() -> None:
    """Four closed-loop clients (the next request 10 ms after an answer), the first starting
    alone: with requests joining between steps, the others join its batch at once and the
    steps run with all four rows most of the time."""
    stand = Stand(step_s=0.02)
    scheduler = BatchScheduler(stand.batch, max_batch=4, wait_s=0.0)

    def client(delay_s: float) -> None:
        time.sleep(delay_s)
        for value in range(4):
            assert scheduler.submit(job(value, 8)).result(30).tokens == tokens(value, 8)
            time.sleep(0.01)

    threads = [threading.Thread(target=client, args=(0.0 if i == 0 else 0.05,)) for i in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        scheduler.close()
    assert scheduler.stats.requests == 16
    # 16 requests of 7 steps: one at a time 112 steps; here close to a quarter of that.
    assert scheduler.stats.batches <= 50 and scheduler.stats.mean >= 2.5
