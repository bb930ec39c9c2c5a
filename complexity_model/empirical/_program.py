"""The timing program that runs a Python solution inside the sandbox, one sandbox run per program.

Sent as source (:func:`._driver.timing_program`, after :mod:`._digest`, :mod:`._isolation` and
:mod:`._timing`). It reads its spec (the solution's source, the problem's generator, the sizes)
from stdin, then for each n seeds ``random`` with n and calls the generator's ``generate(n)``
(so every program of a problem sees the same inputs), and times the solution on that input:

- function mode: the call of the entry point with the generated arguments;
- stdin mode: the whole program, executed afresh in a new namespace with the generated text on
  file descriptor 0 (``input()``, ``sys.stdin`` and ``open(0)`` all read it), output captured.

No state survives from one timed run to the next: each of the ``repeats`` runs at a size is a
process forked for it, which dies with what it kept in memory, and after it the processes it
left are killed, the scratch directories emptied and SysV IPC removed (:mod:`._isolation`). The
solution's module loads once, before the forks (its import-time work is not repeated); what it
leaves for every fork to share (threads, open files, shared mappings) is refused. A run makes a
cold call, then more on the same input (:mod:`._timing`): at least one, since the first call in
a fresh process also faults in every page it allocates, and for short calls enough to rise
above the clock's resolution. Those count only while they are not much faster than the cold
calls (:func:`_kept_state`): a memo that outlives a call is found once the work it saves takes
more than about 50 us (and ten times its own lookup), and the class is ``unknown``. The minimum
of the runs is kept (one run near the cap); their answers must agree.

Growth stops at the first run over the per-call cap (a censored point) or when the budget,
the runs' processes included, is spent; while the input stays a few bytes (n itself), n keeps
growing past the given sizes. Answers at sizes up to ``digest_max_n`` are digested
(:mod:`._digest`) so the judge can compare them with the reference's. Each measured size is
printed at once (a run cut short by its limit still reports what it measured), on lines that
carry a per-run nonce, so output the solution prints cannot pass for a measurement; the
solution shares the interpreter, so one that tampers with the driver fools only its own time
reward, never its verdict (the tests judged it before).
"""

from __future__ import annotations

import functools
import json
import os
import random
import resource
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # in the sandbox their source precedes this module's (_driver.timing_program)
    from complexity_model.empirical._isolation import (
        become_subreaper,
        footprint,
        kept,
        reset,
        sweep,
    )
    from complexity_model.empirical._timing import Input, Meter, Runner, Streams, _describe

# Calls after the first on one input run faster by cache warmth and by the cold call's page
# faults (10-15 us each in a VM: a C-level set of n ints built on fresh pages takes 6 times as
# long), never by this ratio: past it they reuse its work (memo hits measured 14 to 1000
# times faster, a file memo the slowest).
_STATE_RATIO = 10.0
_STATE_SLACK_S = 5e-5


class Reporter:
    """Lines for the judge, on a copy of stdout the solution's prints do not reach."""

    def __init__(self, nonce: str) -> None:
        self.nonce = nonce
        self.channel = os.fdopen(os.dup(1), "w")

    def __call__(self, *fields: object) -> None:
        self.channel.write(self.nonce + " " + json.dumps(list(fields)) + "\n")
        self.channel.flush()


def main() -> None:
    spec = json.loads(sys.stdin.read())
    report = Reporter(spec["nonce"])
    meter, streams = Meter(spec["cap_s"] * 1.1 + 0.01), Streams()
    become_subreaper()
    generator: dict[str, Any] = {"__name__": "generator"}
    try:
        streams.capture()
        exec(compile(spec["generator"], "generator.py", "exec"), generator)
    except BaseException as error:
        report("error", "generator", _describe(error))
        return
    runner = Runner(spec, meter, streams)
    if spec["mode"] == "function":
        before = footprint()
        try:
            runner.load(spec["entry_point"])
        except BaseException as error:
            report("error", "candidate", "loading the solution: " + _describe(error))
            return
        sweep()  # processes it started
        left = kept(before, footprint())
        if left:
            report(
                "error",
                "candidate",
                f"loading the solution left {left}: every timed run "
                "would share them, so state could pass from one to the next",
            )
            return
    _measure(spec, report, meter, runner, lambda n: _generated(spec, generator, streams, n))


def _generated(spec: dict[str, Any], generator: dict[str, Any], streams: Streams, n: int) -> Input:
    random.seed(n)
    streams.capture()
    return Input(spec["mode"], generator["generate"](n))


def _measure(
    spec: dict[str, Any],
    report: Reporter,
    meter: Meter,
    runner: Runner,
    make: Callable[[int], Input],
) -> None:
    cap, sizes = spec["cap_s"], spec["sizes"]
    known: float | None = None  # the last run's seconds per call: how many calls a run makes
    inputs: list[Input] = []  # the previous size's, then this size's
    mutates = False
    started = _spent(meter)
    for n in _sizes(spec, lambda: inputs[-1].small):
        # The warm-up input: the previous size's (the next size's at the first size).
        wanted = [n] if inputs else [*sizes[1:2], n]
        made: list[Input] = []
        try:
            for size in wanted:
                made.append(make(size))
        except BaseException as error:
            report("error", "generator", f"generate({size}): " + _describe(error))
            return
        inputs[:] = [*inputs[-1:], *made]
        warm, given = inputs[0] if len(inputs) > 1 else None, inputs[-1]
        runs, problem = _runs_at(n, spec, runner, given, warm, known)
        if problem:
            report("error", "candidate", f"at n = {n}: {problem}")
            return
        state = _kept_state(runs)
        if state:
            report("error", "state", f"at n = {n}: {state}")
            return
        known = _seconds(runs[-1]) if runs else known
        mutates = mutates or any(run["mutates"] for run in runs)
        best = min((_seconds(run) for run in runs), default=cap)
        report("point", n, best, best >= cap, runs[0].get("digest") if runs else None)
        if warm is not None:
            warm.close()
        if best >= cap or _spent(meter) - started > spec["budget_s"]:
            break
    if mutates:
        report("note", "the solution changes its arguments: each call got a fresh copy")


