"""The Celery dispatcher's view of its broker: results awaited with one poll, and outages.

A broker that goes away may come back empty (a restarted Redis or RabbitMQ keeps nothing it
had not written to disk, and a Redis result backend is the same server): every chunk that was
out while it was gone may be lost, queued message and stored result alike. So the chunks a
patient waiter had out are sent again once the broker answers again (judging is idempotent; a
duplicate costs time, never a wrong verdict), and an impatient one (a synchronous request,
whose caller can retry) hears ``BrokerUnavailable`` at once.

Broker calls block (connects, publish retries); they run on threads of their own, so an outage
never starves the threads the store's reads and writes run on (a status poll must answer).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from celery import Celery

from judge_service.exceptions import BrokerUnavailable

T = TypeVar("T")
log = logging.getLogger(__name__)
# A broker that fails answers again within this long, or the poll waits this long to ask.
_DOWN_RETRY_S = 0.5
# How often the broker itself is asked whether it is there; the result backend (polled far
# more often) may be another server, which then says nothing of the broker's health.
_PROBE_EVERY_S = 1.0
# Longest a poll or a probe may take: a connection to a broker that is still starting (or a
# half-dead socket) can block a read without end, and one stuck poll stops every waiter.
_CALL_TIMEOUT_S = 10.0


class BrokerLost(Exception):
    """The broker was gone while this chunk was out: send it again."""


class Outage:
    """Since when the broker has been failing; None while it answers."""

    def __init__(self) -> None:
        self.since: float | None = None

    def down(self) -> float:
        """Record a failure; for how long the broker has been failing."""
        now = time.monotonic()
        if self.since is None:
            self.since = now
        return now - self.since

    def up(self) -> bool:
        """Record an answer; True when that ends an outage."""
        ended, self.since = self.since is not None, None
        return ended


class BrokerIO:
    """Runs blocking broker calls on daemon threads of its own.

    Not a ``ThreadPoolExecutor``: the interpreter joins its threads at exit, and a broker call
    can block without end (a reply that never comes, a half-dead socket), so a process that had
    one stuck would never exit. A call still running at exit is dropped: broker calls are
    idempotent, and a chunk whose answer was not read is sent again by whoever asks next."""

    def __init__(self, threads: int) -> None:
        self._most = threads
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lock = threading.Lock()
        self._closed = False

    async def call(
        self, function: Callable[..., T], *args: Any, timeout_s: float | None = None
    ) -> T:
        """``function(*args)`` on a broker thread; ``TimeoutError`` after ``timeout_s`` (the
        thread is left to finish on its own)."""
        done: concurrent.futures.Future[T] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("the broker's threads are closed")
            if self._idle:
                self._idle -= 1
            elif len(self._threads) < self._most:
                thread = threading.Thread(
                    target=self._serve, name=f"broker_{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            self._calls.put(_Call(function, args, done))
        return await asyncio.wait_for(asyncio.wrap_future(done), timeout_s)

    def _serve(self) -> None:
        while (call := self._calls.get()) is not None:
            if call.done.set_running_or_notify_cancel():
                try:
                    call.done.set_result(call.function(*call.args))
                except BaseException as error:
                    call.done.set_exception(error)
            with self._lock:
                self._idle += 1

    def close(self) -> None:
        """Calls not started are cancelled; the threads end once their calls return."""
        with self._lock:
            self._closed = True
            threads = len(self._threads)
        while True:
            try:
                call = self._calls.get_nowait()
            except queue.Empty:
                break
            if call is not None:
                call.done.cancel()
        for _ in range(threads):
            self._calls.put(None)


@dataclass
class _Call:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    done: concurrent.futures.Future[Any]


class _Waiter:
    def __init__(self, sent: Any, patience_s: float) -> None:
        self.sent = sent
        self.patience_s = patience_s
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.cut = False  # it was out while the broker was gone


class Results:
    """Awaits the results of every request's chunks with one poll: one Redis MGET for all."""

    def __init__(self, app: Celery, queue: str, io: BrokerIO) -> None:
        self.app = app
        self.queue = queue
        self.io = io
        self.outage = Outage()
        self._waiting: dict[str, _Waiter] = {}
        self._poller: asyncio.Task[None] | None = None
        self._probe: Any = None  # a held broker connection: a restart breaks it
        self._probed_at = 0.0

    async def wait(self, sent: Any, patience_s: float) -> Any:
        """The chunk's answers, or the text of its failure. ``BrokerLost`` when the broker was
        gone while it was out and answers again (send it again); ``BrokerUnavailable`` when it
        stays gone longer than ``patience_s`` (at once for 0)."""
        waiter = _Waiter(sent, patience_s)
        self._waiting[sent.id] = waiter
        if self._poller is None or self._poller.done():
            self._poller = asyncio.create_task(self._poll())
        try:
            return await waiter.future
        finally:
            self._waiting.pop(sent.id, None)

    async def _poll(self) -> None:
        delay = 0.002
        while self._waiting:
            pending = {task_id: waiter.sent for task_id, waiter in self._waiting.items()}
            try:
                finished = await self.io.call(self._collect, pending, timeout_s=_CALL_TIMEOUT_S)
                if time.monotonic() - self._probed_at >= _PROBE_EVERY_S:
                    await self.io.call(self._probe_broker, timeout_s=_CALL_TIMEOUT_S)
            except TimeoutError:
                self._probe = None  # a stuck probe is left to its thread, never used again
                self._broker_failed(TimeoutError(f"no answer in {_CALL_TIMEOUT_S:.0f} s"))
                continue
            except Exception as error:
                self._broker_failed(error)
                await asyncio.sleep(_DOWN_RETRY_S)
                continue
            for task_id, value in finished.items():
                found = self._waiting.get(task_id)
                if found is not None and not found.future.done():
                    found.future.set_result(value)
            if self.outage.up():
                cut = [w for w in self._waiting.values() if w.cut and not w.future.done()]
                log.warning("the broker answers again: sending %d chunks again", len(cut))
                for waiter in cut:
                    waiter.future.set_exception(BrokerLost())
            delay = 0.002 if finished else min(delay * 2, 0.05)
            await asyncio.sleep(delay)

    def _broker_failed(self, error: Exception) -> None:
        if self.outage.since is None:
            log.warning("the broker is unreachable: %s", error)
        lasted = self.outage.down()
        for waiter in self._waiting.values():
            if waiter.future.done():
                continue
            if lasted >= waiter.patience_s:
                message = f"cannot read results: {error}"
                if waiter.patience_s > 0:
                    message = f"the broker was unreachable for {lasted:.0f} s: {error}"
                waiter.future.set_exception(BrokerUnavailable(message))
            else:
                waiter.cut = True

    def _probe_broker(self) -> None:
        """Raises unless the broker answers on the connection held since the last probe: a
        broker that restarted between two probes broke it, so even a short outage shows."""
        self._probed_at = time.monotonic()
        probe = self._probe
        if probe is None:
            probe = self.app.connection_for_write()
            try:
                probe.ensure_connection(max_retries=1, timeout=2)
            except Exception:
                _release(probe)
                raise
            self._probe = probe
        try:
            probe.default_channel.queue_declare(self.queue, passive=True)
        except probe.channel_errors:
            self._forget(probe)  # no such queue (say, a broker restarted empty), but it answered
        except Exception:
            self._forget(probe)
            raise

    def _forget(self, probe: Any) -> None:
        if self._probe is probe:  # a probe abandoned after a time-out is no longer the one held
            self._probe = None
        _release(probe)

    def _collect(self, pending: dict[str, Any]) -> dict[str, Any]:
        """Finished chunks by task id: their answers, or the failure's text."""
        backend = self.app.backend
        done: dict[str, Any] = {}
        client = getattr(backend, "client", None)
        if client is not None and hasattr(backend, "get_key_for_task"):
            keys = [backend.get_key_for_task(task_id) for task_id in pending]
            for task_id, raw in zip(pending, client.mget(keys), strict=True):
                if raw is None:
                    continue
                meta = backend.decode_result(raw)
                if meta["status"] in ("SUCCESS", "FAILURE", "REVOKED"):
                    done[task_id] = (
                        meta["result"] if meta["status"] == "SUCCESS" else str(meta["result"])
                    )
            return done
        for task_id, result in pending.items():
            if result.ready():
                done[task_id] = result.result if result.successful() else str(result.result)
        return done

    def close(self) -> None:
        if self._poller is not None:
            try:
                self._poller.cancel()
            except RuntimeError:  # its event loop is already closed: it runs no more anyway
                pass
        if self._probe is not None:
            self._forget(self._probe)


def _release(connection: Any) -> None:
    try:
        connection.release()
    except Exception:  # a broken connection may fail to close: it is dropped all the same
        pass
