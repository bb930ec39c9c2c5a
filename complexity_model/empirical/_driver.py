"""The timing program that runs a Python solution inside the sandbox, in one process.

One sandbox run per program: the driver reads its spec (the solution's source, the problem's
generator, the sizes) from stdin, then for each n seeds ``random`` with n and calls the
generator's ``generate(n)`` (so every program of a problem sees the same inputs), and times
the solution on that input:

- function mode: the call of the entry point with the generated arguments;
- stdin mode: the whole program, executed afresh in a new namespace with the generated text on
  file descriptor 0 (``input()``, ``sys.stdin`` and ``open(0)`` all read it) and its output
  captured.

Time is the thread's CPU clock (under RLIMIT_CPU the process clock advances in 4 ms ticks)
plus the CPU of threads the solution starts (joined after each call); an inner loop rises
above the clock's resolution; the minimum of the repeats is kept. A solution that changes its
arguments gets a fresh copy of them (unpickled outside the clock) for every call, so that an
in-place sort is never timed on its own sorted output. Each measured size is printed at once
(a run cut short by its limit still reports what it measured); growth stops at the first
call over the per-call cap (a censored point) or when the budget is spent. Answers at sizes up
to ``digest_max_n`` are digested (:mod:`._digest`) so the judge can compare them with the
reference's. Lines carry a per-run nonce, so output the solution prints cannot pass for a
measurement; the solution shares the interpreter, so one that tampers with the driver fools
only its own time reward, never its verdict (the tests judged it before).
"""

from __future__ import annotations

import inspect
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from complexity_model.empirical import _digest

DRIVER = r"""

def __judge_timing():
    import builtins, fcntl, io, json, os, pickle, random, signal, sys, threading, time
    spec = json.loads(sys.stdin.read())
    nonce, mode = spec["nonce"], spec["mode"]
    channel = os.fdopen(os.dup(1), "w")
    real_stdout = sys.stdout

    def report(*fields):
        channel.write(nonce + " " + json.dumps(list(fields)) + "\n")
        channel.flush()

    clock = time.thread_time
    threads_cpu = [0.0]
    original_run = threading.Thread.run

    def counted_run(self):
        begin = clock()
        try:
            original_run(self)
        finally:
            threads_cpu[0] += clock() - begin

    threading.Thread.run = counted_run

    def now():
        return clock() + threads_cpu[0]

    def join_threads():
        for thread in threading.enumerate():
            # In steps: the timer's signal may land on the worker, and only the main thread
            # runs the handler, between steps.
            while thread is not threading.main_thread() and thread.is_alive():
                thread.join(0.005)

    captured = {}

    def sink():
        # One capture buffer, emptied before each run (a new one only if the program closed it).
        out = captured.get("out")
        if out is None or out.closed:
            out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
            captured["out"] = out
        out.seek(0)
        out.truncate()
        sys.stdout = out
        return out

    def rewind_stdin():
        # open(0) in the program closes descriptor 0 when its file object goes: restore it.
        os.dup2(captured["fd"], 0)
        wrapper = captured.get("in")
        if wrapper is None or wrapper.closed:
            wrapper = open(0, "r", encoding="utf-8", closefd=False)
            captured["in"] = wrapper
        wrapper.seek(0)
        sys.stdin = wrapper

    class Timeout(BaseException):
        # BaseException, so that a solution's "except Exception" does not swallow it.
        pass

    def expire(signum, frame):
        raise Timeout()

    signal.signal(signal.SIGPROF, expire)
    limit = spec["cap_s"] * 1.1 + 0.01

    def arm():
        signal.setitimer(signal.ITIMER_PROF, limit)

    def disarm():
        signal.setitimer(signal.ITIMER_PROF, 0)

    def describe(error):
        return (type(error).__name__ + ": " + str(error))[:300]

    generator = {"__name__": "generator"}
    try:
        sink()
        exec(compile(spec["generator"], "generator.py", "exec"), generator)
        generate = generator["generate"]
    except BaseException as error:
        report("error", "generator", describe(error))
        return
    code = compile(spec["code"], "solution.py", "exec")
    function = None
    if mode == "function":
        namespace = {"__name__": "solution", "__builtins__": builtins}
        try:
            sink()
            exec(code, namespace)
            target = spec["entry_point"]
            if "." in target:
                owner, method = target.split(".", 1)
                function = getattr(namespace[owner](), method)
            elif target in namespace:
                function = namespace[target]
            else:
                function = getattr(namespace["Solution"](), target)
        except BaseException as error:
            report("error", "candidate", "loading the solution: " + describe(error))
            return
    input_path = os.path.abspath("._judge_input")
    state = {"mutates": False, "args": None, "blob": None, "small": False, "loops": 1}

    def call(first, want_digest):
        # One run on the current input: (CPU seconds, answer digest or None). The first run
        # at a size also finds out whether the solution changes its arguments.
        if mode == "function":
            args = state["args"]
            if state["mutates"]:
                args = pickle.loads(state["blob"])
            sink()
            arm()
            begin = now()
            result = function(*args)
            join_threads()
            elapsed = now() - begin
            disarm()
            if not first:
                return elapsed, None
            changed = False
            if state["blob"] is not None:
                changed = pickle.dumps(args) != state["blob"]
                if changed:
                    state["mutates"] = True
            if not want_digest:
                return elapsed, None
            return elapsed, digest_value([result, args] if changed else [result])
        rewind_stdin()
        out = sink()
        arm()
        begin = now()
        try:
            exec(code, {"__name__": "__main__", "__builtins__": builtins})
        except SystemExit as stop:
            if stop.code not in (None, 0):
                raise RuntimeError("exit status " + str(stop.code)) from None
        join_threads()
        elapsed = now() - begin
        disarm()
        if not (first and want_digest):
            return elapsed, None
        out.flush()
        text = out.buffer.getvalue().decode("utf-8", "replace")
        return elapsed, digest_text(text, spec["fold_case"])

    def sample(loops):
        total = 0.0
        if mode == "function" and not state["mutates"]:
            sink()
            arm()
            begin = now()
            for _ in range(loops):
                function(*state["args"])
            join_threads()
            elapsed = now() - begin
            disarm()
            return elapsed
        for _ in range(loops):
            total += call(False, False)[0]
        return total

    def sizes():
        # The given sizes, then, while the input stays a few bytes (n itself), larger ones.
        for n in spec["sizes"]:
            yield n
        n = spec["sizes"][-1]
        while n < spec["extend_to"] and state["small"]:
            n = min(int(n * 2 ** (1 / 3)) + 1, spec["extend_to"])
            yield n

    started = now()
    for n in sizes():
        random.seed(n)
        try:
            sink()
            value = generate(n)
        except BaseException as error:
            sys.stdout = real_stdout
            report("error", "generator", "generate(" + str(n) + "): " + describe(error))
            return
        if mode == "function":
            state["args"] = list(value) if isinstance(value, (list, tuple)) else [value]
            try:
                state["blob"] = pickle.dumps(state["args"])
            except Exception:
                state["blob"] = None
            state["small"] = state["blob"] is not None and len(state["blob"]) <= 256
        else:
            data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
            with open(input_path, "wb") as handle:
                handle.write(data)
            if "fd" in captured:
                os.close(captured["fd"])
            # Kept on a high descriptor: the program may close 0 (open(0) does, when dropped).
            opened = os.open(input_path, os.O_RDONLY)
            captured["fd"] = fcntl.fcntl(opened, fcntl.F_DUPFD, 64)
            os.close(opened)
            captured.pop("in", None)
            state["small"] = len(data) <= 256
        best, digest = None, None
        try:
            try:
                best, digest = call(True, n <= spec["digest_max_n"])
                if best < spec["cap_s"]:
                    for _ in range(spec["repeats"]):
                        # Start from the previous size's count: a larger n is no faster.
                        loops = max(1, state["loops"] // 2)
                        while True:
                            elapsed = sample(loops)
                            if (
                                elapsed >= spec["min_sample_s"]
                                or elapsed >= spec["cap_s"]
                                or loops >= 1 << 20
                            ):
                                break
                            loops *= 4 if elapsed < spec["min_sample_s"] / 8 else 2
                        best = min(best, elapsed / loops)
                        state["loops"] = loops
                        if elapsed >= spec["cap_s"]:
                            break
            except Timeout:
                # Over the cap: censored if the first run was; otherwise the runs so far stand.
                disarm()
                if best is None:
                    best = spec["cap_s"]
        except BaseException as error:
            disarm()
            sys.stdout = real_stdout
            report("error", "candidate", "at n = " + str(n) + ": " + describe(error))
            return
        sys.stdout = real_stdout
        censored = best >= spec["cap_s"]
        report("point", n, best, censored, digest)
        if censored or now() - started > spec["budget_s"]:
            break
    if state["mutates"]:
        report("note", "the solution changes its arguments: each call got a fresh copy")

import os as __os, sys as __sys
try:
    __judge_timing()
except BaseException:
    import traceback as __traceback
    __traceback.print_exc()
    __sys.stderr.flush()
    __os._exit(1)
__os._exit(0)  # threads the solution left running must not keep the sandbox busy
"""


