from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import SQLAlchemyError

from judge_service.exceptions import StoreError, StoreUnavailable
from judge_service.schemas import JobStatus, Problem, SubmissionResult
from judge_service.store import Store, cache_key, code_hash, sanitize, upgrade
from judge_service.store.models import ResultCacheRow, SubmissionRow


def problem(problem_id: str = "p1", output: str = "1\n", **fields: Any) -> Problem:
    return Problem(id=problem_id, tests=[{"input": "1\n", "output": output}], **fields)


def result(client_id: str | None = None, verdict: str = "AC", **fields: Any) -> dict[str, Any]:
    dump = SubmissionResult(
        id=client_id,
        status="ok",
        verdict=verdict,
        pass_rate=1.0 if verdict == "AC" else 0.0,
        tests=[{"verdict": verdict, "time_ms": 1.5, "memory_kb": 2048}],
        reward={"format": 1.0, "correctness": 1.0, "time": 0.5, "total": 2.5},
        **fields,
    )
    return dump.model_dump(mode="json")


def item(position: int, client_id: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "position": position,
        "client_id": client_id,
        "problem_id": "p1",
        "problem_version": 1,
        "language": "python",
        "code_hash": code_hash(f"print({position})"),
        "result": result(client_id, **fields),
    }


def run_threads(count: int, target: Callable[[int], None]) -> None:
    errors: list[BaseException] = []

    def guarded(index: int) -> None:
        try:
            target(index)
        except BaseException as exc:  # noqa: BLE001 - reraised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


# Problems


def test_identical_body_keeps_version_edit_makes_a_new_one(store: Store) -> None:
    assert store.upsert_problems([problem()]) == [("p1", 1, True)]
    assert store.upsert_problems([problem()]) == [("p1", 1, False)]
    assert store.upsert_problems([problem(output="2\n")]) == [("p1", 2, True)]
    assert store.upsert_problems([problem(output="2\n")]) == [("p1", 2, False)]
    assert store.upsert_problems([problem(time_limit_ms=500)]) == [("p1", 3, True)]
    assert store.upsert_problems([]) == []


def test_batch_results_in_input_order(store: Store) -> None:
    batch = [problem("b"), problem("a"), problem("b", output="2\n"), problem("a")]
    assert store.upsert_problems(batch) == [
        ("b", 1, True),
        ("a", 1, True),
        ("b", 2, True),
        ("a", 1, False),
    ]
    latest = store.get_problem("b")
    assert latest is not None and latest[1] == 2


def test_get_problem_latest_and_by_version(store: Store) -> None:
    first, second = problem(), problem(output="2\n", optimal_complexity="O(n)")
    store.upsert_problems([first])
    store.upsert_problems([second])
    assert store.get_problem("p1") == (second, 2)
    assert store.get_problem("p1", 1) == (first, 1)
    assert store.get_problem("p1", 2) == (second, 2)
    assert store.get_problem("p1", 3) is None
    assert store.get_problem("nope") is None
    got = store.get_problem("p1", 1)
    assert got is not None and got[0].content_hash() == first.content_hash()


def test_reverted_body_reuses_its_version_and_becomes_latest(store: Store) -> None:
    store.upsert_problems([problem(), problem(output="2\n")])
    assert store.upsert_problems([problem()]) == [("p1", 1, False)]
    assert store.get_problem("p1") == (problem(), 1)
    assert store.upsert_problems([problem(output="3\n")]) == [("p1", 3, True)]


def test_get_problems_latest_of_many(store: Store) -> None:
    store.upsert_problems([problem("a"), problem("b"), problem("b", output="2\n")])
    got = store.get_problems(["a", "b", "missing", "a"])
    assert got == {"a": (problem("a"), 1), "b": (problem("b", output="2\n"), 2)}


