"""The batch scheduler of the fallback model server, with a stand-in for the model."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest

from complexity_model.served._batching import BatchScheduler


class Recorder:
    """Doubles its inputs; records each batch; can hold a batch until released."""

    def __init__(self, hold_first: bool = False) -> None:
        self.batches: list[list[int]] = []
        self.started = threading.Event()
        self.release = threading.Event()
        if not hold_first:
            self.release.set()

    def __call__(self, requests: Sequence[int]) -> list[int]:
        self.batches.append(list(requests))
        self.started.set()
        self.release.wait(10)
        if any(request < 0 for request in requests):
            raise ValueError(f"negative request in {list(requests)}")
        return [2 * request for request in requests]


def test_requests_queued_while_a_batch_runs_form_the_next_batch() -> None:
    recorder = Recorder(hold_first=True)
    scheduler = BatchScheduler(recorder, max_batch=16, wait_s=0.0)
    try:
        first = scheduler.submit(0)
        assert recorder.started.wait(5)
        rest = [scheduler.submit(value) for value in range(1, 11)]
        recorder.release.set()
        assert first.result(5) == 0
        assert [future.result(5) for future in rest] == [2 * value for value in range(1, 11)]
    finally:
        scheduler.close()
    assert recorder.batches == [[0], list(range(1, 11))]
    stats = scheduler.stats
    assert (stats.batches, stats.requests, stats.largest) == (2, 11, 10)
    assert stats.sizes == {1: 1, 10: 1} and stats.mean == 5.5


def test_the_batch_cap_splits_a_burst() -> None:
    recorder = Recorder(hold_first=True)
    scheduler = BatchScheduler(recorder, max_batch=4, wait_s=0.0)
    try:
        futures = [scheduler.submit(0)]
        assert recorder.started.wait(5)
        futures += [scheduler.submit(value) for value in range(1, 10)]
        recorder.release.set()
        assert [future.result(5) for future in futures] == [2 * v for v in range(10)]
    finally:
        scheduler.close()
    assert recorder.batches == [[0], [1, 2, 3, 4], [5, 6, 7, 8], [9]]


def test_the_window_gathers_requests_that_arrive_apart() -> None:
    recorder = Recorder()
    scheduler = BatchScheduler(recorder, max_batch=8, wait_s=0.5)
    try:
        futures = []
        for value in range(3):
            futures.append(scheduler.submit(value))
            time.sleep(0.05)
        assert [future.result(5) for future in futures] == [0, 2, 4]
    finally:
        scheduler.close()
    assert recorder.batches == [[0, 1, 2]]


def test_a_full_batch_does_not_wait_for_the_window() -> None:
    recorder = Recorder()
    scheduler = BatchScheduler(recorder, max_batch=2, wait_s=30.0)
    try:
        start = time.monotonic()
        futures = [scheduler.submit(1), scheduler.submit(2)]
        assert [future.result(5) for future in futures] == [2, 4]
        assert time.monotonic() - start < 5
    finally:
        scheduler.close()


def test_one_at_a_time_has_no_window() -> None:
    scheduler = BatchScheduler(Recorder(), max_batch=1, wait_s=30.0)
    try:
        assert scheduler.wait_s == 0.0
        start = time.monotonic()
        assert scheduler.submit(3).result(5) == 6
        assert time.monotonic() - start < 5
    finally:
        scheduler.close()


def test_a_failing_batch_is_run_again_one_by_one() -> None:
    recorder = Recorder(hold_first=True)
    scheduler = BatchScheduler(recorder, max_batch=8, wait_s=0.0)
    try:
        first = scheduler.submit(0)
        assert recorder.started.wait(5)
        good, bad, other = scheduler.submit(1), scheduler.submit(-1), scheduler.submit(2)
        recorder.release.set()
        assert first.result(5) == 0
        assert (good.result(5), other.result(5)) == (2, 4)
        with pytest.raises(ValueError, match="negative"):
            bad.result(5)
    finally:
        scheduler.close()
    assert recorder.batches == [[0], [1, -1, 2], [1], [-1], [2]]


def test_a_wrong_number_of_results_fails_the_request_not_the_worker() -> None:
    scheduler = BatchScheduler(lambda requests: [], max_batch=4, wait_s=0.0)
    try:
        with pytest.raises(RuntimeError, match="1 requests gave 0 results"):
            scheduler.submit(1).result(5)
        with pytest.raises(RuntimeError, match="gave 0 results"):
            scheduler.submit(2).result(5)  # the worker is still there
    finally:
        scheduler.close()


def test_a_cancelled_request_is_not_run() -> None:
    recorder = Recorder(hold_first=True)
    scheduler = BatchScheduler(recorder, max_batch=8, wait_s=0.0)
    try:
        scheduler.submit(0)
        assert recorder.started.wait(5)
        dropped, kept = scheduler.submit(1), scheduler.submit(2)
        assert dropped.cancel()
        recorder.release.set()
        assert kept.result(5) == 4
    finally:
        scheduler.close()
    assert recorder.batches == [[0], [2]]


def test_close_answers_what_was_queued_and_refuses_the_rest() -> None:
    recorder = Recorder(hold_first=True)
    scheduler = BatchScheduler(recorder, max_batch=8, wait_s=0.0)
    first = scheduler.submit(0)
    assert recorder.started.wait(5)
    queued = scheduler.submit(5)
    closing = threading.Thread(target=scheduler.close)
    closing.start()
    recorder.release.set()
    closing.join(10)
    assert (first.result(5), queued.result(5)) == (0, 10)
    with pytest.raises(RuntimeError, match="closed"):
        scheduler.submit(1)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="max_batch"):
        BatchScheduler(Recorder(), max_batch=0)
    with pytest.raises(ValueError, match="wait_s"):
        BatchScheduler(Recorder(), wait_s=-1.0)


def _closed_loop(regroup: float) -> list[int]:
    """Four clients that each send their next request 10 ms after an answer; the first one
    starts alone, so its batch and the others' begin out of step. Returns the batch sizes."""
    sizes: list[int] = []

    def run_batch(requests: Sequence[int]) -> list[int]:
        sizes.append(len(requests))
        time.sleep(0.2)
        return list(requests)

    scheduler = BatchScheduler(run_batch, max_batch=4, wait_s=0.0, regroup=regroup)

    def client(delay_s: float) -> None:
        time.sleep(delay_s)
        for value in range(4):
            scheduler.submit(value).result(30)
            time.sleep(0.01)

    threads = [threading.Thread(target=client, args=(0.0 if i == 0 else 0.05,)) for i in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        scheduler.close()
    assert sum(sizes) == 16
    return sizes


def test_clients_that_come_back_regroup_into_full_batches() -> None:
    sizes = _closed_loop(regroup=1.0)
    # The first client runs alone; then it is waited for and every batch is whole (the three
    # others have one request left at the end).
    assert sizes == [1, 4, 4, 4, 3]


def test_without_regrouping_the_clients_stay_out_of_step() -> None:
    sizes = _closed_loop(regroup=0.0)
    assert sizes[:4] == [1, 3, 1, 3]  # part batches taking turns
