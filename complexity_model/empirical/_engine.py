"""Timing a stdin program in any engine language by the CPU time the engine reports per test.

A compiled program cannot host the Python driver, so every timed run is a sandbox job of one
test, whose CPU time (wait4 rusage: about 0.8 ms of process start for C++, +-0.1 ms) is a
measurement; the start-up cost is the fit's intercept. One test per job, because the sandbox
resets between jobs, not between the tests of one: processes killed, /work, /tmp, /dev/shm and
SysV IPC emptied, the compiled program written afresh. A program that kept an answer in /tmp
for the next run on the same input (or anything else for any later run) finds nothing there.
A job costs about 1 ms beyond its test; the compiled program is cached after the first.

The program cannot forge its time: it is a process of its own, and the agent counts the CPU of
the job's every process from the sandbox's cgroup, outside it. Nor can it know its inputs
ahead: they come from the problem's generator, run in a separate Python sandbox job (it is
problem-author code, trusted less than the judge), seeded with the judge's secret and n like
the Python driver's (with n alone, a program could carry answers for inputs it guessed), so
every program the judge times sees the same inputs and none can guess them; they are kept per
generator, so the reference and every candidate share one generation. Growth stops at the
first run over the cap (a censored point) or when the budget is spent, so an exponential
program stops near n = 30 while a linear one reaches the largest input the generator may
produce.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Protocol

from complexity_model.empirical._digest import digest_text
from complexity_model.empirical._driver import DriverOutput
from judge_service.sandbox.errors import SandboxError
from judge_service.sandbox.models import Job, JobResult, Limits, TestResult, Verdict

GENERATOR_PROGRAM = r"""
import json, random, sys, time
spec = json.loads(sys.stdin.read())
namespace = {"__name__": "generator"}
exec(compile(spec["generator"], "generator.py", "exec"), namespace)
started, total = time.thread_time(), 0
for n in spec["sizes"]:
    random.seed(spec["seed"] + ":input:" + str(n))
    text = namespace["generate"](n)
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if not isinstance(text, str):
        raise TypeError("in stdin mode generate(n) must return the input text, not "
                        + type(text).__name__)
    total += len(text)
    if total > spec["max_bytes"]:
        break
    print(spec["nonce"] + " " + json.dumps([n, text]), flush=True)
    if time.thread_time() - started > spec["budget_s"]:
        break
"""


class Sandboxes(Protocol):
    """What the empirical judge needs of the engine (``SandboxPool`` is one): a job judged.
    It raises the engine's errors; ``SandboxError`` means the sandbox failed, not the program."""

    def judge(self, job: Job) -> JobResult: ...


@dataclass(frozen=True)
class EngineSettings:
    sizes: list[int]
    repeats: int = 3
    cap_s: float = 0.2
    budget_s: float = 1.0
    # The CPU budget does not see a program that sleeps or waits: this bounds the wall clock.
    wall_budget_s: float = 4.0
    generator_budget_s: float = 1.0
    max_input_bytes: int = 6 << 20
    memory_limit_mb: int = 512
    seed: str = ""
    """The judge's secret: with n, it seeds the generator (as the Python driver does)."""


