"""``judge filter`` end to end: 20 HumanEval problems, a policy (a tiny transformers model
trained on the spot to answer each problem's prompt correctly with a known frequency) served
over the OpenAI-compatible API by ``rl_client.policy_server``, 8 samples per problem judged by
the live service; the run is killed part-way and resumed without sampling (hence judging)
the finished problems again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rl_client import JudgeClient
from rl_client._journal import read_records
from tests.api._cluster import ApiServer, free_port
from tests.rl_client._problems import humaneval_problems
from tests.rl_client._tiny_policy import train_answer_policy

pytestmark = pytest.mark.integration

COUNT = 20
# Of 4 training answers per problem, this many are correct: the policy's pass rate.
CORRECT_OF_4 = [0, 1, 2, 3, 4]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(base URL, request log) of the policy server on the tiny trained model."""
    root = tmp_path_factory.mktemp("policy")
    rows = []
    for index, (problem, _, good, bad) in enumerate(humaneval_problems(COUNT)):
        correct = CORRECT_OF_4[index % len(CORRECT_OF_4)]
        answers = [(f"```python\n{good}```", correct), (f"```python\n{bad}```", 4 - correct)]
        rows.append((f"Solve task {problem['id']}.", [(a, c) for a, c in answers if c]))
    model = train_answer_policy(root / "model", rows)
    port, log = free_port(), root / "requests.jsonl"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rl_client.policy_server",
            "--model",
            str(model),
            "--port",
            str(port),
            "--served-model-name",
            "policy",
            "--request-log",
            str(log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=(root / "server.log").open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, (root / "server.log").read_text()
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.3)
        yield url, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_policy_server_speaks_the_openai_api(policy: tuple[str, Path]) -> None:
    url, _ = policy
    assert httpx.get(f"{url}/v1/models").json()["data"][0]["id"] == "policy"
    body = {
        "model": "policy",
        "prompt": "Solve task HumanEval-4.",
        "n": 3,
        "max_tokens": 4,
        "temperature": 1.0,
        "seed": 3,
    }
    answer = httpx.post(f"{url}/v1/completions", json=body, timeout=60).json()
    assert [c["index"] for c in answer["choices"]] == [0, 1, 2]
    assert all(c["text"].startswith("```python") for c in answer["choices"])
    chat = {"model": "policy", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2}
    reply = httpx.post(f"{url}/v1/chat/completions", json=chat, timeout=60).json()
    assert reply["choices"][0]["message"]["role"] == "assistant"
    wrong = httpx.post(f"{url}/v1/completions", json={**body, "model": "other"})
    assert wrong.status_code == 404 and "error" in wrong.json()
    bad = httpx.post(f"{url}/v1/completions", json={**body, "temperature": "hot"})
    assert bad.status_code == 400


def _filter(problems: Path, out: Path, policy_url: str, judge_url: str) -> subprocess.Popen[bytes]:
    args = [
        "--out",
        str(out),
        "--base-url",
        policy_url,
        "--model",
        "policy",
        "--n",
        "8",
        "--max-tokens",
        "4",
        "--seed",
        "1",
        "--concurrency",
        "1",
        "--url",
        judge_url,
    ]
    return subprocess.Popen(
        [sys.executable, "-m", "judge_service", "filter", str(problems), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "120"},
    )


@pytest.mark.timeout(1200)  # 4 minutes on a host at load average 11; a CI host is quieter
def test_filter_end_to_end_with_an_interrupted_run_resumed(
    service: ApiServer, policy: tuple[str, Path], tmp_path: Path
) -> None:
    policy_url, request_log = policy
    problems = humaneval_problems(COUNT)
    with JudgeClient(service.url) as client:
        client.problems.upsert([problem for problem, *_ in problems])
    source = tmp_path / "problems.jsonl"
    source.write_text(
        "".join(
            json.dumps({"problem_id": p["id"], "prompt": f"Solve task {p['id']}."}) + "\n"
            for p, *_ in problems
        )
    )
    out = tmp_path / "out"
    requests_before = len(read_records(request_log))

    first = _filter(source, out, policy_url, service.url)
    deadline = time.monotonic() + 300
    while len(_finished(out)) < 5:
        assert first.poll() is None and time.monotonic() < deadline, first.stdout
        time.sleep(0.2)
    first.send_signal(signal.SIGINT)  # Ctrl-C
    first.wait(timeout=60)
    done_first = _finished(out)
    assert 5 <= len(done_first) < COUNT

    second = _filter(source, out, policy_url, service.url)
    output = second.communicate(timeout=600)[0].decode()
    assert second.returncode == 0, output
    records = [*read_records(out / "kept.jsonl"), *read_records(out / "dropped.jsonl")]
    assert sorted(r["problem_id"] for r in records) == sorted(p["id"] for p, *_ in problems)
    sampled = Counter(
        r["prompt"].split()[-1].rstrip(".") for r in read_records(request_log)[requests_before:]
    )
    assert all(sampled[pid] == 1 for pid in done_first), sampled  # never sampled again
    assert sum(sampled.values()) <= COUNT + 1  # at most the one in flight at the interrupt

    kept_ids = {r["problem_id"] for r in read_records(out / "kept.jsonl")}
    for record in records:
        samples = record["samples"]
        assert record["n"] == len(samples) == 8
        assert record["k"] == sum(s["counted"] for s in samples)
        assert all(s["counted"] == (s["verdict"] == "AC") for s in samples)
        assert (record["problem_id"] in kept_ids) == (1 <= record["k"] <= 5)
    k_of = {r["problem_id"]: r["k"] for r in records}
    always = [p["id"] for i, (p, *_) in enumerate(problems) if CORRECT_OF_4[i % 5] == 4]
    never = [p["id"] for i, (p, *_) in enumerate(problems) if CORRECT_OF_4[i % 5] == 0]
    assert all(k_of[pid] == 8 for pid in always) and all(k_of[pid] == 0 for pid in never), k_of
    assert kept_ids and len(kept_ids) < COUNT

    summary = json.loads((out / "summary.json").read_text())
    assert summary["histogram"] == [list(k_of.values()).count(k) for k in range(9)]
    assert summary["done_now"] == COUNT - len(done_first) and summary["failed"] == 0
    assert (out / "k_histogram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert " 8 " in output and "kept" in output  # the terminal histogram


def _finished(out: Path) -> set[str]:
    return (
        {
            r["problem_id"]
            for name in ("kept.jsonl", "dropped.jsonl")
            for r in read_records(out / name)
        }
        if out.exists()
        else set()
    )
