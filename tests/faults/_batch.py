"""What the fault tests judge and how they watch a job: distinct Python programs with known
verdicts, and polls that time themselves."""

from __future__ import annotations

import time
from typing import Any

import httpx

SUM = {
    "id": "sum",
    "tests": [{"input": f"{i} {i + 1}\n", "output": str(2 * i + 1)} for i in range(4)],
}


def sum_batch(size: int, sleep_s: float = 0.01) -> tuple[list[dict[str, Any]], list[str]]:
    """``size`` distinct submissions of ``sum`` (none from the cache), with their verdicts:
    mostly AC, every tenth WA, every tenth RE."""
    items, verdicts = [], []
    for index in range(size):
        body = f"import time\na, b = map(int, input().split())\ntime.sleep({sleep_s})\n"
        if index % 10 == 7:
            body, verdict = body + "print(a - b)\n", "WA"
        elif index % 10 == 9:
            body, verdict = body + f"raise SystemExit({index % 50 + 1})\n", "RE"
        else:
            body, verdict = body + "print(a + b)\n", "AC"
        items.append(
            {
                "id": f"s{index}",
                "problem_id": "sum",
                "language": "python",
                "code": body + f"# {index}\n",
            }  # fmt: skip
        )
        verdicts.append(verdict)
    return items, verdicts


def timed_status(client: httpx.Client, job_id: str) -> tuple[float, int, dict[str, Any]]:
    """One poll: how long it took, the HTTP status and the body (empty when not JSON)."""
    started = time.monotonic()
    try:
        response = client.get(f"/v1/submissions/{job_id}")
    except httpx.TimeoutException:
        return time.monotonic() - started, 0, {}
    took = time.monotonic() - started
    try:
        body: dict[str, Any] = response.json()
    except ValueError:
        body = {}
    return took, response.status_code, body


def poll_until_done(client: httpx.Client, job_id: str, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        _, code, body = timed_status(client, job_id)
        if code == 200 and body["status"] in ("done", "failed"):
            return body
        time.sleep(0.25)
    raise AssertionError(f"job {job_id} not finished in {timeout_s} s: {_summary(body)}")


def _summary(body: dict[str, Any]) -> dict[str, Any]:
    return {key: body.get(key) for key in ("status", "completed", "total", "error")}


def check_every_item(
    status: dict[str, Any], items: list[dict[str, Any]], verdicts: list[str]
) -> list[str]:
    """Every submission has its verdict or an explicit system error, in order; the ids of
    the system errors. Fails on a wrong verdict or a missing result."""
    assert status["status"] == "done", _summary(status)
    results = status["results"]
    assert results is not None and len(results) == len(items), _summary(status)
    assert [r["id"] for r in results] == [item["id"] for item in items]
    wrong, system_errors = [], []
    for result, verdict in zip(results, verdicts, strict=True):
        if result["status"] == "system_error":
            assert result["error"] and result["reward"] is None, result
            system_errors.append(result["id"])
        elif (result["status"], result["verdict"]) != ("ok", verdict):
            wrong.append((result["id"], result["status"], result["verdict"], verdict))
    assert not wrong, wrong[:10]
    return system_errors
