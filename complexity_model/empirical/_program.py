"""The timing driver that runs a Python solution inside the sandbox, one sandbox run per program.

Sent as source (:func:`._driver.timing_program`, after the modules it uses). Three kinds of
process, and the solution's code runs in only one of them:

- the *driver* (this module, trusted): reads its spec (the solution's source, the problem's
  generator, the sizes, a secret seed and the nonce of its report lines) from stdin, generates
  every input, reads the clocks and reports;
- the *spawner* (:mod:`._spawner`, trusted), forked before the spec is read, so that it never
  holds the seed, the generator or the nonce: it forks the candidate's process for each run and
  kills and reaps what the run left;
- the *candidate's process* (:mod:`._timing`, untrusted), one per timed run, a fresh fork of
  the spawner: it loads the solution, and only then gets its input, over a socket.

The driver and the spawner are not dumpable and ignore catchable signals: the candidate (same
uid) cannot ptrace them, read their memory or /proc files (the seed, the nonce, the report's
descriptor), or steer them; killing them ends the measurement, which is then ``unknown``.

Time is the candidate process's CPU clock, read by the driver from outside it (any process
may read another's), around each step: from the moment its input is sent (its unpickling, the
cold call, the digest of the answer: ``first``), then the calls after it (``rest``). Work the
candidate hands to another process is found by the sandbox cgroup's CPU count, which every
process adds to whoever reaps it (or nobody): more CPU there than the candidate, the driver and
the spawner explain is ``unknown``. A CPU limit stops a step past the cap.

Inputs: for each n the driver seeds ``random`` with the secret and n and calls the generator's
``generate(n)``; the secret is drawn by the judge on the host, so the candidate cannot guess the
inputs, while every program the judge times sees the same inputs (the reference's answers are
compared). A run gets the input only once the solution has loaded; it warms up on an input that
will not be timed (the previous size's), then makes the cold call, then more calls on the same
input (at least one: a fresh process also faults in every page it allocates; for short calls
enough to rise above the clock's resolution). Those count only while they are not much faster
than the cold call, less what unpickling the input and checking the answer cost the driver
(:func:`_kept_state`): a memo that outlives a call is ``unknown``. Each of the ``repeats``
runs at a size is a fresh process; after each the spawner kills what it left and the scratch
directories and SysV IPC are emptied (:mod:`._isolation`). The minimum of the runs is kept;
their answers must agree.

Growth stops at the first run over the per-call cap (a censored point) or when the budget is
spent; while the input stays a few bytes (n itself), n keeps growing past the given sizes.
Answers are digested (:mod:`._digest`) at every size up to ``digest_max_n`` and above it at
the powers of two and a secret half of the other sizes (:func:`_digested`): the cold call's,
and, once the clock is read, the last timed call's, which must be the same (a solution that
answers an input it has seen with a faster, wrong pass is not timed). Each measured size is
printed at once on a line with the nonce, and ``end`` closes a complete measurement: without
it (the driver killed) the judge does not use the points.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import random
import secrets
import select
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # in the sandbox their source precedes this module's (_driver.timing_program)
    from complexity_model.empirical._isolation import (
        become_subreaper,
        cgroup_cpu_s,
        process_cpu_s,
        reset,
        settled_cpu_s,
    )
    from complexity_model.empirical._spawner import harden, start_spawner
    from complexity_model.empirical._timing import Input, _describe
    from complexity_model.empirical._wire import WireError, receive, send, send_fd

# Calls after the first on one input run faster by cache warmth and by the cold call's page
# faults, never by this ratio: past it they reuse its work (memo hits measured 14 to 1000
# times faster, a file memo the slowest). The cold step also unpickles the input and checks
# the answer, which the driver times itself (twice that, for the fresh process's page faults)
# and takes off; the slack covers the step's messages and its wake-up on cold caches (50 us
# on an idle host, 200 to 500 us measured at load average 10 on 2 cores). A memo is found once
# the work it saves passes the slack, well before the cap.
_STATE_RATIO = 10.0
_STATE_SLACK_S = 1.5e-3
_DECODE_FACTOR = 2.0
_CHANGED_ANSWER = (
    "the calls after the first on one input answered otherwise than the first: the solution "
    "keeps state between calls, and its timed work is not the problem's"
)
# CPU used during a run by no process the driver can name (a child the solution forked, which
# nobody waits for) beyond this is work done outside the clock.
_HIDDEN_SLACK_S = 3e-3
_HIDDEN_SHARE = 0.5
_MAX_REPLY = 0


class Reporter:
    """Lines for the judge, on the driver's stdout, which no candidate process holds."""

    def __init__(self, nonce: str) -> None:
        self.nonce = nonce
        self.channel = os.fdopen(os.dup(1), "w")

    def __call__(self, *fields: object) -> None:
        self.channel.write(self.nonce + " " + json.dumps(list(fields)) + "\n")
        self.channel.flush()


