"""A progress bar with rate and ETA (rich when installed, else a line every few seconds)."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, Protocol

__all__ = ["Progress", "progress_bar"]


class Progress(Protocol):
    def advance(self, count: int = 1) -> None: ...


class _Plain:
    """For a client installed without rich: a line with done/total, rate and ETA."""

    def __init__(self, description: str, total: int, done: int) -> None:
        self.description, self.total, self.done = description, total, done
        self.start, self.shown, self.first = time.monotonic(), 0.0, done

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if now - self.shown >= 2 or self.done >= self.total:
            self.shown = now
            rate = (self.done - self.first) / max(now - self.start, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else float("inf")
            print(
                f"{self.description}: {self.done}/{self.total} {rate:.2f}/s ETA {eta:.0f}s",
                file=sys.stderr,
            )


class _Silent:
    def advance(self, count: int = 1) -> None:
        return None


class _Rich:
    def __init__(self, description: str, total: int, done: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self._bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self._task = self._bar.add_task(description, total=total, completed=done, rate="")
        self._start, self._first, self._done = time.monotonic(), done, done

    def advance(self, count: int = 1) -> None:
        self._done += count
        rate = (self._done - self._first) / max(time.monotonic() - self._start, 1e-9)
        self._bar.update(self._task, advance=count, rate=f"{rate:.2f}/s")

    def __enter__(self) -> _Rich:
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._bar.stop()


class progress_bar:  # noqa: N801 - used as a context manager, like open()
    """``with progress_bar("judging", total, done) as bar: bar.advance(n)``."""

    def __init__(self, description: str, total: int, done: int = 0, enabled: bool = True) -> None:
        self._args = (description, total, done)
        self._enabled = enabled
        self._rich: _Rich | None = None

    def __enter__(self) -> Progress:
        if not self._enabled:
            return _Silent()
        try:
            self._rich = _Rich(*self._args)
        except ImportError:
            return _Plain(*self._args)
        return self._rich.__enter__()

    def __exit__(self, *exc: Any) -> None:
        if self._rich is not None:
            self._rich.__exit__(*exc)