def test_concurrent_upserts_of_one_problem(store: Store) -> None:
    outcomes: list[tuple[str, int, bool]] = []
    edits: list[tuple[str, int, bool]] = []

    def upsert(index: int) -> None:
        outcomes.extend(store.upsert_problems([problem("same")]))
        edits.extend(store.upsert_problems([problem("edited", output=f"{index}\n")]))

    run_threads(8, upsert)
    assert sorted(outcomes) == [("same", 1, False)] * 7 + [("same", 1, True)]
    assert sorted(version for _, version, _ in edits) == list(range(1, 9))
    assert all(created for _, _, created in edits)


# Result cache


def test_cache_key_is_of_the_exact_code() -> None:
    code = "def f():\n    return 1\n"
    # Each differs from ``code`` only where a normaliser would have erased the difference.
    variants = ["\n" + code, code + "\n", "def f():   \n    return 1\n", code.replace("\n", "\r\n")]
    base = cache_key("p", 1, "python", code)
    assert Store.cache_key("p", 1, "python", code) == base
    assert len({base, *(cache_key("p", 1, "python", variant) for variant in variants)}) == 5
    assert Store.code_hash(code) == code_hash(code) == hashlib.sha256(code.encode()).hexdigest()
    assert len({code_hash(code), *map(code_hash, variants)}) == 5
    assert cache_key("p", 2, "python", code) != base
    assert cache_key("q", 1, "python", code) != base
    assert cache_key("p", 1, "cpp", code) != base
    assert len(base) == 64 and int(base, 16) >= 0


def test_no_key_of_the_old_normalising_scheme_is_found_again() -> None:
    # Those entries may hold another program's result: "print(1)" answered for "print(1)  ".
    code = "print(1)"
    digest = hashlib.sha256(code.encode()).hexdigest()
    old = hashlib.sha256(json.dumps(["p", 1, "python", digest]).encode()).hexdigest()
    assert cache_key("p", 1, "python", code) != old


def _hits(store: Store, key: str) -> int:
    with store.engine.connect() as connection:
        query = select(ResultCacheRow.hits).where(ResultCacheRow.key == key)
        return connection.execute(query).scalar_one()


def test_cache_round_trip_and_hits(store: Store) -> None:
    key_a, key_b = cache_key("p1", 1, "python", "a"), cache_key("p1", 1, "python", "b")
    dump = result("client-7", cached=False)
    store.put_cached({key_a: dump, key_b: result(verdict="WA")})
    assert store.get_cached([]) == {}
    got = store.get_cached([key_a, "missing", key_a])
    expected = {k: v for k, v in dump.items() if k not in ("id", "cached")}
    assert got == {key_a: expected}
    assert SubmissionResult(id="x", cached=True, **got[key_a]).verdict == "AC"
    assert _hits(store, key_a) == 1 and _hits(store, key_b) == 0
    assert set(store.get_cached([key_a, key_b])) == {key_a, key_b}
    assert _hits(store, key_a) == 2 and _hits(store, key_b) == 1


def test_put_cached_keeps_the_first_result(store: Store) -> None:
    key = cache_key("p1", 1, "python", "a")
    store.put_cached({key: result(verdict="AC")})
    store.put_cached({key: result(verdict="WA"), cache_key("p1", 1, "python", "b"): result()})
    store.put_cached({})
    assert store.get_cached([key])[key]["verdict"] == "AC"


def test_many_keys_in_one_call(store: Store) -> None:
    keys = [cache_key("p", 1, "python", str(index)) for index in range(2500)]
    store.put_cached({key: result() for key in keys})
    assert len(store.get_cached(keys)) == 2500


# Jobs and results