@dataclass
class Made:
    """One generated input as the candidate gets it, and what decoding it costs the driver."""

    blob: bytes
    decode_s: float
    small: bool


class Driver:
    """The trusted side of the runs: the spawner's channel and the clocks."""

    def __init__(self, spec: dict[str, Any], control: socket.socket) -> None:
        self.spec, self.control = spec, control
        self.cap: float = spec["cap_s"]
        self.limit = self.cap * 1.1 + 0.01
        self.children_s = 0.0  # CPU of the candidate processes so far, their loading left out
        self.loaded_s = 0.0  # what loading the solution cost the current run's process
        self.small: Made | None = None  # a small input no run is timed on, for a cheap warm-up

    def spent(self) -> float:
        return time.process_time() + self.children_s

    def run(self, given: Made, warm: Made, loops: int, want_digest: bool) -> dict[str, Any]:
        """One run in a fresh candidate process: its outcome, or ``error`` saying why none."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.loaded_s = 0.0
        send_fd(self.control, ["spawn"], theirs.fileno())
        theirs.close()
        header, _, _ = receive(self.control, _MAX_REPLY)
        pid = int(header[1])
        try:
            outcome = self._talk(ours, pid, given, warm, loops, want_digest)
        except WireError:
            outcome = {"error": ""}
        finally:
            ours.close()
            # The solution's loading is left out: a run is timed from its input on, and a
            # solution whose loading is slow runs out of the sandbox's time limit instead.
            self.children_s += max(0.0, (process_cpu_s(pid) or 0.0) - self.loaded_s)
            send(self.control, ["finish"])
            header, _, _ = receive(self.control, _MAX_REPLY)
        if outcome.get("error") == "":
            ended = str(header[1]) or "the run ended"
            outcome["error"] = ended + " with no result"
        return outcome

    def _talk(
        self,
        channel: socket.socket,
        pid: int,
        given: Made,
        warm: Made,
        loops: int,
        want_digest: bool,
    ) -> dict[str, Any]:
        wall_s = 10 * self.cap + 1
        deadline = time.monotonic() + wall_s
        reply = self._await(channel, pid, None, deadline)
        if isinstance(reply, dict):
            return reply
        if reply[0] != "ready":
            return {"error": _failure(reply)}
        self.loaded_s = settled_cpu_s(pid) or 0.0
        light = self.small if self.small is not None else warm
        token = secrets.token_hex(8)
        send(channel, ["warm", loops > 2, token], (warm if loops > 2 else light).blob)
        reply = self._await(channel, pid, None, deadline)
        if isinstance(reply, dict):
            return reply
        if reply != ["warmed", token]:
            return {"error": _failure(reply)}
        own, pool = time.process_time(), cgroup_cpu_s() if self.spec["own_cgroup"] else None
        start = settled_cpu_s(pid)
        if start is None:
            return {"error": ""}
        token = secrets.token_hex(8)
        send(channel, ["input", want_digest, loops > 1 or want_digest, token], given.blob)
        reply = self._await(channel, pid, start + self.limit, deadline)
        if isinstance(reply, dict):
            return {"censored": True} if reply.get("cpu") else reply
        if reply[0] != "first" or len(reply) != 3 or reply[2] != token:
            return {"error": _failure(reply)}
        if not isinstance(reply[1], dict):
            return {"error": _failure(reply)}
        cold = settled_cpu_s(pid)
        if cold is None:
            return {"error": ""}
        digest, mutates = reply[1].get("digest"), bool(reply[1].get("mutates"))
        if want_digest and not isinstance(digest, str):
            return {"error": "the run gave no digest of its answer"}
        outcome: dict[str, Any] = {
            "censored": False,
            "first": cold - start,
            "rest": None,
            "decode": given.decode_s,
            "mutates": mutates,
            "digest": digest if isinstance(digest, str) else None,
        }
        end = cold
        if loops > 1:
            token = secrets.token_hex(8)
            send(channel, ["go", loops - 1, token])
            reply = self._await(channel, pid, cold + self.limit, deadline)
            if isinstance(reply, dict):
                # Over the cap: the run is (the cold step alone could hide the work the calls
                # after it do once for all).
                return {"censored": True} if reply.get("cpu") else reply
            after = settled_cpu_s(pid)
            if after is None:
                return {"error": ""}
            if reply != ["rest", token]:
                return {"error": _failure(reply)}
            end = after
            outcome["rest"] = (after - cold) / (loops - 1)
        outcome["hidden"] = _hidden(pool, own, end - start)
        if want_digest and loops > 1:
            # The timed calls' answer too, digested after the clock is read: a solution that
            # recognises an input it has answered and answers it again faster but wrongly
            # would be timed on work that is not the problem's.
            token = secrets.token_hex(8)
            send(channel, ["digest", token])
            reply = self._await(channel, pid, end + self.limit, deadline)
            if isinstance(reply, dict):
                return {"censored": True} if reply.get("cpu") else reply
            if reply[0] != "digested" or len(reply) != 3 or reply[2] != token:
                return {"error": _failure(reply)}
            if reply[1] != digest:
                return {"error": _CHANGED_ANSWER}
        return outcome

    def _await(
        self, channel: socket.socket, pid: int, cpu_limit: float | None, deadline: float
    ) -> list[Any] | dict[str, Any]:
        """The candidate's next frame; a dict when it gave none: past the CPU limit (``cpu``),
        past the wall time (``wall``), or ended (``error``)."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                wall = 10 * self.cap + 1
                message = f"the run gave no result in {wall:.1f} s of wall time"
                return {"error": message, "wall": True}
            timeout = left
            if cpu_limit is not None:
                used = process_cpu_s(pid)
                if used is not None and used > cpu_limit:
                    return {"cpu": True}
                if used is not None:
                    timeout = min(left, max(cpu_limit - used, 0.001))
            if select.select([channel], [], [], timeout)[0]:
                break
        channel.settimeout(max(deadline - time.monotonic(), 0.01))
        header, _, _ = receive(channel, 0)
        return header


