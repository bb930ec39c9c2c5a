"""ServedModelJudge against real HTTP servers on loopback: answers, retries, errors, batching."""

from __future__ import annotations

import math
import socket
import threading
import time
from typing import Any

import pytest

from complexity_model.ladder import UNKNOWN
from complexity_model.served import ServedModelError, ServedModelJudge, ServedModelUnavailable
from complexity_model.served.client import chat_completions_url
from tests.complexity_model._fake_openai import FakeChatServer, Reply, completion

ANSWER = '{"complexity": "O(n log n)", "confidence": 0.8}'


def ok(content: str = ANSWER, logprobs: Any = None) -> Reply:
    return 200, completion(content, logprobs), {}


def judge_for(server: FakeChatServer, **options: Any) -> ServedModelJudge:
    options.setdefault("backoff_s", 0.01)
    return ServedModelJudge(base_url=server.url, model="tiny", **options)


def test_a_valid_answer_becomes_the_estimate_and_the_request_is_openai_shaped() -> None:
    with FakeChatServer(lambda index, request: ok()) as server:
        with judge_for(server, api_key="secret", max_tokens=50) as judge:
            estimate = judge.estimate("xs.sort()\n", "python")
    assert (estimate.predicted, estimate.confidence, estimate.method) == (
        "O(n log n)",
        0.8,
        "served",
    )
    assert estimate.evidence["raw"] == ANSWER
    assert estimate.evidence["attempts"] == 1
    request = server.requests[0]
    assert request["model"] == "tiny"
    assert request["temperature"] == 0.0 and request["max_tokens"] == 50
    assert request["logprobs"] is True
    assert [message["role"] for message in request["messages"]] == ["system", "user"]
    assert "xs.sort()" in request["messages"][1]["content"]
    assert server.headers[0]["Authorization"] == "Bearer secret"


def test_garbage_is_unknown_with_the_raw_text_never_a_guess() -> None:
    text = "I think it is probably O(n^2), maybe O(n)."
    with FakeChatServer(lambda index, request: ok(text)) as server:
        estimate = judge_for(server).estimate("pass", "python")
    assert estimate.predicted == UNKNOWN
    assert estimate.confidence == 0.0
    assert estimate.evidence["raw"] == text
    assert "not a JSON object" in estimate.evidence["reason"]


def test_confidence_is_capped_by_the_probability_of_the_class_tokens() -> None:
    content = '{"complexity": "O(n)", "confidence": 0.9}'
    logprobs = {
        "content": [
            {"token": '{"complexity": "', "logprob": 0.0},
            {"token": "O(n)", "logprob": math.log(0.5)},
            {"token": '", "confidence": 0.9}', "logprob": -1.0},
        ]
    }
    with FakeChatServer(lambda index, request: ok(content, logprobs)) as server:
        estimate = judge_for(server).estimate("pass", "python")
    assert estimate.predicted == "O(n)"
    assert estimate.confidence == pytest.approx(0.5)
    assert estimate.evidence["stated_confidence"] == 0.9
    assert estimate.evidence["answer_probability"] == pytest.approx(0.5)


def test_5xx_is_retried_until_it_answers() -> None:
    def respond(index: int, request: dict[str, Any]) -> Reply:
        return (503, {"error": "warming up"}, {}) if index < 2 else ok()

    with FakeChatServer(respond) as server:
        estimate = judge_for(server, max_retries=3).estimate("pass", "python")
    assert estimate.predicted == "O(n log n)"
    assert estimate.evidence["attempts"] == 3
    assert len(server.requests) == 3


def test_429_is_retried_after_the_servers_retry_after() -> None:
    def respond(index: int, request: dict[str, Any]) -> Reply:
        return (429, {"error": "busy"}, {"Retry-After": "0"}) if index == 0 else ok()

    with FakeChatServer(respond) as server:
        estimate = judge_for(server, backoff_s=30.0).estimate("pass", "python")
    assert estimate.evidence["attempts"] == 2  # a 30 s backoff would have hit the timeout


