"""``judge sft-filter`` end to end: over 100 candidates of 20 problems (correct-and-optimal,
correct-but-slow and wrong ones) against a live service; the run is killed part-way and
resumed without judging again what it had judged.

The service's complexity judge here is the static one (empirical timing off): this tests the
filter, not the timing judge (whose accuracy on these programs is
``bench/empirical_complexity.py``'s), and it runs in seconds instead of minutes on a loaded
host. The static judge classes every Python solution of these problems correctly."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rl_client import JudgeClient
from rl_client._journal import read_records
from tests.api._cluster import ApiServer
from tests.rl_client._problems import complexity_problems

pytestmark = pytest.mark.integration

UNDECLARED = 4  # the first problems declare no optimal class: the best passing one counts


def _candidates() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    problems, rows = [], []
    for index, case in enumerate(complexity_problems(20)):
        problem = dict(case.problem)
        if index < UNDECLARED:
            problem.pop("optimal_complexity")
        problems.append(problem)
        pid = problem["id"]
        wrong = (
            f"def {problem['entry_point']}(*args):\n    return -1\n"
            if "entry_point" in problem
            else "print(-1)\n"
        )
        for label, code in case.solutions.items():
            optimal = label == case.optimal
            rows.append({"problem_id": pid, "code": code, "label": label, "optimal": optimal})
            answer = f"Here is a solution.\n```python\n{code}```\n"
            rows.append(
                {"problem_id": pid, "completion": answer, "label": label, "optimal": optimal}
            )
        rows.append({"problem_id": pid, "code": wrong, "label": "wrong", "optimal": False})
    random.Random(7).shuffle(rows)
    return problems, rows


def _cli(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "judge_service", "sft-filter", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_sft_filter_keeps_exactly_the_optimal_candidates_and_resumes(
    service: ApiServer, tmp_path: Path
) -> None:
    problems, rows = _candidates()
    assert len(rows) >= 100 and len(problems) == 20
    assert {row["optimal"] for row in rows if row["label"] != "wrong"} == {True, False}
    with JudgeClient(service.url) as client:
        client.problems.upsert(problems)
    source = tmp_path / "candidates.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out"
    url = ["--url", service.url]

    first = _cli(str(source), "--out", str(out), *url, "--batch-size", "4", "--concurrency", "1")
    journal = out / "judged.jsonl"
    deadline = time.monotonic() + 300
    while not (journal.exists() and journal.read_text().count("\n") >= 12):
        assert first.poll() is None and time.monotonic() < deadline, first.stdout
        time.sleep(0.2)
    first.send_signal(signal.SIGKILL)  # no chance to tidy up
    first.wait()
    judged_before = len({record["index"] for record in read_records(journal)})
    assert 12 <= judged_before < len(rows)

    second = _cli(str(source), "--out", str(out), *url)
    output = second.communicate(timeout=900)[0].decode()
    assert second.returncode == 0, output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judged_now"] == len(rows) - judged_before, summary
    assert summary["candidates"] == len(rows) and summary["system_errors"] == 0

    kept = [json.loads(line) for line in (out / "kept.jsonl").read_text().splitlines()]
    dropped = [json.loads(line) for line in (out / "dropped.jsonl").read_text().splitlines()]
    assert len(kept) + len(dropped) == len(rows)
    wrongly_dropped = [(r["problem_id"], r["label"], r["judge"]) for r in dropped if r["optimal"]]
    wrongly_kept = [(r["problem_id"], r["label"], r["judge"]) for r in kept if not r["optimal"]]
    assert not wrongly_dropped and not wrongly_kept, (wrongly_dropped, wrongly_kept)
    assert len(kept) == 2 * len(problems)  # each problem's optimal solution, as code and answer
    reasons = {r["label"]: r["judge"]["reason"] for r in dropped}
    assert reasons["wrong"].startswith("failed tests: WA")
    assert all(("worse than" in reason) for label, reason in reasons.items() if label != "wrong")
    per_problem = summary["problems"]
    assert sum(p["kept"] for p in per_problem.values()) == len(kept)
    assert [p["declared"] for p in per_problem.values()].count(False) == UNDECLARED
    assert sum(summary["classes"].values()) == summary["passed"] == len(rows) - len(problems)
    assert "kept" in output and "O(n)" in output  # the table and the class histogram