def _hidden(pool: float | None, own: float, candidate_s: float) -> float:
    """CPU seconds the sandbox used during the run beyond the candidate's process and the
    driver (0 without a cgroup to read)."""
    # The driver's own clock first, as at the start: reading it brings the kernel's accounting
    # of the driver up to date, the cgroup's too (the other way round, what the driver ran since
    # it last slept would be taken off the hidden work).
    driver_s = time.process_time() - own
    now = cgroup_cpu_s()
    if pool is None or now is None:
        return 0.0
    return max(0.0, (now - pool) - candidate_s - driver_s)


def _failure(reply: list[Any]) -> str:
    """What a frame out of turn means: a frame is an answer only to the request whose token it
    carries, so a process cannot answer ahead and do its work outside the clock."""
    if reply and reply[0] == "error" and len(reply) > 1:
        return str(reply[1])[:300]
    return "the run answered out of turn"


def main() -> None:
    harden()
    become_subreaper()
    control, _ = start_spawner()  # before the spec is read: the spawner never holds it
    spec = json.loads(sys.stdin.read())
    report = Reporter(spec["nonce"])
    send(control, ["load", {key: spec[key] for key in _CANDIDATE_KEYS}])
    header, _, _ = receive(control, _MAX_REPLY)
    if header[0] != "loaded":
        report("error", "candidate", str(header[1] if len(header) > 1 else header[0])[:300])
        report("end")
        return
    generator: dict[str, Any] = {"__name__": "generator"}
    try:
        with _quiet():
            exec(compile(spec["generator"], "generator.py", "exec"), generator)
    except BaseException as error:
        report("error", "generator", _describe(error))
        report("end")
        return
    driver = Driver(spec, control)
    _measure(spec, report, driver, lambda n, tag: _generated(spec, generator, n, tag))
    report("end")


