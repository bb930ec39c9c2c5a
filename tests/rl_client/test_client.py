"""JudgeClient and AsyncJudgeClient: retries, batching and order on a scripted transport, then
the real thing against a live service."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from rl_client import (
    AsyncJudgeClient,
    JudgeClient,
    JudgeOptions,
    JudgeRejected,
    JudgeUnavailable,
    RetryPolicy,
    Submission,
)
from tests.api._cluster import ApiServer
from tests.rl_client.conftest import SUM_OK, SUM_PROBLEM, SUM_WRONG, fenced

FAST = RetryPolicy(max_retries=3, backoff_s=0.001, max_backoff_s=0.01)


def _echo(request: httpx.Request) -> httpx.Response:
    """Judges every item as AC with its index in the batch as the pass rate (to check order)."""
    items = json.loads(request.content)["submissions"]
    results = [
        {
            "id": item.get("id"),
            "status": "ok",
            "verdict": "AC",
            "pass_rate": 1.0,
            "reward": {"format": 0.0, "correctness": 1.0, "time": 0.5, "total": 1.5},
        }
        for item in items
    ]
    return httpx.Response(200, json={"results": results})


def test_retries_on_503_429_and_connection_errors_then_succeeds() -> None:
    script = iter(["connect", 503, 429, "ok"])
    calls: list[object] = []

    def handler(request: httpx.Request) -> httpx.Response:
        step = next(script)
        calls.append(step)
        if step == "connect":
            raise httpx.ConnectError("refused", request=request)
        if step == "ok":
            return _echo(request)
        return httpx.Response(int(step), headers={"retry-after": "0"}, json={"detail": "busy"})

    client = JudgeClient(retry=FAST, transport=httpx.MockTransport(handler))
    [result] = client.judge([Submission(problem_id="sum", code="x", id="a")])
    assert calls == ["connect", 503, 429, "ok"]
    assert (result.id, result.verdict, result.score) == ("a", "AC", 1.5)


def test_gives_up_after_the_retries_and_does_not_retry_a_client_error() -> None:
    attempts = {"count": 0}

    def down(request: httpx.Request) -> httpx.Response:
        attempts["count"] += 1
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(JudgeUnavailable, match="failed 4 times"):
        JudgeClient(retry=FAST, transport=httpx.MockTransport(down)).judge([{"code": "x"}])
    assert attempts["count"] == 4

    def refuse(request: httpx.Request) -> httpx.Response:
        attempts["count"] += 1
        return httpx.Response(422, json={"detail": "no submissions"})

    attempts["count"] = 0
    with pytest.raises(JudgeRejected) as raised:
        JudgeClient(retry=FAST, transport=httpx.MockTransport(refuse)).judge([{"code": "x"}])
    assert attempts["count"] == 1 and raised.value.status_code == 422
    assert raised.value.detail == "no submissions"


def test_backoff_grows_with_jitter_and_follows_retry_after() -> None:
    policy = RetryPolicy(backoff_s=1.0, max_backoff_s=8.0)
    for retry, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (5, 8.0)]:
        delays = {policy.delay(retry) for _ in range(50)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays) and len(delays) > 1
    asked = httpx.Response(429, headers={"retry-after": "3"})
    assert policy.delay(0, asked) == 3.0


def test_batches_keep_order_and_the_concurrency_limit() -> None:
    lock, state = threading.Lock(), {"now": 0, "most": 0, "sizes": []}

    def handler(request: httpx.Request) -> httpx.Response:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
            state["sizes"].append(len(json.loads(request.content)["submissions"]))
        time.sleep(0.02)
        with lock:
            state["now"] -= 1
        return _echo(request)

    client = JudgeClient(batch_size=7, concurrency=3, transport=httpx.MockTransport(handler))
    items = [{"id": str(i), "problem_id": "sum", "code": "x"} for i in range(50)]
    seen: list[int] = []
    results = client.judge(items, on_batch=lambda batch: seen.append(len(batch)))
    assert [r.id for r in results] == [str(i) for i in range(50)]
    assert sorted(state["sizes"]) == sorted([7] * 7 + [1]) and sorted(seen) == sorted(
        state["sizes"]
    )
    assert state["most"] <= 3


def test_async_client_limits_concurrency_and_retries() -> None:
    state = {"now": 0, "most": 0, "failed": set()}

    async def handler(request: httpx.Request) -> httpx.Response:
        first = json.loads(request.content)["submissions"][0]["id"]
        if first not in state["failed"]:  # every batch fails once with a 502
            state["failed"].add(first)
            return httpx.Response(502)
        state["now"] += 1
        state["most"] = max(state["most"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return _echo(request)

    async def run() -> list[str | None]:
        async with AsyncJudgeClient(
            batch_size=4, concurrency=2, retry=FAST, transport=httpx.MockTransport(handler)
        ) as client:
            results = await client.judge([{"id": str(i), "code": "x"} for i in range(20)])
        return [r.id for r in results]

    assert asyncio.run(run()) == [str(i) for i in range(20)]
    assert len(state["failed"]) == 5 and state["most"] <= 2


# ---- against the live service ----------------------------------------------------------------
@pytest.mark.integration
def test_judge_against_the_service_typed_results(service: ApiServer) -> None:
    with JudgeClient(service.url, batch_size=3, concurrency=2) as client:
        items = [
            Submission(id="ok", problem_id="sum", code=SUM_OK),
            Submission(id="wrong", problem_id="sum", code=SUM_WRONG),
            Submission(id="fenced", problem_id="sum", completion=fenced(SUM_OK)),
            Submission(id="no-code", problem_id="sum", completion="I do not know."),
            {
                "id": "inline",
                "problem": {**SUM_PROBLEM, "id": "sum-inline"},
                "language": "python",
                "code": SUM_OK,
            },
            Submission(id="unknown", problem_id="nope", code=SUM_OK),
        ]
        results = client.judge(items)
    by_id = {r.id: r for r in results}
    assert [r.id for r in results] == ["ok", "wrong", "fenced", "no-code", "inline", "unknown"]
    ok = by_id["ok"]
    assert ok.accepted and ok.pass_rate == 1.0 and len(ok.tests) == 5
    assert ok.tests[0].verdict == "AC" and ok.tests[0].time_ms >= 0
    assert ok.complexity is not None and ok.complexity.predicted == "O(1)"
    # Decided by the static analyser, whose O(1) is not trusted to pay R_time (see
    # complexity_model.static.calibrate): reported, with why, and not time-optimal.
    assert ok.complexity.time_reward_abstained and not ok.complexity.meets_reference
    assert ok.reward is not None and ok.reward.time == 0.0
    assert by_id["wrong"].verdict == "WA" and by_id["wrong"].score == 0.0
    assert by_id["fenced"].accepted and by_id["fenced"].score == ok.score
    assert by_id["no-code"].verdict == "CE" and by_id["no-code"].score == 0.0
    assert by_id["inline"].accepted
    assert by_id["unknown"].status == "error" and by_id["unknown"].score is None
    assert "unknown problem" in (by_id["unknown"].error or "")


@pytest.mark.integration
def test_async_client_and_problem_upsert_from_jsonl_parquet_and_dataset(
    service: ApiServer, tmp_path: Path
) -> None:
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {
            "id": f"double-{i}",
            "prompt": "print twice the input",
            "tests": [{"input": f"{j}\n", "output": str(2 * j * (i + 1))} for j in range(3)],
        }
        for i in range(3)
    ]
    jsonl = tmp_path / "problems.jsonl"
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows[:1]))
    parquet = tmp_path / "problems.parquet"
    as_text = [{**row, "tests": json.dumps(row["tests"])} for row in rows[1:2]]
    pq.write_table(pa.Table.from_pylist(as_text), parquet)
    dataset = datasets.Dataset.from_list(
        [{"prompt": "...", "problem": json.dumps({**rows[2], "prompt": None})}]
    )

    async def run() -> list[Any]:
        async with AsyncJudgeClient(service.url, batch_size=2) as client:
            stored = [
                *await client.problems.upsert(jsonl),
                *await client.problems.upsert(parquet),
                *await client.problems.upsert(dataset),
            ]
            again = await client.problems.upsert(jsonl)
            fetched = await client.problems.get("double-1")
            code = "n = int(input())\nprint(n * {k})\n"
            results = await client.judge(
                [
                    {
                        "problem_id": f"double-{i}",
                        "language": "python",
                        "code": code.format(k=2 * i + 2),
                    }
                    for i in range(3)
                ],
                JudgeOptions(complexity="off"),
            )
            return [stored, again, fetched, results]

    stored, again, fetched, results = asyncio.run(run())
    assert [p.id for p in stored] == ["double-0", "double-1", "double-2"]
    assert all(p.new_version for p in stored) and not again[0].new_version
    # The row's prompt is the model's, not the problem's code: it does not become the problem's.
    assert fetched["tests"] == rows[1]["tests"] and fetched.get("prompt") is None
    assert all(r.accepted and r.complexity is None for r in results), results


@pytest.mark.integration
def test_sandboxes_down_is_a_system_error_with_no_score(broken_service: ApiServer) -> None:
    with JudgeClient(broken_service.url) as client:
        [result] = client.judge([Submission(problem_id="sum", code=SUM_OK)])
    assert result.status == "system_error" and result.score is None and result.reward is None