def _runs_at(
    n: int,
    spec: dict[str, Any],
    runner: Runner,
    given: Input,
    warm: Input | None,
    known: float | None,
) -> tuple[list[dict[str, Any]], str]:
    """The outcomes of up to ``repeats`` runs, each in a process of its own, the scratch space
    reset after each; what was wrong, '' when nothing was."""
    runs: list[dict[str, Any]] = []
    for _ in range(max(1, spec["repeats"])):
        loops = _loops(known, spec) if spec["repeats"] else 1
        # Only short calls need warming up: the faults and specialisation cost microseconds.
        work = functools.partial(
            runner.run, given, warm if loops > 2 else None, loops, n <= spec["digest_max_n"]
        )
        outcome = _forked(work, 10 * spec["cap_s"] + 1)
        problem = reset(spec["scratch"], spec["clear_ipc"])
        if not problem and outcome.get("wall"):
            # No answer in ten caps of wall time (a host ten times oversubscribed, a sleeper):
            # over the cap as far as growth goes, like a run the CPU timer stopped.
            break
        problem = problem or outcome.get("error", "")
        if problem:
            return runs, problem
        if outcome["censored"]:
            break  # over the cap: the runs so far stand
        known = _seconds(outcome)
        runs.append(outcome)
        # Near the cap one run is enough (a long run's noise is small) and wastes less; long
        # calls (two a run) need two runs, as many calls as a long-lived process would make.
        if known >= spec["cap_s"] / 4 or (loops == 2 and len(runs) == 2):
            break
    if len({run.get("digest") for run in runs}) > 1:
        return runs, "the answer changed between runs on the same input"
    return runs, ""


def _sizes(spec: dict[str, Any], small: Callable[[], bool]) -> Iterator[int]:
    """The given sizes, then, while the input stays a few bytes (n itself), larger ones."""
    yield from spec["sizes"]
    n = spec["sizes"][-1]
    while n < spec["extend_to"] and small():
        n = min(int(n * 2 ** (1 / 3)) + 1, spec["extend_to"])
        yield n


def _loops(known: float | None, spec: dict[str, Any]) -> int:
    """Calls per run: enough to last ``min_sample_s`` at the last run's pace, and at least two:
    in a fresh process the first call also faults in every page it allocates, which a
    long-lived process (and the calls after it) reuse."""
    if known is None:
        return 2
    return min(1 << 20, max(2, int(spec["min_sample_s"] / max(known, 1e-7))))


def _seconds(run: dict[str, Any]) -> float:
    first: float = run["first"]
    return first if run["rest"] is None else min(first, run["rest"])


def _kept_state(runs: list[dict[str, Any]]) -> str:
    """Why the calls after the first seem to reuse its work, '' when they do not. The least of
    the runs' cold calls against the least mean of the calls after them: one cold call can
    stall (a page fault costs microseconds), several rarely all do."""
    looped = [run for run in runs if run["rest"] is not None]
    if not looped:
        return ""
    first, rest = min(run["first"] for run in looped), min(run["rest"] for run in looped)
    if first <= _STATE_RATIO * rest + _STATE_SLACK_S:
        return ""
    return (
        f"calls after the first on one input ran {first / max(rest, 1e-9):.0f} times faster "
        f"({rest * 1e6:.2f} us against {first * 1e6:.2f} us): the solution keeps state between "
        "calls (a memo), which would be timed instead of its work"
    )


def _spent(meter: Meter) -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return meter.now() + children.ru_utime + children.ru_stime


def _forked(work: Callable[[], dict[str, Any]], wall_s: float) -> dict[str, Any]:
    """``work()`` in a forked process: its outcome, or ``error`` saying why there was none."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            outcome = work()
        except BaseException as error:
            outcome = {"error": _describe(error)}
        os.write(write_end, json.dumps(outcome).encode() + b"\n")
        os._exit(0)
    os.close(write_end)
    line = _read_line(read_end, wall_s)
    os.close(read_end)
    if line is None:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    try:
        result = json.loads(line) if line else None
    except ValueError:
        result = None
    if isinstance(result, dict):
        return result
    if line is None:
        return {"error": f"the run gave no result in {wall_s:.1f} s of wall time", "wall": True}
    if os.WIFSIGNALED(status):
        return {"error": f"the run was killed by signal {os.WTERMSIG(status)}"}
    return {
        "error": f"the run ended (exit status {os.waitstatus_to_exitcode(status)}) with no result"
    }


def _read_line(fd: int, wall_s: float) -> str | None:
    """The first line written to ``fd`` ('' if none before its end); None past the wall time."""
    deadline, data = time.monotonic() + wall_s, b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return ""
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", "replace")


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)  # threads the solution left running must not keep the sandbox busy