_CANDIDATE_KEYS = ("code", "mode", "entry_point", "fold_case", "min_sample_s")


class _quiet:
    """The generator's prints go nowhere (the report is on stdout)."""

    def __enter__(self) -> None:
        self.saved = sys.stdout
        sys.stdout = io.StringIO()

    def __exit__(self, *_: object) -> None:
        sys.stdout = self.saved


def _generated(spec: dict[str, Any], generator: dict[str, Any], n: int, tag: str) -> Made:
    random.seed(f"{spec['seed']}:{tag}:{n}")
    with _quiet():
        value = generator["generate"](n)
    mode = spec["mode"]
    if mode == "function":
        args = list(value) if isinstance(value, list | tuple) else [value]
        blob = pickle.dumps(args)
    else:
        blob = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    started = time.thread_time()
    decoded = Input(mode, blob)
    if mode == "function":
        pickle.dumps(decoded.args)
    decode_s = time.thread_time() - started
    if decoded.fd >= 0:
        os.close(decoded.fd)
    return Made(blob, decode_s, len(blob) <= 256)


def _measure(
    spec: dict[str, Any],
    report: Reporter,
    driver: Driver,
    make: Callable[[int, str], Made],
) -> None:
    cap, sizes = spec["cap_s"], spec["sizes"]
    known: float | None = None  # the last run's seconds per call: how many calls a run makes
    latest: list[Made] = []  # this size's input
    mutates = False
    started = driver.spent()
    try:
        # Not an input any run is timed on: the first warm-up's, and every light warm-up's.
        driver.small = warm = make(sizes[min(1, len(sizes) - 1)], "warm")
    except BaseException as error:
        report("error", "generator", f"generate({sizes[0]}): " + _describe(error))
        return
    for n in _sizes(spec, lambda: latest[-1].small):
        try:
            given = make(n, "input")
            latest[:] = [given]
        except BaseException as error:
            report("error", "generator", f"generate({n}): " + _describe(error))
            return
        runs, problem = _runs_at(n, spec, driver, given, warm, known)
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
        warm = given
        if best >= cap or driver.spent() - started > spec["budget_s"]:
            break
    if mutates:
        report("note", "the solution changes its arguments: each call got a fresh copy")


def _runs_at(
    n: int,
    spec: dict[str, Any],
    driver: Driver,
    given: Made,
    warm: Made,
    known: float | None,
) -> tuple[list[dict[str, Any]], str]:
    """The outcomes of up to ``repeats`` runs, each in a fresh process, the scratch space reset
    after each; what was wrong, '' when nothing was."""
    runs: list[dict[str, Any]] = []
    for _ in range(max(1, spec["repeats"])):
        loops = _loops(known, spec) if spec["repeats"] else 1
        # Only short calls warm up on the previous size: specialisation costs microseconds.
        outcome = driver.run(given, warm, loops, _digested(n, spec))
        problem = reset(spec["scratch"], spec["clear_ipc"])
        if not problem and outcome.get("wall"):
            # No answer in ten caps of wall time (a host ten times oversubscribed, a sleeper):
            # over the cap as far as growth goes, like a run the CPU limit stopped.
            break
        problem = problem or outcome.get("error", "") or _hidden_work(outcome, loops)
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


