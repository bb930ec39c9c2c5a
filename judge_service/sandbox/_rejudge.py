"""Judging again what the host's load may have decided.

Limits are CPU time; the wall clock is only a backstop for programs that sleep or block. The
agent already moves a program's wall limit on by the time its threads waited for a CPU
(schedstat's run delay), up to ``starved_wall_factor`` times the limit. A test the wall
clock still stopped while its processes spent much of that time waiting for a CPU (the host was
busy, the program was not slow), and a compile stopped by its wall-clock backstop, are judged
again with twice the wall time, up to ``wall_retries`` times. A sleeper waits on nothing and is
not judged again. Whatever a wall clock still decides after that is marked (``limit: "wall"``)
and never cached (see ``JobResult.load_dependent``).

A test (or compile) the kernel's OOM killer stopped within its memory limit (``limit:
"host_memory"``: at its sandbox's cap, or because every sandbox together was out of memory) is
judged again with its own wall time, alone on its host (see ``_memory_gate``) once the pool has
closed idle sandboxes until it fits under their cap; what it gets then stands, still marked and
never cached.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_service.sandbox import _jobs
from judge_service.sandbox.models import Job, JobResult, TestResult

# A test that waited this share of its wall time for a CPU was starved, not sleeping.
STARVED_SHARE = 0.1


@dataclass(frozen=True)
class Rejudge:
    """What to run again: the whole job (its compile was cut short) or tests from ``start``
    on (the job stops at its first failure) or just ``indices``."""

    job: Job
    indices: tuple[int, ...]
    whole: bool = False


def plan(job: Job, result: JobResult, wall_ms: int, host_memory: bool = True) -> Rejudge | None:
    """What of ``result`` to judge again (with ``wall_ms`` of wall time), if anything; what the
    OOM killer stopped only with ``host_memory`` (not after it was judged alone)."""
    again = ("wall", "host_memory") if host_memory else ("wall",)
    if result.compile is not None and result.compile.limit in again:
        return Rejudge(job, tuple(range(len(job.tests))), whole=True)
    starved = [
        index
        for index, test in enumerate(result.tests)
        if _starved(job, test) or (host_memory and test.limit == "host_memory")
    ]
    if not starved:
        return None
    # Tests left unrun when the job's budget was spent: spent by starved tests, so run them too.
    unrun = [index for index, test in enumerate(result.tests) if test.limit == "budget"]
    indices = (
        tuple(range(starved[0], len(job.tests)))
        if job.stop_on_first_failure
        else tuple(sorted(starved + unrun))
    )
    if not any(_starved(job, result.tests[index]) for index in starved):
        wall_ms = job.limits.wall_ms  # only the OOM killer's: no more wall time than before
    limits = job.limits.model_copy(update={"wall_time_limit_ms": wall_ms})
    tests = [job.tests[index] for index in indices]
    return Rejudge(job.model_copy(update={"tests": tests, "limits": limits}), indices)


def merge(result: JobResult, rejudge: Rejudge, again: JobResult) -> JobResult:
    """``result`` with the tests judged again replaced by their new results."""
    if rejudge.whole:
        return again
    tests = list(result.tests)
    if rejudge.job.stop_on_first_failure:
        tests = tests[: rejudge.indices[0]] + list(again.tests)
    else:
        for index, test in zip(rejudge.indices, again.tests, strict=False):
            tests[index] = test
    merged = _jobs.summarise(result.total, tests, result.compile, result.files)
    merged.duration_ms = result.duration_ms + again.duration_ms
    return merged


def _starved(job: Job, test: TestResult) -> bool:
    if test.limit != "wall" or test.time_ms >= job.limits.time_limit_ms:
        return False
    return (test.cpu_wait_ms or 0.0) >= STARVED_SHARE * test.wall_ms
