"""Unit tests of riding out an outage: store calls made again, broker waiters sent again."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import judge_service._broker as broker
from judge_service._broker import BrokerIO, BrokerLost, Results
from judge_service._store_retry import ride_out
from judge_service.exceptions import BrokerUnavailable, StoreUnavailable


class _Flaky:
    """Fails ``failures`` times with ``error``, then answers ``value``."""

    def __init__(self, failures: int, error: Exception, value: Any = "ok") -> None:
        self.failures, self.error, self.value, self.calls = failures, error, value, 0

    def __call__(self, *_: Any) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return self.value


def test_store_calls_are_made_again_until_the_database_answers() -> None:
    flaky = _Flaky(2, StoreUnavailable("down"))
    assert asyncio.run(ride_out(10, flaky)) == "ok" and flaky.calls == 3


def test_a_synchronous_store_call_fails_at_once() -> None:
    flaky = _Flaky(1, StoreUnavailable("down"))
    with pytest.raises(StoreUnavailable):
        asyncio.run(ride_out(0, flaky))
    assert flaky.calls == 1


class _Backend:
    def __init__(self) -> None:
        self.results: dict[str, Any] = {}
        self.down = False
        self.client = self

    def mget(self, keys: list[str]) -> list[Any]:
        if self.down:
            raise ConnectionError("Error 111 connecting")
        return [self.results.get(key) for key in keys]

    def get_key_for_task(self, task_id: str) -> str:
        return task_id

    def decode_result(self, raw: Any) -> Any:
        return json.loads(raw)


class _Connection:
    channel_errors = (KeyError,)

    def __init__(self, backend: _Backend) -> None:
        self.backend = backend
        self.default_channel = self

    def ensure_connection(self, **_: Any) -> None:
        if self.backend.down:
            raise ConnectionError("Error 111 connecting")

    def queue_declare(self, *_: Any, **__: Any) -> None:
        if self.backend.down:
            raise ConnectionError("connection reset")

    def release(self) -> None:
        pass


class _App:
    def __init__(self) -> None:
        self.backend = _Backend()

    def connection_for_write(self) -> _Connection:
        return _Connection(self.backend)


class _Sent:
    def __init__(self, task_id: str) -> None:
        self.id = task_id


@pytest.fixture(autouse=True)
def _fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(broker, "_DOWN_RETRY_S", 0.01)
    monkeypatch.setattr(broker, "_PROBE_EVERY_S", 0.0)


def _results(app: _App) -> Results:
    return Results(app, "judge", BrokerIO(threads=2))  # type: ignore[arg-type]


def test_a_chunk_out_during_an_outage_is_sent_again_when_the_broker_is_back() -> None:
    async def scenario() -> None:
        app = _App()
        results = _results(app)
        waiting = asyncio.ensure_future(results.wait(_Sent("a"), patience_s=60))
        await asyncio.sleep(0.05)
        app.backend.down = True  # restarted empty: the result will never come
        await asyncio.sleep(0.1)
        assert not waiting.done()
        app.backend.down = False
        with pytest.raises(BrokerLost):
            await asyncio.wait_for(waiting, 5)
        # Sent again, answered.
        again = asyncio.ensure_future(results.wait(_Sent("b"), patience_s=60))
        app.backend.results["b"] = json.dumps({"status": "SUCCESS", "result": [1]})
        assert await asyncio.wait_for(again, 5) == [1]
        results.close()

    asyncio.run(scenario())


def test_an_impatient_waiter_hears_of_the_outage_at_once() -> None:
    async def scenario() -> None:
        app = _App()
        app.backend.down = True
        results = _results(app)
        with pytest.raises(BrokerUnavailable, match="cannot read results"):
            await asyncio.wait_for(results.wait(_Sent("a"), patience_s=0), 5)
        results.close()

    asyncio.run(scenario())


def test_an_outage_longer_than_the_patience_ends_the_wait() -> None:
    async def scenario() -> None:
        app = _App()
        app.backend.down = True
        results = _results(app)
        with pytest.raises(BrokerUnavailable, match="unreachable"):
            await asyncio.wait_for(results.wait(_Sent("a"), patience_s=0.2), 5)
        results.close()

    asyncio.run(scenario())