def test_stale_resumable_jobs_are_claimed_by_exactly_one_caller(store: Store) -> None:
    request = {"submissions": [{"problem_id": "p1", "language": "python", "code": "1"}]}
    resumable = store.create_job(1, {}, request)
    legacy = store.create_job(1)  # stored without its request: it can only fail
    finished = store.create_job(1, {}, request)
    store.mark_job(finished, "done")
    assert store.claim_stale_jobs(60.0) == []  # all fresh
    time.sleep(1.1)
    claims: list[tuple[str, dict[str, Any]]] = []
    run_threads(6, lambda _: claims.extend(store.claim_stale_jobs(1.0)))
    assert claims == [(resumable, request)]
    job = store.get_job(resumable)
    assert job is not None and job["status"] == "running"
    assert store.claim_stale_jobs(1.0) == []  # the claim refreshed its heartbeat
    assert store.claim_stale_jobs(1.0, job_id=legacy) == []
    assert store.fail_stale_job(legacy, 1.0, "abandoned") is True
    time.sleep(1.1)
    assert store.fail_stale_job(resumable, 1.0, "abandoned") is False  # resumable: not failed
    assert [job_id for job_id, _ in store.claim_stale_jobs(1.0, job_id=resumable)] == [resumable]


def test_job_lifecycle_results_in_position_order(store: Store) -> None:
    job_id = store.create_job(3, {"complexity": "off"})
    job = store.get_job(job_id)
    assert job is not None
    assert (job["status"], job["total"], job["completed"], job["results"]) == ("queued", 3, 0, None)
    assert job["options"] == {"complexity": "off"} and job["created_at"].tzinfo is not None

    store.mark_job(job_id, "running")
    assert len(store.add_results(job_id, [item(2, "c"), item(0, "a", verdict="WA")])) == 2
    job = store.get_job(job_id)
    assert job is not None and (job["status"], job["completed"], job["results"]) == (
        "running",
        2,
        None,
    )

    store.add_results(job_id, [item(1, "b")])
    store.mark_job(job_id, "done")
    job = store.get_job(job_id)
    assert job is not None and job["completed"] == 3
    assert [r["id"] for r in job["results"]] == ["a", "b", "c"]
    assert job["results"][0] == result("a", verdict="WA")
    status = JobStatus.model_validate(job)
    assert status.results is not None and status.results[1] == SubmissionResult(**result("b"))


def test_mark_job_failed_with_error_and_completed(store: Store) -> None:
    job_id = store.create_job(2, {})
    store.mark_job(job_id, "failed", completed=1, error="broker lost")
    job = store.get_job(job_id)
    assert job is not None
    assert (job["status"], job["completed"], job["error"], job["results"]) == (
        "failed",
        1,
        "broker lost",
        None,
    )


def test_redelivered_results_are_stored_once(store: Store) -> None:
    job_id = store.create_job(3, {})
    store.add_results(job_id, [item(0, "a"), item(1, "b")])
    assert store.add_results(job_id, [item(1, "b-again"), item(2, "c"), item(2, "c-dup")]) != []
    store.mark_job(job_id, "done")
    job = store.get_job(job_id)
    assert job is not None and job["completed"] == 3
    assert [r["id"] for r in job["results"]] == ["a", "b", "c"]


def test_concurrent_result_writers(store: Store) -> None:
    job_id = store.create_job(40, {})
    # Four writers, ten positions each, and each also re-delivers a neighbour's first position.
    run_threads(
        4,
        lambda w: store.add_results(
            job_id, [item(w * 10 + i) for i in range(10)] + [item((w + 1) % 4 * 10)]
        ),
    )
    store.mark_job(job_id, "done")
    job = store.get_job(job_id)
    assert job is not None and job["completed"] == 40 and len(job["results"]) == 40


def test_synchronous_results_have_no_job(store: Store) -> None:
    flat = {
        **result("x"),
        "position": 0,
        "problem_id": "p1",
        "problem_version": 1,
        "language": "python",
        "code_hash": code_hash("print(1)"),
    }
    ids = store.add_results(None, [flat, item(1, "y")])
    assert len(ids) == 2 and ids[0] != ids[1]
    assert store.add_results(None, []) == []
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(SubmissionRow.client_id, SubmissionRow.job_id).order_by(SubmissionRow.id)
        ).all()
    assert [tuple(row) for row in rows] == [("x", None), ("y", None)]


def test_unknown_job_and_bad_status(store: Store) -> None:
    assert store.get_job("00000000-0000-0000-0000-000000000000") is None
    with pytest.raises(KeyError):
        store.mark_job("nope", "running")
    with pytest.raises(KeyError):
        store.add_results("nope", [item(0)])
    with pytest.raises(ValueError):
        store.mark_job(store.create_job(1, {}), "finished")
    with pytest.raises(ValueError):
        store.create_job(-1, {})


