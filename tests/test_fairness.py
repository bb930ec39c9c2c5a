"""FairGate's turn order, on its own (no sandboxes): who is admitted next, and that nothing
it admitted is lost when a waiter is cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from judge_service.fairness import FairGate


class Chunks:
    """Chunks that hold their turn until the test finishes them; ``order`` is who got in."""

    def __init__(self, gate: FairGate) -> None:
        self.gate = gate
        self.order: list[str] = []
        self.finish: dict[str, asyncio.Event] = {}
        self.tasks: list[asyncio.Task[None]] = []

    def send(self, request: str, count: int, needs: Mapping[str, int] | None = None) -> None:
        for index in range(count):
            name = f"{request}{index}"
            self.finish[name] = asyncio.Event()
            self.tasks.append(asyncio.create_task(self._run(request, name, needs or {"x": 1})))

    async def _run(self, request: str, name: str, needs: Mapping[str, int]) -> None:
        async with self.gate.turn(request, needs):
            self.order.append(name)
            await self.finish[name].wait()

    async def done(self, *names: str) -> None:
        for name in names:
            self.finish[name].set()
        for _ in range(5):  # let the finished ones leave and the next ones enter
            await asyncio.sleep(0)


def test_a_newcomer_goes_before_the_rest_of_a_batch() -> None:
    async def scenario() -> list[str]:
        chunks = Chunks(FairGate(lambda _: 2))
        chunks.send("batch", 50)
        await chunks.done()
        chunks.send("single", 1)
        await chunks.done()
        assert chunks.order == ["batch0", "batch1"]
        await chunks.done("batch0")
        return chunks.order

    assert asyncio.run(scenario()) == ["batch0", "batch1", "single0"]


def test_two_batches_share_the_slots_whatever_their_sizes() -> None:
    async def scenario() -> list[str]:
        chunks = Chunks(FairGate(lambda _: 2))
        chunks.send("a", 100)
        await chunks.done()
        chunks.send("b", 4)
        for name in ("a0", "a1", "b0", "a2", "b1", "a3"):
            await chunks.done(name)
        return chunks.order

    # b's first chunk takes the first free slot; from then on they hold one slot each.
    assert asyncio.run(scenario()) == ["a0", "a1", "b0", "a2", "b1", "a3", "b2", "a4"]


def test_a_full_resource_does_not_hold_up_another() -> None:
    async def scenario() -> list[str]:
        chunks = Chunks(FairGate(lambda _: 4))
        chunks.send("python", 3, {"python": 4})
        chunks.send("cpp", 1, {"cpp": 4})
        chunks.send("both", 1, {"python": 1, "cpp": 1})
        await chunks.done()
        return chunks.order

    # Each language's first chunk fills it; the mixed chunk needs both and waits.
    assert asyncio.run(scenario()) == ["python0", "cpp0"]


def test_a_chunk_larger_than_the_limit_runs_alone_rather_than_never() -> None:
    async def scenario() -> list[str]:
        chunks = Chunks(FairGate(lambda _: 2))
        chunks.send("big", 2, {"python": 8})
        await chunks.done()
        assert chunks.order == ["big0"]
        await chunks.done("big0")
        return chunks.order

    assert asyncio.run(scenario()) == ["big0", "big1"]


def test_cancelled_waiters_and_holders_give_their_turns_back() -> None:
    async def scenario() -> list[str]:
        chunks = Chunks(FairGate(lambda _: 1))
        chunks.send("a", 1)
        chunks.send("b", 2)
        await chunks.done()
        chunks.tasks[1].cancel()  # b0, still waiting
        chunks.tasks[0].cancel()  # a0, holding the only turn
        await chunks.done()
        chunks.send("c", 1)
        await chunks.done("b1")
        return chunks.order

    assert asyncio.run(scenario()) == ["a0", "b1", "c0"]
