"""The served-model path end to end on a CPU: `judge complexity serve --backend transformers`
with a tiny random model built on the spot, and ServedModelJudge asking it over HTTP.

Random weights write token soup, so the strict parser must answer ``unknown`` every time.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from complexity_model.ladder import UNKNOWN
from complexity_model.served import ServedModelError, ServedModelJudge
from complexity_model.served._features import load_examples
from complexity_model.served.launch import choose_backend
from tests.complexity_model._tiny_model import build_tiny_model, write_rows

NAME = "tiny-qwen2"
_CLI = "from judge_service.cli import app; app()"
_START_S = 120.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_healthy(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + _START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"the server exited with {process.returncode}:\n{output}")
        try:
            if httpx.get(f"{base}/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the server did not come up within {_START_S} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")
    port = _free_port()
    command = [
        sys.executable,
        "-c",
        _CLI,
        "complexity",
        "serve",
        "--model",
        str(model),
        "--backend",
        "transformers",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--served-model-name",
        NAME,
        "--max-batch",
        "4",
        "--batch-wait-ms",
        "2",
        "--threads",
        "1",
    ]
    environment = {**os.environ, "HF_HUB_OFFLINE": "1"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_judge_answers_unknown_for_a_random_model(server: str) -> None:
    with ServedModelJudge(server, NAME, max_tokens=24, timeout_s=60) as judge:
        estimate = judge.estimate("for i in range(n):\n    print(i)\n", "python")
    assert estimate.predicted == UNKNOWN
    assert estimate.confidence == 0.0
    assert estimate.method == "served"
    assert estimate.evidence["model"] == NAME
    assert estimate.evidence["finish_reason"] in {"stop", "length"}
    assert isinstance(estimate.evidence["raw"], str)
    assert estimate.evidence["reason"]


def test_estimate_many_through_the_server(server: str) -> None:
    items = [("int main() { return 0; }", "cpp"), ("class A {}", "java"), ("x = 1", "python")]
    with ServedModelJudge(server, NAME, max_tokens=8, concurrency=3) as judge:
        estimates = judge.estimate_many(items)
    assert [estimate.predicted for estimate in estimates] == [UNKNOWN] * 3
    assert all(estimate.evidence["attempts"] == 1 for estimate in estimates)


def _chat(server: str, **fields: Any) -> httpx.Response:
    body = {"model": NAME, "messages": [{"role": "user", "content": "hello"}], **fields}
    return httpx.post(f"{server}/v1/chat/completions", json=body, timeout=60)


def test_the_endpoint_speaks_openai_and_honours_max_tokens(server: str) -> None:
    response = _chat(server, max_tokens=5, logprobs=True, temperature=0.7)
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion" and body["model"] == NAME
    choice = body["choices"][0]
    assert choice["message"]["role"] == "assistant"
    usage = body["usage"]
    assert 1 <= usage["completion_tokens"] <= 5
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    tokens = choice["logprobs"]["content"]
    assert "".join(token["token"] for token in tokens) == choice["message"]["content"]
    assert all(token["logprob"] <= 0.0 for token in tokens)
    # Greedy: the same request gives the same answer, whatever the temperature says.
    again = _chat(server, max_tokens=5, logprobs=True, temperature=0.7).json()
    assert again["choices"][0]["message"] == choice["message"]


def test_models_lists_the_served_name(server: str) -> None:
    models = httpx.get(f"{server}/v1/models", timeout=10).json()
    assert [card["id"] for card in models["data"]] == [NAME]


def test_the_batching_options_reach_the_server(server: str) -> None:
    _chat(server, max_tokens=2)
    stats = httpx.get(f"{server}/stats", timeout=10).json()
    assert (stats["max_batch"], stats["batch_wait_ms"], stats["threads"]) == (4, 2.0, 1)
    assert stats["device"] == "cpu"
    assert stats["requests"] >= 1 and 1 <= stats["largest_batch"] <= 4


def test_requests_it_cannot_serve_are_refused(server: str) -> None:
    wrong = _chat(server, model="another-model")
    assert wrong.status_code == 404
    assert "another-model" in wrong.json()["error"]["message"]
    assert _chat(server, stream=True).status_code == 400
    assert _chat(server, max_tokens=100_000).status_code == 400
    assert _chat(server, messages=[]).status_code == 400
    with pytest.raises(ServedModelError, match="404"):
        ServedModelJudge(server, "another-model", max_retries=0).estimate("x = 1", "python")


def test_code_longer_than_the_context_is_unknown(server: str) -> None:
    code = "v = [i for i in range(n)]  # a line\n" * 3000
    with ServedModelJudge(server, NAME, max_code_chars=len(code)) as judge:
        estimate = judge.estimate(code, "python")
    assert estimate.predicted == UNKNOWN
    assert "maximum context length is 8192" in estimate.evidence["server"]


def test_serving_a_missing_model_fails_clearly(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-c",
        _CLI,
        "complexity",
        "serve",
        "--backend",
        "transformers",
        "--model",
        str(tmp_path / "absent"),
    ]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert result.returncode == 2
    assert "no model at" in result.stderr and "nothing is downloaded" in result.stderr


@pytest.fixture(scope="module")
def fitted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The tiny model trained until it writes its four rows' answers, served in this process."""
    import uvicorn

    from complexity_model.served._generate import TransformersGenerator
    from complexity_model.served.server import create_app
    from complexity_model.train import TrainConfig, train

    root = tmp_path_factory.mktemp("fitted")
    data = write_rows(root / "rows.jsonl")
    config = TrainConfig(
        data=data,
        model=str(build_tiny_model(root / "base")),
        output=root / "model",
        max_steps=40,
        batch_size=4,
        learning_rate=1e-2,
        warmup_ratio=0.0,
        device="cpu",
    )
    train(config, log=lambda line: None)
    app = create_app(TransformersGenerator(config.output), NAME)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield f"http://127.0.0.1:{port}/v1", data
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_a_trained_model_answers_its_classes_through_the_judge(
    fitted_server: tuple[str, Path],
) -> None:
    url, data = fitted_server
    examples, _ = load_examples(data)
    with ServedModelJudge(url, NAME, concurrency=2) as judge:
        estimates = judge.estimate_many([(ex.code, ex.language) for ex in examples])
    assert [estimate.predicted for estimate in estimates] == [ex.complexity for ex in examples]
    for estimate in estimates:
        assert estimate.evidence["stated_confidence"] == 1.0  # what it was trained to say
        # The real confidence: the probability of the class tokens, from the logprobs.
        assert 0.5 < estimate.evidence["answer_probability"] <= 1.0
        assert estimate.confidence == estimate.evidence["answer_probability"]


