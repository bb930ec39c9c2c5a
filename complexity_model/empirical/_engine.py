"""Timing a stdin program in any engine language by the CPU time the engine reports per test.

A compiled program cannot host the Python driver, so its sizes become the tests of ordinary
sandbox jobs and each test's CPU time (wait4 rusage: about 0.8 ms of process start for C++,
+-0.1 ms) is a measurement; the start-up cost is the fit's intercept. Inputs come first from
the problem's generator, run in a Python sandbox (it is problem-author code, trusted less than
the judge), seeded with n like the Python driver's, so every program of a problem sees the
same inputs; they are kept per generator, so the reference and every candidate share one
generation. Sizes run in chunks (one job each; the compiled program is cached after the first)
and growth stops after the chunk where a test ran out of time (a censored point) or when the
budget is spent, so an exponential program stops near n = 30 while a linear one reaches the
largest input the generator may produce.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from complexity_model.empirical._digest import digest_text
from complexity_model.empirical._driver import DriverOutput
from judge_service.exceptions import SandboxError
from judge_service.sandbox.models import Job, JobResult, Limits, TestResult, Verdict
from judge_service.sandbox.pool import SandboxPool

GENERATOR_PROGRAM = r"""
import json, random, sys, time
spec = json.loads(sys.stdin.read())
namespace = {"__name__": "generator"}
exec(compile(spec["generator"], "generator.py", "exec"), namespace)
started, total = time.thread_time(), 0
for n in spec["sizes"]:
    random.seed(n)
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


@dataclass(frozen=True)
class EngineSettings:
    sizes: list[int]
    repeats: int = 3
    cap_s: float = 0.2
    budget_s: float = 1.0
    chunk: int = 8
    generator_budget_s: float = 1.0
    max_input_bytes: int = 6 << 20
    memory_limit_mb: int = 512


class InputCache:
    """Generated inputs per (generator, sizes, byte cap), the last ``capacity`` of them."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, list[tuple[int, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(
        self, pool: SandboxPool, generator: str, settings: EngineSettings
    ) -> list[tuple[int, str]] | str:
        """The inputs, or the reason the generator gave none."""
        key = json.dumps([generator, settings.sizes, settings.max_input_bytes])
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
    pool: SandboxPool, generator: str, settings: EngineSettings
) -> list[tuple[int, str]] | str:
    nonce = secrets.token_hex(8)
    spec = {
        "generator": generator,
        "sizes": settings.sizes,
        "max_bytes": settings.max_input_bytes,
        "budget_s": settings.generator_budget_s,
        "nonce": nonce,
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
    pool: SandboxPool,
    language: str,
    code: str,
    inputs: list[tuple[int, str]],
    settings: EngineSettings,
    fold_case: bool = False,
    digest_max_n: int = 1 << 13,
) -> DriverOutput:
    """Run ``code`` on the inputs, ``repeats`` tests per size, and keep the minimum CPU time.

    Every test of a job runs (a job cannot stop at a timeout without expected outputs), so a
    chunk must not hold many sizes past the point where the program runs out of time: after
    the first chunk, the next one takes sizes while the steepest growth the ladder allows
    after the last point (:func:`_bound`) stays under the cap, plus one probe (a single run)
    of the first size past it. A job costs about 30 ms beyond its tests, so short chunks are
    cheap; a run past the cap costs the cap.
    """
    output = DriverOutput()
    spent = 0.0
    cap_ms = int(settings.cap_s * 1000)
    report_bytes = 1 << 16
    position = 0
    while position < len(inputs) and spent <= settings.budget_s:
        plan = _next_chunk(output.points, inputs[position:], settings, settings.budget_s - spent)
        tests = [{"input": text, "output": ""} for _, text, runs in plan for _ in range(runs)]
        job = Job(
            language=language,
            code=code,
            tests=tests,
            limits=Limits(
                time_limit_ms=cap_ms,
                wall_time_limit_ms=3 * cap_ms + 1000,
                memory_limit_mb=settings.memory_limit_mb,
                report_bytes=report_bytes,
            ),
        )
        result = checked(pool.judge(job))
        if result.compile is not None and not result.compile.ok:
            output.error_source = "candidate"
            output.error = _first_line("compilation failed: " + result.compile.output)
            return output
        offset = 0
        for n, _, count in plan:
            runs = result.tests[offset : offset + count]
            offset += count
            spent += sum(run.time_ms for run in runs) / 1000
            failure = next((run for run in runs if run.verdict in _FAILURES), None)
            if failure is not None:
                output.error_source = "candidate"
                output.error = f"at n = {n}: {failure.verdict.value} {_detail(failure)}"[:300]
                return output
            timed = [run.time_ms / 1000 for run in runs if run.verdict is not Verdict.TLE]
            if not timed:
                output.points.append((n, settings.cap_s, True))
                return output
            output.points.append((n, min(timed), False))
            first = runs[0]
            if n <= digest_max_n and len(first.stdout.encode()) < report_bytes:
                output.digests[n] = digest_text(first.stdout, fold_case)
        position += len(plan)
    return output


def _next_chunk(
    points: list[tuple[int, float, bool]],
    remaining: list[tuple[int, str]],
    settings: EngineSettings,
    budget_left_s: float,
) -> list[tuple[int, str, int]]:
    """The next sizes to run, each with its number of runs (see :func:`measure_in_engine`)."""
    if len(points) < 4:
        return [(n, text, settings.repeats) for n, text in remaining[: settings.chunk]]
    bound = _bound(points)
    plan: list[tuple[int, str, int]] = []
    expected = 0.0
    for n, text in remaining:
        predicted = bound(n)
        if predicted >= settings.cap_s:
            plan.append((n, text, 1))
            break
        # Near the cap one run is enough (a long run's noise is small) and wastes less.
        runs = 1 if predicted >= settings.cap_s / 4 else settings.repeats
        plan.append((n, text, runs))
        expected += predicted * runs
        if len(plan) >= 2 * settings.chunk or expected > budget_left_s:
            break
    return plan


def _bound(points: list[tuple[int, float, bool]]) -> Callable[[float], float]:
    """The largest time at n that the ladder allows after the last point.

    Up to n = 40: the growth seen between the last two points, continued exponentially, or an
    exponential as large as 5% of the last time hidden under the noise, whichever is larger
    (past n = 40, 2^n would have exceeded any cap long before). Beyond: the growth seen
    continued as a power, or a cubic through the last point (the steepest polynomial on the
    ladder), whichever is larger. A fitted class is not trusted here: on points that are all
    start-up cost, the class that fits the noise predicts nothing.
    """
    (n_prev, t_prev, _), (n_last, t_last, _) = points[-2], points[-1]
    ratio = max(t_last / t_prev, 1.0) if t_prev > 0 else 1.0
    if n_last <= 40:
        rate = max(ratio ** (1 / max(n_last - n_prev, 1)), 2.0**0.5)

        def exponential(n: float) -> float:
            steps = min(n - n_last, 60.0)  # far past any cap, and no float overflow
            return max(
                t_last * math.pow(rate, steps), t_last + 0.05 * t_last * math.pow(2.0, steps)
            )

        return exponential
    slope = max(math.log(ratio) / math.log(n_last / n_prev), 3.0) if n_last > n_prev else 3.0
    return lambda n: t_last * math.pow(n / n_last, slope)


_FAILURES = (Verdict.RE, Verdict.MLE, Verdict.OLE, Verdict.CE)


def _detail(run: TestResult) -> str:
    return _first_line(run.message or (run.stderr.strip().splitlines() or [""])[-1])


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:300]
