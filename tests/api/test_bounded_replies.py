"""A reply carries at most ``max_reply_output_bytes`` of program output, whatever the programs
print, and says where it cut (``truncated``); the API process's memory stays flat under it.

Before the cap, /submit with run_all_cases returned each test's 1 MiB of stdout and 1 MiB of
stderr: 25 tests made a 157 MB response and grew the API process by about 950 MB.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api._judging import sqlite_client

pytestmark = pytest.mark.integration

MIB = 1 << 20
CAP = 8 * MIB
LOUD = "import sys\nsys.stdout.write('o' * (1 << 20))\nsys.stderr.write('e' * (1 << 20))\n"
# A compile error whose diagnostics fill the compiler's 64 KiB output allowance.
NOISY_C = "".join(f"#error {'n' * 60} {line}\n" for line in range(1500)) + "int main(void){}\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with sqlite_client(tmp_path, max_reply_output_bytes=CAP) as c:
        yield c


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_submit_run_all_cases_reply_is_capped_and_flagged(client: TestClient) -> None:
    completion = f"```python\n{LOUD}```"
    request = {
        "dataset": "inline",
        "id": 1,
        "completion": completion,
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": "python",
            "provided_data": {
                "id": 1,
                "test": [{"input": {"stdin": ""}, "output": {"stdout": "x"}}] * 25,
            },
            "extra": {"run_all_cases": True},
        },
    }
    peak_before = _peak_rss_mib()
    response = client.post("/submit", json=request)
    grown = _peak_rss_mib() - peak_before
    assert response.status_code == 200, response.text[:2000]
    assert len(response.content) < CAP + 256 * 1024
    runs = [test["exec_info"]["run_result"] for test in response.json()["tests"]]
    assert len(runs) == 25
    assert sum(len(run["stdout"]) + len(run["stderr"]) for run in runs) <= CAP
    # Each stream is kept whole (SandboxFusion's 1 MiB) while the budget lasts, in test order.
    assert runs[0]["stdout"] == "o" * MIB and runs[0]["stderr"] == "e" * MIB
    assert runs[0]["truncated"] is False
    assert runs[-1]["stdout"] == "" and runs[-1]["truncated"] is True
    assert all(run["status"] == "Finished" and run["return_code"] == 0 for run in runs)
    # Measured: +151 MiB (a 50 MiB reply) before the cap, +32 MiB with it.
    assert grown < 64, f"the API process grew by {grown:.0f} MiB"


def test_run_code_flags_output_it_cut(client: TestClient) -> None:
    loud = client.post(
        "/run_code", json={"code": "print('x' * (3 << 20))", "language": "python"}
    ).json()
    assert loud["status"] == "Success"
    assert loud["run_result"]["stdout"] == "x" * MIB and loud["run_result"]["truncated"] is True
    quiet = client.post("/run_code", json={"code": "print(42)", "language": "python"}).json()
    assert quiet["run_result"]["stdout"] == "42\n" and quiet["run_result"]["truncated"] is False


def test_run_code_output_is_within_the_cap(tmp_path: Path) -> None:
    with sqlite_client(tmp_path, max_reply_output_bytes=MIB + 100) as small:
        body = small.post("/run_code", json={"code": LOUD, "language": "python"}).json()
    run = body["run_result"]
    assert run["stdout"] == "o" * MIB and run["stderr"] == "e" * 100
    assert run["truncated"] is True


def test_judge_compile_output_is_capped_per_reply_sync_and_queued(tmp_path: Path) -> None:
    cap = 100 * 1024
    items = [
        {"id": str(n), "problem": _problem(), "language": "c", "code": NOISY_C} for n in "abcd"
    ]
    with sqlite_client(tmp_path, max_reply_output_bytes=cap, max_batch=8) as small:
        results = small.post("/v1/judge", json={"submissions": items}).json()["results"]
        job = small.post("/v1/submissions", json={"submissions": items}).json()["job_id"]
        deadline = time.monotonic() + 120
        while (polled := small.get(f"/v1/submissions/{job}").json())["status"] != "done":
            assert time.monotonic() < deadline, polled
            time.sleep(0.2)
    for batch in (results, polled["results"]):
        assert [r["verdict"] for r in batch] == ["CE"] * 4
        outputs = [r["compile_output"] or "" for r in batch]
        assert len(outputs[0]) > 60 * 1024 and batch[0]["truncated"] is False
        assert sum(len(output) for output in outputs) <= cap
        assert [r["truncated"] for r in batch[1:]] == [True] * 3


def _problem() -> dict[str, Any]:
    return {"id": "noisy", "tests": [{"input": "", "output": ""}]}
