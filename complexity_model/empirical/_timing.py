"""What one timed run of a Python solution does, in the process the driver forks for it.

Part of the timing program (:mod:`._program`), sent to the sandbox as source. A run makes one
cold call on the input, then more calls on it (at least one, to leave out the cold call's page
faults, and for short calls enough to rise above the clock's resolution), which the driver
compares with the cold call (a memo makes them fast). Before short calls it warms up on another
input (untimed: Python's specialisation and the fork's copy-on-write faults stay out of the
clock, and a memo keyed on the input cannot serve the timed one). Arguments are unpickled in
the run's process, so that no object is shared with the driver (a write to a shared page is a
copy-on-write fault, inside the clock) and an in-place solution never sees its own output; a
solution that changes its arguments gets a fresh copy for every call. The collector is frozen
before the clock starts: its first pass would walk every inherited object.

Time is the thread's CPU clock (under RLIMIT_CPU the process clock advances in 4 ms ticks) plus
the CPU of threads the solution starts (joined after each call); a CPU timer stops a call past
the cap.
"""

from __future__ import annotations

import builtins
import fcntl
import gc
import io
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # in the sandbox its source precedes this module's (_driver.timing_program)
    from complexity_model.empirical._digest import digest_text, digest_value

_WARM_UP_RUNS = 8  # CPython 3.11 specialises a code object after 8 runs of it


class Timeout(BaseException):
    """The CPU timer's; a BaseException, so that a solution's ``except Exception`` lets it by."""


def _expire(signum: int, frame: object) -> None:
    raise Timeout()


def _describe(error: BaseException) -> str:
    return (type(error).__name__ + ": " + str(error))[:300]


class Meter:
    """CPU seconds of this thread plus those of the threads the solution starts, and a CPU
    timer that stops a timed call past the limit."""

    def __init__(self, limit_s: float) -> None:
        self.limit_s = limit_s
        self.threads_s = 0.0
        original, meter = threading.Thread.run, self

        def counted_run(thread: threading.Thread) -> None:
            begin = time.thread_time()
            try:
                original(thread)
            finally:
                meter.threads_s += time.thread_time() - begin

        threading.Thread.run = counted_run  # type: ignore[method-assign, assignment]
        signal.signal(signal.SIGPROF, _expire)

    def now(self) -> float:
        return time.thread_time() + self.threads_s

    def time(self, work: Callable[[], object]) -> tuple[float, object]:
        """(CPU seconds, result) of ``work()``, the threads it started joined and counted."""
        signal.setitimer(signal.ITIMER_PROF, self.limit_s)
        try:
            begin = self.now()
            result = work()
            for thread in threading.enumerate():
                # In steps: the timer's signal may land on the worker, and only the main
                # thread runs the handler, between steps.
                while thread is not threading.main_thread() and thread.is_alive():
                    thread.join(0.005)
            return self.now() - begin, result
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)


class Streams:
    """The solution's stdout, captured and emptied before each run, and its stdin."""

    def __init__(self) -> None:
        self.raw = io.BytesIO()
        self.out: io.TextIOWrapper | None = None
        self.stdin: io.TextIOWrapper | None = None

    def capture(self) -> None:
        if self.out is None or self.out.closed:  # the program may close it
            self.raw = io.BytesIO()
            self.out = io.TextIOWrapper(self.raw, encoding="utf-8", write_through=True)
        self.out.seek(0)
        self.out.truncate()
        sys.stdout = self.out

    def text(self) -> str:
        """What the program printed since :meth:`capture`."""
        return self.raw.getvalue().decode("utf-8", "replace")

    def feed(self, fd: int) -> None:
        """Descriptor 0 and ``sys.stdin`` read ``fd`` from its start (``open(0)`` in the program
        closes descriptor 0 when its file object goes)."""
        os.dup2(fd, 0)
        wrapper = self.stdin
        if wrapper is None or wrapper.closed:
            wrapper = self.stdin = open(0, encoding="utf-8", closefd=False)
        wrapper.seek(0)
        sys.stdin = wrapper