class InputCache:
    """Generated inputs per (generator, sizes, byte cap), the last ``capacity`` of them."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, list[tuple[int, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(
        self, pool: Sandboxes, generator: str, settings: EngineSettings
    ) -> list[tuple[int, str]] | str:
        """The inputs, or the reason the generator gave none."""
        key = json.dumps([generator, settings.sizes, settings.max_input_bytes, settings.seed])
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        made = _generate(pool, generator, settings)
        if isinstance(made, list):
            with self._lock:
                self._entries[key] = made
                while len(self._entries) > self.capacity:
                    self._entries.popitem(last=False)
        return made


def _generate(
    pool: Sandboxes, generator: str, settings: EngineSettings
) -> list[tuple[int, str]] | str:
    nonce = secrets.token_hex(8)
    spec = {
        "generator": generator,
        "sizes": settings.sizes,
        "max_bytes": settings.max_input_bytes,
        "budget_s": settings.generator_budget_s,
        "nonce": nonce,
        "seed": settings.seed,
    }
    limit_ms = int(settings.generator_budget_s * 1000) * 2 + 2000
    job = Job(
        language="python",
        code=GENERATOR_PROGRAM,
        tests=[{"input": json.dumps(spec), "output": ""}],
        limits=Limits(
            time_limit_ms=limit_ms,
            memory_limit_mb=settings.memory_limit_mb,
            report_bytes=3 * settings.max_input_bytes + (1 << 16),
        ),
    )
    test = checked(pool.judge(job)).tests[0]
    inputs: list[tuple[int, str]] = []
    prefix = nonce + " "
    for line in test.stdout.splitlines():
        if line.startswith(prefix):
            n, text = json.loads(line[len(prefix) :])
            inputs.append((int(n), str(text)))
    if not inputs:
        last = (test.stderr.strip().splitlines() or [test.message or test.verdict.value])[-1]
        return f"the input generator failed: {last}"[:300]
    return inputs


def checked(result: JobResult) -> JobResult:
    """A job the sandbox itself failed (SE) is an infrastructure error, never a class."""
    if result.verdict is Verdict.SE:
        raise SandboxError(result.system_error or "the sandbox failed the job")
    return result


def measure_in_engine(
    pool: Sandboxes,
    language: str,
    code: str,
    inputs: list[tuple[int, str]],
    settings: EngineSettings,
    fold_case: bool = False,
) -> DriverOutput:
    """Run ``code`` on the inputs, up to ``repeats`` runs per size, and keep the minimum CPU
    time; the answers of a size's runs must agree (compared with the reference's later). Every
    size's answer that the sandbox reports whole is digested (here, on the host, at no cost to
    the runs): a program that answers the larger inputs wrongly and faster is not timed."""
    output = DriverOutput(complete=True)  # a job per run: nothing to cut short
    spent = 0.0
    runs_done = 0
    clock = (time.monotonic(), 0.0, 0)  # the sleeper check's start: wall, CPU spent, runs
    for n, text in inputs:
        if spent > settings.budget_s:
            break
        wall_s, cpu_s, counted = time.monotonic() - clock[0], spent - clock[1], runs_done - clock[2]
        if _sleeps(wall_s, cpu_s, counted, settings):
            # Its runs take far longer than their CPU time: it sleeps or waits. The sizes
            # measured so far are too few to tell its growth, and it earns no R_time.
            output.error_source = "candidate"
            output.error = (
                f"stopped at n = {n}: the runs took over {settings.wall_budget_s:g} s of wall "
                f"time for {spent:.2f} s of CPU time (the program sleeps or waits)"
            )
            return output
        runs: list[TestResult] = []
        for _ in range(settings.repeats):
            result = checked(pool.judge(_one_run(language, code, text, settings)))
            runs_done += 1
            if result.compile is not None and not result.compile.ok:
                output.error_source = "candidate"
                output.error = _first_line("compilation failed: " + result.compile.output)
                return output
            run = result.tests[0]
            spent += run.time_ms / 1000
            if result.compile is not None and not result.compile.cached:
                # The compiler's wall time is not the program's (on a busy host it alone took
                # over the wall budget): the sleeper check counts from the end of this job.
                clock = (time.monotonic(), spent, runs_done)
            if run.verdict in _FAILURES:
                output.error_source = "candidate"
                output.error = f"at n = {n}: {run.verdict.value} {_detail(run)}"[:300]
                return output
            if run.verdict is Verdict.TLE:
                break  # over the cap: the runs so far stand
            runs.append(run)
            # Near the cap one run is enough (a long run's noise is small) and wastes less.
            if run.time_ms / 1000 >= settings.cap_s / 4:
                break
        if not runs:
            output.points.append((n, settings.cap_s, True))
            return output
        output.points.append((n, min(run.time_ms for run in runs) / 1000, False))
        if all(len(run.stdout.encode()) < _REPORT_BYTES for run in runs):
            digests = {digest_text(run.stdout, fold_case) for run in runs}
            if len(digests) > 1:
                output.error_source = "candidate"
                output.error = f"at n = {n}: the answer changed between runs on the same input"
                return output
            output.digests[n] = digests.pop()
    return output


def _sleeps(elapsed_s: float, cpu_s: float, runs: int, settings: EngineSettings) -> bool:
    """Past the wall budget, and the wall time is far beyond what the CPU time and the
    sandbox's per-run cost explain (a busy host stretches both alike: it is not a sleeper)."""
    explained = SLEEP_FACTOR * cpu_s + RUN_OVERHEAD_S * runs
    return elapsed_s > settings.wall_budget_s and elapsed_s > explained


def _one_run(language: str, code: str, text: str, settings: EngineSettings) -> Job:
    cap_ms = int(settings.cap_s * 1000)
    return Job(
        language=language,
        code=code,
        tests=[{"input": text, "output": ""}],
        limits=Limits(
            time_limit_ms=cap_ms,
            wall_time_limit_ms=3 * cap_ms + 1000,
            memory_limit_mb=settings.memory_limit_mb,
            report_bytes=_REPORT_BYTES,
        ),
    )


_FAILURES = (Verdict.RE, Verdict.MLE, Verdict.OLE, Verdict.CE)
SLEEP_FACTOR = 25
RUN_OVERHEAD_S = 0.05
_REPORT_BYTES = 1 << 16


def _detail(run: TestResult) -> str:
    return _first_line(run.message or (run.stderr.strip().splitlines() or [""])[-1])


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:300]
