"""The client sends each distinct inline problem once and names it afterwards; whatever the
service has forgotten (or never understood) is sent again inline, so no result is lost."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rl_client import AsyncJudgeClient, JudgeClient, Submission
from rl_client._problem_names import problem_hash
from tests.api._cluster import ApiServer
from tests.rl_client.conftest import SUM_OK, SUM_PROBLEM, SUM_WRONG, sqlite_service

BIG = {  # about 1 MB of tests, as a contest problem carries
    "id": "big-sum",
    "tests": [
        {"input": " ".join(["1"] * 50_000) + "\n", "output": "50000"},
        {"input": " ".join(["2"] * 50_000) + "\n", "output": "100000"},
    ],
}
TOTAL = "print(sum(map(int, input().split())))\n"


class FakeService:
    """Answers /v1/judge the way the service resolves names: a name is known once a request
    carrying the problem inline was answered; ``forget`` drops them all (a restart); ``old``
    refuses the field as a service from before names does."""

    def __init__(self, old: bool = False) -> None:
        self.old = old
        self.held: set[str] = set()
        self.bodies: list[list[dict[str, Any]]] = []

    def forget(self) -> None:
        self.held.clear()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        items = json.loads(request.content)["submissions"]
        self.bodies.append(items)
        results = []
        for item in items:
            name = item.get("problem_hash")
            if name is not None and (self.old or name not in self.held):
                error = (
                    "problem_hash: Extra inputs are not permitted"
                    if self.old
                    else f"unknown problem_hash {name}: send the problem inline"
                )
                results.append({"id": None, "status": "error", "error": error})
                continue
            if "problem" in item:
                self.held.add(problem_hash(item["problem"]) or "")
            verdict = "AC" if item["code"] == SUM_OK else "WA"
            results.append({"id": None, "status": "ok", "verdict": verdict, "pass_rate": 1.0})
        return httpx.Response(200, json={"results": results})


def _group(problem: dict[str, Any], n: int = 8) -> list[Submission]:
    return [Submission(problem=problem, code=SUM_OK if i % 2 else SUM_WRONG) for i in range(n)]


def _inline_copies(body: list[dict[str, Any]]) -> int:
    return sum("problem" in item for item in body)


def test_a_group_carries_its_problem_once_and_the_next_step_not_at_all() -> None:
    fake = FakeService()
    client = JudgeClient(transport=httpx.MockTransport(fake), batch_size=4)
    first = client.judge(_group(SUM_PROBLEM))
    second = client.judge(_group(SUM_PROBLEM))
    assert [r.verdict for r in first] == [r.verdict for r in second] == ["WA", "AC"] * 4
    copies = [_inline_copies(body) for body in fake.bodies]
    # A batch sent while the first is in flight cannot count on it and carries its own copy.
    assert copies[:2] in ([1, 0], [0, 1], [1, 1]) and copies[2:] == [0, 0], copies


def test_names_the_service_forgot_are_sent_again_inline() -> None:
    fake = FakeService()
    client = JudgeClient(transport=httpx.MockTransport(fake), batch_size=8)
    client.judge(_group(SUM_PROBLEM))
    fake.forget()
    results = client.judge(_group(SUM_PROBLEM))
    assert [r.status for r in results] == ["ok"] * 8
    assert [r.verdict for r in results] == ["WA", "AC"] * 4
    assert [_inline_copies(body) for body in fake.bodies] == [1, 0, 8]
    client.judge(_group(SUM_PROBLEM))  # known again after the resend
    assert _inline_copies(fake.bodies[-1]) == 0


def test_a_service_from_before_names_still_gets_every_item_judged() -> None:
    fake = FakeService(old=True)
    client = AsyncJudgeClient(transport=httpx.MockTransport(fake), batch_size=8)
    results = asyncio.run(client.judge(_group(SUM_PROBLEM)))
    assert [r.verdict for r in results] == ["WA", "AC"] * 4
    assert [_inline_copies(body) for body in fake.bodies] == [1, 7]


def test_naming_can_be_turned_off() -> None:
    fake = FakeService()
    client = JudgeClient(transport=httpx.MockTransport(fake), name_repeated_problems=False)
    client.judge(_group(SUM_PROBLEM, 4))
    client.judge(_group(SUM_PROBLEM, 4))
    assert [_inline_copies(body) for body in fake.bodies] == [4, 4]


def test_a_problem_holding_tuples_gets_the_name_the_service_computes() -> None:
    # Rows from datasets or hand-built dicts may hold tuples; on the wire they are lists.
    fake = FakeService()
    client = JudgeClient(transport=httpx.MockTransport(fake))
    as_tuples = {**SUM_PROBLEM, "tests": tuple(SUM_PROBLEM["tests"])}  # type: ignore[arg-type]
    client.judge(_group(as_tuples, 4))
    results = client.judge(_group(as_tuples, 4))
    assert [r.status for r in results] == ["ok"] * 4
    assert [_inline_copies(body) for body in fake.bodies] == [1, 0]


class CountingTransport(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[int] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(len(request.read()))
        return super().handle_request(request)


def test_against_the_service_the_second_step_sends_kilobytes(service: ApiServer) -> None:
    transport = CountingTransport()
    client = JudgeClient(service.url, transport=transport, batch_size=8)
    group = [Submission(problem=BIG, code=TOTAL if i % 2 else "print(0)\n") for i in range(8)]
    first = client.judge(group)
    second = client.judge(group)
    assert [r.verdict for r in first] == [r.verdict for r in second] == ["WA", "AC"] * 4
    one_problem = len(json.dumps(BIG))
    assert one_problem < transport.sent[0] < 2 * one_problem, transport.sent
    assert transport.sent[1] < 10_000, transport.sent


@pytest.fixture(scope="module")
def forgetful(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """The service with no memory for inline problems: every name it is sent is unknown."""
    with sqlite_service(tmp_path_factory.mktemp("forgetful"), JUDGE_INLINE_PROBLEMS_MB="0") as api:
        yield api


def test_a_service_that_keeps_nothing_loses_nothing(forgetful: ApiServer) -> None:
    transport = CountingTransport()
    client = JudgeClient(forgetful.url, transport=transport, batch_size=8)
    results = client.judge(_group(SUM_PROBLEM))
    assert [r.verdict for r in results] == ["WA", "AC"] * 4
    assert len(transport.sent) == 2  # the names came back unknown; sent again inline