class Input:
    """One generated input: pickled arguments (every run unpickles its own), or the program's
    stdin in a sealed memfd, which the program cannot rewrite for the next run."""

    def __init__(self, mode: str, value: Any) -> None:
        self.fd, self.blob, self.args = -1, b"", list[Any]()
        if mode == "function":
            self.args = list(value) if isinstance(value, list | tuple) else [value]
            try:
                self.blob, self.args = pickle.dumps(self.args), []  # a smaller driver to fork
            except Exception:  # not picklable: the runs share the driver's objects
                self.blob = b""
            self.small = 0 < len(self.blob) <= 256
            return
        data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        made = os.memfd_create("judge-input", os.MFD_ALLOW_SEALING)
        view = memoryview(data)
        while view:
            view = view[os.write(made, view) :]
        seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
        fcntl.fcntl(made, fcntl.F_ADD_SEALS, seals)
        # On a high descriptor: the program may close 0.
        self.fd = fcntl.fcntl(made, fcntl.F_DUPFD, 64)
        os.close(made)
        self.small = len(data) <= 256

    def fresh(self) -> list[Any]:
        return pickle.loads(self.blob) if self.blob else self.args

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)


class Runner:
    """The solution, and what one timed run does with it."""

    def __init__(self, spec: dict[str, Any], meter: Meter, streams: Streams) -> None:
        self.mode: str = spec["mode"]
        self.code = compile(spec["code"], "solution.py", "exec")
        self.fold_case: bool = spec["fold_case"]
        self.min_sample_s: float = spec["min_sample_s"]
        self.meter, self.streams = meter, streams
        self.function: Callable[..., Any] = print

    def load(self, entry_point: str) -> None:
        """Function mode: run the module and find the entry point (a method of a fresh
        ``Solution`` when the module has no such function)."""
        namespace: dict[str, Any] = {"__name__": "solution", "__builtins__": builtins}
        self.streams.capture()
        exec(self.code, namespace)
        if "." in entry_point:
            owner, method = entry_point.split(".", 1)
            self.function = getattr(namespace[owner](), method)
        elif entry_point in namespace:
            self.function = namespace[entry_point]
        else:
            self.function = getattr(namespace["Solution"](), entry_point)

    def run(
        self, given: Input, warm: Input | None, loops: int, want_digest: bool
    ) -> dict[str, Any]:
        """The cold call's seconds (``first``), the mean of the ``loops - 1`` calls after it on
        the same input (``rest``), the answer's digest; ``censored`` past the cap."""
        if warm is not None:
            self._warm_up(warm)
        args = given.fresh() if self.mode == "function" else []
        # The collector would walk every object inherited from the driver or unpickled here
        # (a copy-on-write fault per page it marks): the timed calls' collections see only what
        # the calls allocate.
        gc.freeze()
        try:
            first, result = self.once(given, args)
        except Timeout:
            return {"censored": True}
        outcome: dict[str, Any] = {"censored": False, "first": first, "rest": None}
        # Whether the call changed its arguments matters for the calls after it and the answer.
        mutated = (loops > 1 or want_digest) and bool(given.blob)
        mutated = mutated and pickle.dumps(args) != given.blob
        outcome["mutates"] = mutated
        if want_digest and self.mode == "function":
            outcome["digest"] = digest_value([result, args] if mutated else [result])
        elif want_digest:
            outcome["digest"] = digest_text(self.streams.text(), self.fold_case)
        if loops > 1:
            try:
                outcome["rest"] = self._repeat(given, args, loops - 1, mutated) / (loops - 1)
            except Timeout:
                pass  # the cold call stands
        return outcome

    def once(self, given: Input, args: list[Any] | None = None) -> tuple[float, object]:
        """(seconds, result) of one call on the input (function mode: on ``args``, else a
        fresh copy), or of one run of the program (its output stays captured)."""
        if self.mode == "function":
            function, call_args = self.function, given.fresh() if args is None else args
            self.streams.capture()
            return self.meter.time(lambda: function(*call_args))
        self.streams.feed(given.fd)
        self.streams.capture()
        return self.meter.time(self._execute)

    def _execute(self) -> None:
        try:
            exec(self.code, {"__name__": "__main__", "__builtins__": builtins})
        except SystemExit as stop:
            if stop.code not in (None, 0):
                raise RuntimeError("exit status " + str(stop.code)) from None

    def _repeat(self, given: Input, args: list[Any], count: int, mutated: bool) -> float:
        if self.mode == "function" and not mutated:
            function = self.function
            return self.meter.time(lambda: _call_repeatedly(function, args, count))[0]
        # A fresh copy (or a rewound stdin) for each call, outside the clock.
        return sum(self.once(given)[0] for _ in range(count))

    def _warm_up(self, warm: Input) -> None:
        spent = 0.0
        for _ in range(_WARM_UP_RUNS):
            try:
                spent += self.once(warm)[0]
            except Timeout:
                return
            if spent >= self.min_sample_s / 4:
                return


def _call_repeatedly(function: Callable[..., Any], args: list[Any], count: int) -> None:
    for _ in range(count):
        function(*args)