# Sanitising and availability


def test_sanitize_helper() -> None:
    assert sanitize("a\x00b") == "a\ufffdb"
    assert sanitize({"k\x00": ["\x00", 1, None, ("x\x00",)]}) == {
        "k\ufffd": ["\ufffd", 1, None, ["x\ufffd"]]
    }
    assert sanitize(None) is None and sanitize(3.5) == 3.5


def test_nul_characters_are_stored_as_replacement_characters(store: Store) -> None:
    nul = problem("p\x00", output="a\x00b\n")
    assert store.upsert_problems([nul]) == [("p\x00", 1, True)]
    assert store.upsert_problems([nul])[0][1:] == (1, False)  # the original hash is stable
    got = store.get_problem("p\x00")
    assert (
        got is not None
        and got[0].id == "p\ufffd"
        and got[0].tests[0] == {"input": "1\n", "output": "a\ufffdb\n"}
    )
    assert store.get_problem("p\ufffd") is not None

    job_id = store.create_job(1, {"note": "x\x00"})
    store.add_results(job_id, [item(0, "c\x00", compile_output="warn\x00", error="e\x00")])
    store.mark_job(job_id, "done", error="boom\x00")
    job = store.get_job(job_id)
    assert (
        job is not None and job["error"] == "boom\ufffd" and job["options"] == {"note": "x\ufffd"}
    )
    stored = job["results"][0]
    assert (stored["id"], stored["compile_output"], stored["error"]) == (
        "c\ufffd",
        "warn\ufffd",
        "e\ufffd",
    )

    key = cache_key("p1", 1, "python", "print('\x00')")
    store.put_cached({key: {"status": "ok", "error": "\x00", "tests": [{"message\x00": "\x00"}]}})
    assert store.get_cached([key])[key] == {
        "status": "ok",
        "error": "\ufffd",
        "tests": [{"message\ufffd": "\ufffd"}],
    }


def test_ping_names_the_database_that_answered(store: Store) -> None:
    kind, _, version = store.ping().partition(" ")
    assert kind == store.engine.dialect.name and kind in ("sqlite", "postgresql")
    assert version.split(".")[0].isdigit(), version


@pytest.mark.parametrize(
    "url", ["sqlite:////nonexistent-dir/judge.db", "postgresql+psycopg://postgres@127.0.0.1:1/none"]
)
def test_dead_database_raises_store_unavailable(url: str) -> None:
    with Store(url) as dead:
        with pytest.raises(StoreUnavailable):
            dead.ping()
        with pytest.raises(StoreUnavailable):
            dead.get_job("x")


def test_migrating_a_dead_database_raises_store_unavailable() -> None:
    with pytest.raises(StoreUnavailable, match="Connection refused"):
        upgrade("postgresql+psycopg://postgres@127.0.0.1:1/none")


def test_a_driver_error_is_a_store_error_not_sqlalchemys(store: Store) -> None:
    # A schema broken under the store (a table dropped by hand): each dialect's driver error,
    # however SQLAlchemy classes it, leaves the store as a StoreError naming the table.
    with store.engine.begin() as connection:
        connection.execute(text("DROP TABLE result_cache"))
    with pytest.raises(StoreError, match="result_cache") as raised:
        store.get_cached(["k"])
    assert isinstance(raised.value.__cause__, SQLAlchemyError)


def test_stored_results_keep_the_load_and_truncation_flags(store: Store) -> None:
    job_id = store.create_job(1, {})
    flagged = item(0, "a", verdict="TLE", load_dependent=True, truncated=True)
    store.add_results(job_id, [flagged])
    store.mark_job(job_id, "done")
    job = store.get_job(job_id)
    assert job is not None and job["results"] == [flagged["result"]]
    assert job["results"][0]["load_dependent"] and job["results"][0]["truncated"]
