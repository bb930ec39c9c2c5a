"""Store calls of a queued job that wait out a database outage instead of failing the job.

A job's writes are idempotent (results already stored for a position are skipped, the cache
keeps its first entry, a status set twice is the same status), so a write the outage cut off
is simply made again once the database answers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from judge_service.exceptions import StoreUnavailable

T = TypeVar("T")
log = logging.getLogger(__name__)
_RETRY_EVERY_S = 0.5


async def ride_out(outage_s: float, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` in a thread, called again while it raises
    ``StoreUnavailable``, for at most ``outage_s``; then the error stands."""
    since: float | None = None
    while True:
        try:
            return await asyncio.to_thread(function, *args, **kwargs)
        except StoreUnavailable as error:
            now = time.monotonic()
            since = now if since is None else since
            if now - since >= outage_s:
                raise
            if since == now:
                log.warning("database unreachable; waiting %.0f s for it: %s", outage_s, error)
            await asyncio.sleep(_RETRY_EVERY_S)