def _digested(n: int, spec: dict[str, Any]) -> bool:
    """Whether the answers at ``n`` are digested: at every size up to ``digest_max_n``; above
    it at the powers of two (the sizes a compiled candidate's runs share with these: the engine
    digests all of its own) and at about half the others, drawn with the secret seed (the
    reference's runs draw the same), so that a solution cannot tell which of its larger
    answers are compared."""
    if n <= spec["digest_max_n"] or n & (n - 1) == 0:
        return True
    return random.Random(f"{spec['seed']}:digest:{n}").random() < _DIGESTED_SHARE


_DIGESTED_SHARE = 0.5


def _hidden_work(outcome: dict[str, Any], loops: int) -> str:
    """Why the run's CPU time is not all in its process, '' when it is."""
    hidden: float = outcome.get("hidden", 0.0)
    if hidden <= _HIDDEN_SLACK_S:
        return ""
    timed = outcome["first"] + (outcome["rest"] or 0.0) * (loops - 1)
    if hidden <= _HIDDEN_SHARE * timed + _HIDDEN_SLACK_S:
        return ""
    return (
        f"{hidden * 1e3:.1f} ms of CPU time went to processes other than the timed one "
        f"during the run (which took {timed * 1e3:.1f} ms): work done outside it is not measured"
    )


def _sizes(spec: dict[str, Any], small: Callable[[], bool]) -> Iterator[int]:
    """The given sizes, then, while the input stays a few bytes (n itself), larger ones."""
    yield from spec["sizes"]
    n = spec["sizes"][-1]
    while n < spec["extend_to"] and small():
        # Two sizes per doubling: a few bytes of input at every n, so only its range tells
        # O(1) from O(log n); a third size per doubling cost a fresh process per run and told
        # nothing more.
        n = min(int(n * 2 ** (1 / 2)) + 1, spec["extend_to"])
        yield n


def _loops(known: float | None, spec: dict[str, Any]) -> int:
    """Calls per run: enough to last ``min_sample_s`` at the last run's pace, and at least two:
    in a fresh process the first call also faults in every page it allocates, which a
    long-lived process (and the calls after it) reuse."""
    if known is None:
        return 2
    return min(1 << 20, max(2, int(spec["min_sample_s"] / max(known, 1e-7))))


def _seconds(run: dict[str, Any]) -> float:
    """Seconds per call: the calls after the first, whose step holds nothing else; the cold
    step less the driver's decoding when there were none (one call a run: the reference's
    answers)."""
    if run["rest"] is not None:
        rest: float = run["rest"]
        return rest
    first: float = run["first"]
    decode: float = run["decode"]
    return max(first - decode, first / 10)


def _kept_state(runs: list[dict[str, Any]]) -> str:
    """Why the calls after the first seem to reuse its work, '' when they do not. The least of
    the runs' cold steps (less their decoding) against the least mean of the calls after them:
    one cold call can stall (a page fault costs microseconds), several rarely all do."""
    looped = [run for run in runs if run["rest"] is not None]
    if not looped:
        return ""
    first = min(run["first"] - _DECODE_FACTOR * run["decode"] for run in looped)
    rest = min(run["rest"] for run in looped)
    if first <= _STATE_RATIO * rest + _STATE_SLACK_S:
        return ""
    return (
        f"calls after the first on one input ran {first / max(rest, 1e-9):.0f} times faster "
        f"({rest * 1e6:.2f} us against {first * 1e6:.2f} us): the solution keeps state between "
        "calls (a memo), which would be timed instead of its work"
    )


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)
