"""Malformed bodies sent to the SandboxFusion endpoints are 4xx, never 500, and no job runs
(a dispatcher that fails the test if anything reaches it stands in for the sandboxes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Scope

from judge_service.api import create_app
from judge_service.api.app import BodyLimit
from judge_service.settings import Settings


class NothingRuns:
    async def run(self, payloads: list[Any], on_chunk: Any = None, *, outage_s: float = 0.0) -> Any:
        raise AssertionError(f"a malformed request reached the dispatcher: {payloads!r:.200}")

    def health(self) -> dict[str, Any]:
        return {"ok": True, "kind": "none"}

    def queue_depth(self) -> int | None:
        return None

    def occupancy(self) -> dict[str, dict[str, int]]:
        return {}

    def close(self) -> None:
        pass


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/judge.db", max_body_bytes=1 << 20)
    with TestClient(create_app(settings, NothingRuns()), raise_server_exceptions=False) as c:
        yield c


def _submit(**config: Any) -> dict[str, Any]:
    test = [{"input": {"stdin": "1\n"}, "output": {"stdout": "1"}}]
    return {
        "dataset": "inline",
        "id": 1,
        "completion": "```python\nprint(1)\n```",
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": "python",
            "provided_data": {"id": 1, "test": test},
            **config,
        },
    }


MALFORMED: list[tuple[str, Any]] = [
    ("/run_code", "not json"),
    ("/run_code", "[]"),
    ("/run_code", "null"),
    ("/run_code", {}),
    ("/run_code", {"code": 1, "language": "python"}),
    ("/run_code", {"code": "print(1)", "language": ["python"]}),
    ("/run_code", {"code": "print(1)", "language": "no-such-language"}),
    ("/run_code", {"code": "print(1)", "language": "python", "stdin": 5}),
    ("/run_code", {"code": "print(1)", "language": "python", "files": []}),
    ("/run_code", {"code": "print(1)", "language": "python", "files": {"a": "%%%"}}),
    ("/run_code", {"code": "print(1)", "language": "python", "fetch_files": "a"}),
    ("/run_code", {"code": "print(1)", "language": "python", "run_timeout": "soon"}),
    ("/submit", "{"),
    ("/submit", {}),
    ("/submit", {**_submit(), "config": None}),
    ("/submit", _submit(extra=[])),
    ("/submit", _submit(extra="run_all_cases")),
    ("/submit", _submit(provided_data={"id": 1, "test": []})),
    ("/submit", _submit(provided_data={"id": 1, "test": "[{]"})),
    ("/submit", _submit(provided_data={"id": 1, "test": [1]})),
    ("/submit", _submit(provided_data={"id": 1, "test": [{"input": "1", "output": "1"}]})),
    ("/submit", _submit(provided_data={"id": 1, "test": [{"input": {"stdin": 1}}]})),
    ("/submit", _submit(provided_data={"id": 1, "test": [{"input": {}, "output": {}}]})),
    ("/submit", _submit(provided_data=[{"id": 2, "test": []}])),
    ("/submit", _submit(language=None)),
    ("/submit", _submit(dataset_type="HumanEval")),
]


@pytest.mark.parametrize(("path", "body"), MALFORMED)
def test_malformed_bodies_are_4xx(client: TestClient, path: str, body: Any) -> None:
    content = body if isinstance(body, str) else json.dumps(body)
    response = client.post(path, content=content, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500, response.text
    assert "detail" in response.json()


def test_a_body_over_the_limit_is_413_before_it_is_read(client: TestClient) -> None:
    response = client.post("/run_code", content=b"x" * ((1 << 20) + 1))
    assert response.status_code == 413
    assert response.json() == {"detail": f"request body over {1 << 20} bytes"}


async def _call(length: bytes) -> list[Message]:
    reached: list[Scope] = []

    async def app(scope: Scope, receive: Any, send: Any) -> None:
        reached.append(scope)

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "headers": [(b"content-length", length)]}
    await BodyLimit(app, max_bytes=10)(scope, receive, send)
    return sent if not reached else [{"type": "reached the app"}]


@pytest.mark.parametrize(
    ("length", "stopped"),
    [(b"11", True), (b"10", False), (b"abc", False), ("\u00b2".encode("latin-1"), False)],
)
def test_body_limit_reads_only_a_plain_decimal_length(length: bytes, stopped: bool) -> None:
    sent = asyncio.run(_call(length))
    if stopped:
        assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 413
    else:
        assert sent == [{"type": "reached the app"}]
