"""Each branch of the error tree reaches the client through the one mapping (``api/errors.py``),
through the real app: bad input 422, over a cap 413, the store or the sandboxes failing 503.

Also through the real app elsewhere: the broker down (``test_api``), the compat endpoints'
own contracts (``test_compat``), the database refusing connections (``test_cluster``).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.settings import Settings
from tests.api._cluster import postgres_database

pytestmark = pytest.mark.integration

SUM = {"id": "sum", "tests": [{"input": "1 2\n", "output": "3"}]}
ITEM = {"problem_id": "sum", "language": "python", "code": "print(3)\n"}
FENCED = "```python\nprint(3)\n```"
INLINE = {
    "dataset": "inline",
    "id": 1,
    "completion": "```python\nprint(3)\n```",
    "config": {
        "dataset_type": "CommonOJDataset",
        "language": "python",
        "provided_data": {"id": 1, "test": [{"input": {"stdin": ""}, "output": {"stdout": "3"}}]},
    },
}


def _settings(database_url: str, **fields: Any) -> Settings:
    return Settings(
        database_url=database_url, sandboxes_per_language=1, complexity_empirical=False, **fields
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(f"sqlite:///{tmp_path}/judge.db", max_batch=2))) as c:
        assert c.post("/v1/problems", json=SUM).status_code == 200
        yield c


def test_bad_input_is_422_with_what_to_change(client: TestClient) -> None:
    empty = client.post("/v1/judge", json={"submissions": []})
    assert (empty.status_code, empty.json()) == (422, {"detail": "no submissions"})
    cobol = client.post("/run_code", json={"code": "x", "language": "cobol"})
    assert cobol.status_code == 422 and "cobol" in cobol.json()["detail"]
    no_tests = {**INLINE, "config": {**INLINE["config"], "provided_data": {"test": []}}}
    empty_tests = client.post("/submit", json=no_tests)
    assert empty_tests.status_code == 422 and "non-empty list" in empty_tests.json()["detail"]
    # BadRows, an InvalidJobError that lists the rows rather than one message.
    rows = client.post("/openrlhf/reward", json={"query": ["a", "b"], "labels": ["sum", ""]})
    assert rows.status_code == 422
    assert rows.json()["detail"]["rows"] == [{"index": 1, "error": "empty label"}]


def test_over_a_cap_is_413_naming_it(client: TestClient) -> None:
    batch = client.post("/v1/judge", json={"submissions": [ITEM] * 3})
    assert batch.status_code == 413 and "at most 2" in batch.json()["detail"]
    rows = client.post("/openrlhf/reward", json={"query": ["a"] * 3, "labels": ["sum"] * 3})
    assert rows.status_code == 413 and "at most 2" in rows.json()["detail"]


def test_sandboxes_down_is_503_where_a_result_would_read_as_a_score(tmp_path: Path) -> None:
    settings = _settings(f"sqlite:///{tmp_path}/judge.db", image_prefix="judge-no-such-image-")
    with TestClient(create_app(settings)) as client:
        client.post("/v1/problems", json=SUM)
        submitted = client.post("/submit", json=INLINE)
        assert submitted.status_code == 503, submitted.text
        assert submitted.json()["detail"].startswith("system error: ")
        assert "image" in submitted.json()["detail"]
        rewarded = client.post("/openrlhf/reward", json={"query": [FENCED], "labels": ["sum"]})
        assert rewarded.status_code == 503 and "not judged" in rewarded.json()["detail"]


def test_a_store_outage_is_503_naming_the_database_not_500() -> None:
    with postgres_database() as database_url, _Relay(5432) as relay:
        through_relay = database_url.replace("127.0.0.1:5432", f"127.0.0.1:{relay.port}")
        with TestClient(create_app(_settings(through_relay))) as client:
            assert client.post("/v1/problems", json=SUM).status_code == 200
            relay.close()  # the app's database URL now points to a closed loopback port
            for reply in (
                client.post("/v1/judge", json={"submissions": [ITEM]}),
                client.get("/v1/problems/sum"),
                client.post("/openrlhf/reward", json={"query": [FENCED], "labels": ["sum"]}),
            ):
                assert reply.status_code == 503, reply.text
                detail = reply.json()["detail"]
                assert detail.startswith("system error: database unavailable: "), detail
                assert "Connection refused" in detail and "\n" not in detail
            health = client.get("/health")
            assert health.status_code == 503 and health.json()["database"]["ok"] is False


def test_a_broken_schema_is_503_naming_the_table_not_500() -> None:
    with postgres_database() as database_url:
        with TestClient(create_app(_settings(database_url))) as client:
            assert client.post("/v1/problems", json=SUM).status_code == 200
            with psycopg.connect(database_url.replace("+psycopg", ""), autocommit=True) as db:
                db.execute("DROP TABLE result_cache")
            judged = client.post("/v1/judge", json={"submissions": [ITEM]})
            assert judged.status_code == 503, judged.text
            detail = judged.json()["detail"]
            assert detail.startswith("system error: database error: ") and "result_cache" in detail


class _Relay:
    """A TCP relay from a loopback port to a local one. ``close()`` shuts the port and cuts
    every relayed connection, as a database host that went away does."""

    def __init__(self, target_port: int) -> None:
        self._target = ("127.0.0.1", target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port: int = self._listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._closed = threading.Event()
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self._accepting.start()

    def __enter__(self) -> _Relay:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._closed.set()
        self._accepting.join()
        self._listener.close()  # now nothing listens: a connection attempt is refused
        for connection in list(self._open):
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            upstream = socket.create_connection(self._target)
            self._open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    try:
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass
