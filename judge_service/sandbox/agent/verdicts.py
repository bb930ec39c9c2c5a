"""What a test's run means: the verdict from the limits it hit, its exit status, and what its
harness or planned calls left in the result (expected values compared here, in the agent).

Verdicts are data (``wire.Outcome``); the order of the checks is the judge's policy: a planned
check that already failed first (the runner would have stopped there), then output, time and
memory limits, then the program's own answer. Standard library only: this module runs inside
the sandbox.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any, cast

from judge_service.sandbox.agent import checkers, plain, planned, procfs, wire
from judge_service.sandbox.agent.watch import ProcessWatch

# What a run gets whose process the OOM killer took for the other sandboxes' memory (the
# program, or a child whose loss it may have turned into a wrong answer, a hang or a crash),
# unless it was accepted or past its own memory limit: the judge's failure, judged again.
HOST_STOPPED: wire.Outcome = {
    "verdict": "SE",
    "message": "the kernel's OOM killer took a process of the run while its sandbox held no more "
    "than its due: the sandboxes together were out of memory",
    "limit": "host_memory",
}
# Verdicts that stand whoever else took memory: accepted, past its own memory limit, or
# already the judge's failure.
STANDING_VERDICTS = ("AC", "MLE", "SE")


def decide(
    job: wire.JobFrame,
    test: wire.TestSpec,
    watch: ProcessWatch,
    out: bytes,
    err: bytes,
    harness: bytes,
    token: str,
    check_output: Callable[[], wire.Outcome],
) -> wire.Outcome:
    """A test's verdict from what its program left: the limits it hit, its exit, its harness
    result or planned answers, and (stdin mode) ``check_output``'s comparison."""
    limits = job["limits"]
    signal_number = procfs.signal_of(watch.status)
    memory_limit_kb = limits["memory_kb"]
    if watch.lost:
        return {"verdict": "RE", "message": watch.lost}
    planned_outcome = (
        planned.verdict(test["plan"][1], harness, token)
        if "plan" in test and job.get("use_zygote")
        else None
    )
    if isinstance(planned_outcome, dict) and planned_outcome["verdict"] in ("WA", "CE"):
        # The runner would have stopped at this check, before anything that came later.
        return cast(wire.Outcome, planned_outcome)
    # Output first: runtimes that ignore SIGXFSZ (JVM, Go) spin on failed writes until a
    # time limit, but the cause is the output.
    if (
        watch.killed_for == "output"
        or signal_number == signal.SIGXFSZ
        or len(out) > limits["output_bytes"]
        or len(err) > limits["output_bytes"]
    ):
        return {"verdict": "OLE", "message": "output limit exceeded"}
    if watch.killed_for == "wall":
        return {
            "verdict": "TLE",
            "message": "wall time limit exceeded",
            "limit": "wall",
            "cpu_wait_ms": round(watch.cpu_wait_ms, 3),
        }
    if watch.killed_for == "cpu":
        return {"verdict": "TLE", "message": "cpu time limit exceeded", "limit": "cpu"}
    if watch.killed_for == "memory":
        return {"verdict": "MLE", "message": "memory limit exceeded"}
    if watch.killed_for == "oom_score":
        return {"verdict": "RE", "message": "the program lowered its oom_score_adj"}
    if signal_number == signal.SIGXCPU or watch.cpu_ms > limits["cpu_ms"]:
        return {"verdict": "TLE", "message": "cpu time limit exceeded", "limit": "cpu"}
    overflowed = watch.peak_kb > memory_limit_kb and signal_number != signal.SIGSEGV
    if overflowed or any(m.encode() in err for m in job.get("mle_markers", [])):
        return {"verdict": "MLE", "message": "memory limit exceeded"}
    if signal_number == signal.SIGKILL and watch.oom_killed and watch.stopped_for_others:
        # Its sandbox took no more than its due and never reached its own cap: every sandbox
        # together was out of memory. Provisional: the pool judges it again alone on the host.
        return HOST_STOPPED.copy()
    if signal_number == signal.SIGKILL and watch.oom_killed:
        # Within its own limit as the agent counts it, taken by the kernel's OOM killer at its
        # sandbox's cap, or when its sandbox took more than its due, or where that cannot be
        # told. Its own verdict, marked so that it is judged again (alone) and never cached;
        # never SE, which a program could aim for, past its due, to turn its zero into none.
        verdict = "MLE" if watch.peak_kb * 2 > memory_limit_kb else "RE"
        return {
            "verdict": verdict,
            "message": "stopped by the kernel's OOM killer within its memory limit (the "
            "sandbox's cap, or the cap on every sandbox together)",
            "limit": "host_memory",
        }
    if signal_number == signal.SIGKILL and watch.peak_kb * 2 > memory_limit_kb:
        return {"verdict": "MLE", "message": "killed by the memory cap"}
    if planned_outcome is not None:
        return planned_verdict(planned_outcome, watch)
    if "suite_failure_exit" in job:
        return suite_verdict(watch, job["suite_failure_exit"], out)
    outcome = harness_outcome(harness, token) if job["mode"] != "stdin" or harness else None
    if outcome and outcome.get("status") == "compile_error":
        return {"verdict": "CE", "message": outcome.get("message", "")}
    if watch.status != 0:
        detail = outcome.get("message", "") if outcome else ""
        status = outcome.get("status") if outcome else None
        if job["mode"] == "assert" and status == "assertion":
            return {
                "verdict": "WA",
                "message": "assertion failed" + (f": {detail}" if detail else ""),
            }
        if job["mode"] == "assert" and status == "not_plain_data":
            return {"verdict": "WA", "message": detail}
        if status == "harness_error":
            return {"verdict": "SE", "message": detail}
        how = (
            f"signal {signal_number}"
            if signal_number
            else f"exit code {procfs.exit_code(watch.status)}"
        )
        return {
            "verdict": "RE",
            "message": f"runtime error ({how})" + (f": {detail}" if detail else ""),
        }
    if job["mode"] == "stdin":
        return check_output()
    if outcome is None:
        return {"verdict": "RE", "message": "the program exited before the tests completed"}
    if job["mode"] == "assert":
        return (
            {"verdict": "AC", "message": ""}
            if outcome.get("status") == "ok"
            else {"verdict": "WA", "message": outcome.get("message", "")}
        )
    if outcome.get("status") != "ok":
        return {"verdict": "WA", "message": outcome.get("message", "")}
    options = job["checker"]
    accepted = checkers.json_values_equal(
        outcome.get("value"),
        test["expected"],
        options.get("abs_tol", 1e-6),
        options.get("rel_tol", 1e-6),
        numbers_as_floats=options.get("kind") == "float",
    )
    if accepted:
        return {"verdict": "AC", "message": ""}
    return {"verdict": "WA", "message": "returned " + checkers.short_json(outcome.get("value"))}