def test_auto_takes_transformers_without_vllm() -> None:
    assert choose_backend("auto") == "transformers"  # no vLLM in the test environment
    assert choose_backend("vllm") == "vllm"
    with pytest.raises(ValueError, match="--backend"):
        choose_backend("tensorrt")


def _serve_vllm(tmp_path: Path, *extra: str, path: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-c",
        _CLI,
        "complexity",
        "serve",
        "--backend",
        "vllm",
        "--model",
        "/models/qwen",
        "--port",
        "8123",
        "--served-model-name",
        "qwen",
        *extra,
    ]
    environment = {**os.environ, "PATH": path, "PYTHONPATH": str(tmp_path / "site")}
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=environment)


def test_vllm_backend_without_vllm_says_how_to_get_it(tmp_path: Path) -> None:
    result = _serve_vllm(tmp_path, path=str(tmp_path / "empty-bin"))
    assert result.returncode == 2
    assert "vLLM is not installed" in result.stderr and "--backend transformers" in result.stderr


def test_vllm_backend_execs_vllm_serve_offline(tmp_path: Path) -> None:
    """With a stand-in `vllm` package and executable (vLLM itself needs a GPU), the command
    replaces itself with `vllm serve` and passes the extra arguments through."""
    (tmp_path / "site" / "vllm").mkdir(parents=True)
    (tmp_path / "site" / "vllm" / "__init__.py").write_text("")
    binary = tmp_path / "bin" / "vllm"
    binary.parent.mkdir()
    record = tmp_path / "argv.json"
    binary.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'offline': os.environ.get('HF_HUB_OFFLINE')}}, "
        f"open({str(record)!r}, 'w'))\n"
    )
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    result = _serve_vllm(
        tmp_path,
        "--",
        "--max-model-len",
        "8192",
        path=f"{binary.parent}:{os.environ.get('PATH', '')}",
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(record.read_text())
    assert seen["argv"] == [
        "serve",
        "/models/qwen",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--served-model-name",
        "qwen",
        "--max-model-len",
        "8192",
    ]
    assert seen["offline"] == "1"
