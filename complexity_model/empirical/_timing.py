"""The candidate's side of a timed run: the process :mod:`._spawner` forks for one run.

Untrusted from the solution's first line on: nothing here measures or reports a time. The
trusted driver (:mod:`._program`) reads this process's CPU clock from outside, between the
frames it exchanges with it, and decides what they mean. This side only obeys:

- it loads the solution (function mode: runs the module and finds the entry point), then
  says ``ready``: it has no input yet, so nothing can be made ready for it at load;
- ``warm``: does what ``input`` does on an input that will not be timed, so that the fresh
  process's page faults stay out of the clock, and for short calls calls the solution a few
  more times on it, so that Python's specialisation does too; then ``warmed``;
- ``input``: unpickles the timed input, calls the solution once (the cold call), digests the
  answer, and says ``first``;
- ``go``: calls it ``loops - 1`` more times on the same input (a fresh copy each time for a
  solution that changes its arguments), and says ``rest``;
- ``digest`` (after the driver has read the clock): the digest of the last call's answer,
  which the driver compares with the cold call's.

Each answer carries the token of the request it answers (a frame sent ahead of its request
could not: the driver would read the clock too early).

Stdin mode runs the whole program afresh for each call, with the input on descriptor 0 (a
sealed memfd: ``input()``, ``sys.stdin`` and ``open(0)`` all read it) and its output captured.
Part of the timing program, sent to the sandbox as source.
"""

from __future__ import annotations

import builtins
import fcntl
import gc
import io
import os
import pickle
import socket
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # in the sandbox its source precedes this module's (_driver.timing_program)
    from complexity_model.empirical._digest import digest_text, digest_value
    from complexity_model.empirical._wire import receive, send

_WARM_UP_RUNS = 8  # CPython 3.11 specialises a code object after 8 runs of it
MAX_INPUT = 1 << 30


def _describe(error: BaseException) -> str:
    try:
        return (type(error).__name__ + ": " + str(error))[:300]
    except Exception:
        return type(error).__name__


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
    """One input: pickled arguments (every call that needs a fresh copy unpickles its own), or
    the program's stdin in a sealed memfd, which the program cannot rewrite for the next run."""

    def __init__(self, mode: str, blob: bytes) -> None:
        self.fd, self.blob, self.args = -1, blob, list[Any]()
        if mode == "function":
            self.args = pickle.loads(blob)
            return
        made = os.memfd_create("judge-input", os.MFD_ALLOW_SEALING)
        view = memoryview(blob)
        while view:
            view = view[os.write(made, view) :]
        seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
        fcntl.fcntl(made, fcntl.F_ADD_SEALS, seals)
        # On a high descriptor: the program may close 0.
        self.fd = fcntl.fcntl(made, fcntl.F_DUPFD, 64)
        os.close(made)

    def fresh(self) -> list[Any]:
        result: list[Any] = pickle.loads(self.blob)
        return result


class Runner:
    """The solution, and the calls one run makes of it."""

    def __init__(self, spec: dict[str, Any], code: Any) -> None:
        self.mode: str = spec["mode"]
        self.code = code
        self.fold_case: bool = spec["fold_case"]
        self.min_sample_s: float = spec["min_sample_s"]
        self.streams = Streams()
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

    def once(self, given: Input, args: list[Any] | None = None) -> object:
        """One call on the input (function mode: on ``args``, else a fresh copy), or one run
        of the program (its output stays captured)."""
        if self.mode == "function":
            call_args = given.fresh() if args is None else args
            self.streams.capture()
            result = self.function(*call_args)
            _join_threads()
            return result
        self.streams.feed(given.fd)
        self.streams.capture()
        try:
            exec(self.code, {"__name__": "__main__", "__builtins__": builtins})
        except SystemExit as stop:
            if stop.code not in (None, 0):
                raise RuntimeError("exit status " + str(stop.code)) from None
        _join_threads()
        return None

    def first(self, given: Input, want_digest: bool, check_mutation: bool) -> dict[str, Any]:
        """The cold call; its answer's digest and whether it changed its arguments."""
        gc.freeze()  # the timed calls' collections see only what they allocate
        result = self.once(given, given.args)
        outcome: dict[str, Any] = {"mutates": False, "digest": None}
        if self.mode == "function":
            mutated = check_mutation and pickle.dumps(given.args) != given.blob
            outcome["mutates"] = mutated
            if want_digest:
                outcome["digest"] = self.digest([result, given.args] if mutated else [result])
        elif want_digest:
            outcome["digest"] = self.digest(None)
        return outcome

    def repeat(self, given: Input, count: int, mutated: bool) -> object:
        """``count`` more calls; the last one's answer, as :meth:`first` digests it (stdin
        mode: its output stays captured)."""
        if self.mode == "function" and not mutated:
            function, args, result = self.function, given.args, None
            for _ in range(count):
                result = function(*args)
            _join_threads()  # what a call left running is timed, not done during the digest
            return [result]
        answer: object = None
        for _ in range(count):
            if self.mode == "function":
                fresh = given.fresh()
                answer = [self.once(given, fresh), fresh]
            else:
                self.once(given)
        return answer

    def digest(self, answer: object) -> str:
        """A function's answer (its value, and its arguments when it changed them), or the
        program's output captured since its last run began."""
        if self.mode == "function":
            return digest_value(answer)
        return digest_text(self.streams.text(), self.fold_case)

    def warm_up(self, warm: Input) -> None:
        started = time.thread_time()
        for _ in range(_WARM_UP_RUNS):
            self.once(warm)
            if time.thread_time() - started >= self.min_sample_s / 4:
                return


def _join_threads() -> None:
    """Wait for the threads the call started (their output and CPU time are the call's)."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join()


def serve(channel: socket.socket, spec: dict[str, Any], code: Any) -> None:
    """Load the solution, then obey the driver's frames until it stops this process."""
    runner = Runner(spec, code)
    if spec["mode"] == "function":
        try:
            runner.load(spec["entry_point"])
        except BaseException as error:
            send(channel, ["error", "loading the solution: " + _describe(error)])
            return
    send(channel, ["ready"])
    given: Input | None = None
    mutated = False
    last: object = None
    while True:
        header, payload, _ = receive(channel, MAX_INPUT)
        try:
            if header[0] == "warm":
                try:
                    warm = Input(runner.mode, payload)
                    runner.first(warm, True, True)
                    if header[1]:
                        runner.warm_up(warm)
                except BaseException:
                    pass  # the warm-up is not judged: the timed calls are
                send(channel, ["warmed", header[2]])
            elif header[0] == "input":
                given = Input(runner.mode, payload)
                outcome = runner.first(given, bool(header[1]), bool(header[2]))
                mutated = outcome["mutates"]
                send(channel, ["first", outcome, header[3]])
            elif header[0] == "go" and given is not None:
                last = runner.repeat(given, int(header[1]), mutated)
                send(channel, ["rest", header[2]])
            elif header[0] == "digest" and given is not None:
                send(channel, ["digested", runner.digest(last), header[1]])
            else:
                return
        except BaseException as error:
            send(channel, ["error", _describe(error)])
            return