def test_a_timeout_is_retried() -> None:
    def respond(index: int, request: dict[str, Any]) -> Reply:
        if index == 0:
            time.sleep(1.0)
        return ok()

    with FakeChatServer(respond) as server:
        estimate = judge_for(server, timeout_s=0.3).estimate("pass", "python")
    assert estimate.predicted == "O(n log n)"
    assert estimate.evidence["attempts"] == 2


def test_a_server_that_keeps_failing_is_unavailable_after_every_retry() -> None:
    with FakeChatServer(lambda index, request: (500, "boom", {})) as server:
        with pytest.raises(ServedModelUnavailable, match="after 3 attempts.*HTTP 500"):
            judge_for(server, max_retries=2).estimate("pass", "python")
    assert len(server.requests) == 3


def test_nothing_listening_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = ServedModelJudge(f"http://127.0.0.1:{port}", "tiny", max_retries=1, backoff_s=0.01)
    with pytest.raises(ServedModelUnavailable, match="ConnectError"):
        judge.estimate("pass", "python")
    with pytest.raises(ServedModelUnavailable):
        judge.estimate_many([("pass", "python"), ("pass", "java")])


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (404, {"error": {"message": "The model `tiny` does not exist."}}),
        (200, "not json"),
        (200, {"choices": []}),
    ],
)
def test_a_wrong_answer_from_the_server_is_an_error_at_once(status: int, body: Any) -> None:
    with FakeChatServer(lambda index, request: (status, body, {})) as server:
        with pytest.raises(ServedModelError) as raised:
            judge_for(server, max_retries=3).estimate("pass", "python")
    assert not isinstance(raised.value, ServedModelUnavailable)
    assert len(server.requests) == 1


def test_a_prompt_longer_than_the_context_is_unknown_for_that_program_alone() -> None:
    message = (
        "This model's maximum context length is 4096 tokens. However, you requested "
        "5000 tokens (4872 in the messages, 128 in the completion)."
    )

    def respond(index: int, request: dict[str, Any]) -> Reply:
        if "huge" in request["messages"][1]["content"]:
            return 400, {"error": {"message": message, "code": 400}}, {}
        return ok()

    with FakeChatServer(respond) as server:
        estimates = judge_for(server).estimate_many([("# huge", "python"), ("x", "python")])
    assert estimates[0].predicted == UNKNOWN and estimates[0].confidence == 0.0
    assert "context" in estimates[0].evidence["reason"]
    assert "4096" in estimates[0].evidence["server"]
    assert estimates[1].predicted == "O(n log n)"
    assert len(server.requests) == 2


def test_estimate_many_keeps_order_and_bounds_concurrency() -> None:
    classes = ["O(1)", "O(n)", "O(n^2)", "O(2^n)", "O(log n)", "O(n^3)", "O(n log n)"] * 2
    three_in_flight = threading.Barrier(3, timeout=5)

    def respond(index: int, request: dict[str, Any]) -> Reply:
        code = request["messages"][1]["content"]
        answer = next(cls for cls in classes if f"# class {cls}\n" in code)
        if index < 3:
            three_in_flight.wait()  # returns only once three requests are in flight together
        return ok(f'{{"complexity": "{answer}", "confidence": 0.5}}')

    items = [(f"# class {cls}\n", "python") for cls in classes]
    with FakeChatServer(respond) as server:
        estimates = judge_for(server, concurrency=3).estimate_many(items)
    assert [estimate.predicted for estimate in estimates] == classes
    assert server.max_in_flight == 3


def test_base_url_with_or_without_v1() -> None:
    assert chat_completions_url("http://h:8000") == "http://h:8000/v1/chat/completions"
    assert chat_completions_url("http://h:8000/v1/") == "http://h:8000/v1/chat/completions"