def timing_program() -> str:
    """The driver, with the digest functions it needs (the solution travels in the spec)."""
    return inspect.getsource(_digest) + "\n" + DRIVER


@dataclass(frozen=True)
class DriverSpec:
    """What one timing run measures and how long it may take."""

    code: str
    generator: str
    mode: str
    entry_point: str | None
    sizes: list[int]
    repeats: int
    min_sample_s: float
    cap_s: float
    budget_s: float
    fold_case: bool = False
    digest_max_n: int = 1 << 13
    extend_to: int = 1 << 30
    """Past the last size, n keeps growing up to this while the input stays a few bytes."""
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))

    def to_stdin(self) -> str:
        return json.dumps(self.__dict__)


@dataclass
class DriverOutput:
    """The measured sizes, answer digests, and why the run stopped early (if it did)."""

    points: list[tuple[int, float, bool]] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)
    error: str = ""
    error_source: str = ""
    notes: list[str] = field(default_factory=list)


def parse_output(stdout: str, nonce: str) -> DriverOutput:
    """The driver's lines (those with the nonce); whatever the solution printed is skipped."""
    parsed = DriverOutput()
    prefix = nonce + " "
    for line in stdout.splitlines():
        if not line.startswith(prefix):
            continue
        try:
            fields: list[Any] = json.loads(line[len(prefix) :])
        except ValueError:
            continue
        kind = fields[0] if fields else None
        if kind == "point" and len(fields) == 5:
            _, n, seconds, censored, digest = fields
            parsed.points.append((int(n), float(seconds), bool(censored)))
            if isinstance(digest, str):
                parsed.digests[int(n)] = digest
        elif kind == "error" and len(fields) == 3:
            parsed.error_source, parsed.error = str(fields[1]), str(fields[2])
        elif kind == "note" and len(fields) == 2:
            parsed.notes.append(str(fields[1]))
    return parsed