def planned_verdict(outcome: dict[str, Any] | str, watch: ProcessWatch) -> wire.Outcome:
    """A planned assert test's verdict once no limit was exceeded."""
    if isinstance(outcome, dict):
        return cast(wire.Outcome, outcome)
    if outcome == planned.PASSED and watch.status == 0:
        return {"verdict": "AC", "message": ""}
    signal_number = procfs.signal_of(watch.status)
    exit_code = procfs.exit_code(watch.status)
    how = f"signal {signal_number}" if signal_number else f"exit code {exit_code}"
    return {
        "verdict": "RE",
        "message": f"runtime error ({how}): the program exited before the tests completed",
    }


def suite_verdict(watch: ProcessWatch, failure_exit: int, out: bytes) -> wire.Outcome:
    """A test suite's run (or an appended assert test's): exit 0 is AC, the "tests failed"
    status WA (with the report's last line; a negative status is a signal's number), anything
    else (a crash, another signal, a framework error) RE."""
    code = procfs.exit_code(watch.status)
    signal_number = procfs.signal_of(watch.status)
    if watch.status == 0:
        return {"verdict": "AC", "message": ""}
    if code == failure_exit or (failure_exit < 0 and signal_number == -failure_exit):
        lines = display(out[-400:]).strip().splitlines()
        return {"verdict": "WA", "message": "tests failed" + (f": {lines[-1]}" if lines else "")}
    how = f"signal {signal_number}" if signal_number else f"exit code {code}"
    return {"verdict": "RE", "message": f"runtime error ({how})"}


def harness_outcome(data: bytes, token: str) -> dict[str, Any] | None:
    marker = token.encode() + b"\n"
    if not data.startswith(marker):
        return None
    try:
        outcome = plain.loads_bounded(data[len(marker) :])
    except plain.DecodeError as error:
        return {"status": "unserializable", "message": f"the program's answer {error}"}
    except ValueError:
        return None
    return outcome if isinstance(outcome, dict) else None


def display(data: bytes) -> str:
    return data.decode("utf-8", "replace").replace("\x00", "\ufffd")
