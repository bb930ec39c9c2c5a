"""The judging agent: PID 1 of every sandbox container.

The host sends this module's source, with the sibling modules it imports, over the
container's stdin at start (it is never on the container's disk, so user code cannot read it),
then one frame per job. For each job the agent writes the files, compiles once, runs every
test with its limits, checks the output against the expected output (which never leaves this
process, and this process is not dumpable), resets the sandbox and answers with one frame.

Why PID 1: the kernel does not deliver SIGKILL or SIGSTOP sent from inside the container to its
init, so user code cannot kill the judge; and every orphan is re-parented here for reaping.

This module is the job's side (files, compiling, tests, expected outputs); its processes'
side (spawning, watching, repairing and resetting) is :mod:`.processes` with :mod:`.watch`,
and what a run means is :mod:`.verdicts`. Frames and their fields: :mod:`.wire`, the module
the host writes them with. Standard library only.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
import sys
import time
import traceback
from typing import Any

from judge_service.sandbox.agent import (
    checkers,
    javac_server,
    procfs,
    seccomp,
    testdata,
    verdicts,
    wire,
    workdir,
)
from judge_service.sandbox.agent.helpers import spawner_request
from judge_service.sandbox.agent.processes import HELPER_LOST, JudgeProcesses, rlimits
from judge_service.sandbox.agent.verdicts import display
from judge_service.sandbox.agent.watch import ProcessWatch

PR_SET_DUMPABLE = 4
RESULT_LIMIT = 1 << 20
# A planned test's answers together (see _zygote_run): values, which the runner bounds only by
# memory; as much as the default output limit lets any test's output be.
ANSWERS_LIMIT = 64 << 20
# Room the judge needs at the container's cap besides its processes and the test's memory limit
# (the test's input and output files, /work): most of what the host reserves for the judge
# (validation.SANDBOX_OVERHEAD_MB) once the warm compiler has taken its share.
JUDGE_MEMORY_KB = 128 << 10


class Protocol:
    """Length-prefixed frames: the container's stdin and stdout, or the host's two FIFOs."""

    def __init__(self, read_fd: int = 0, write_fd: int = 1) -> None:
        self.buffer = bytearray()
        self.read_fd, self.write_fd = read_fd, write_fd

    def read_exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = os.read(self.read_fd, max(1 << 16, size - len(self.buffer)))
            if not chunk:
                raise EOFError("host closed the channel")
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def read(self) -> tuple[wire.HostFrame, bytes]:
        header_size, blob_size = wire.sizes(self.read_exact(wire.PREFIX.size))
        header = wire.host_frame(self.read_exact(header_size))
        return header, self.read_exact(blob_size)

    def write(self, header: wire.AgentFrame, blob: bytes = b"") -> None:
        view = memoryview(wire.encode(header, blob))
        while view:
            view = view[os.write(self.write_fd, view) :]


def open_channel(paths: wire.ChannelPaths | None) -> Protocol | None:
    """The frames' protocol over the host's FIFOs, or None to stay on stdin and stdout.

    Opened without waiting: the host holds a reader of from-agent (without one, the open
    fails) and a writer of to-agent. Descriptors Python opens are not inherited: no helper or
    program gets them, and the host removes the files once the ready frame says they are open.
    """
    if not paths:
        return None
    try:
        write_fd = os.open(paths["from_agent"], os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        read_fd = os.open(paths["to_agent"], os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        os.close(write_fd)
        return None
    os.set_blocking(write_fd, True)
    os.set_blocking(read_fd, True)
    return Protocol(read_fd, write_fd)


LIBC = ctypes.CDLL(None, use_errno=True)


def main() -> None:
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # Before anything starts: every process of the sandbox inherits it (a failure stops the
    # agent, and the sandbox with it: no sandbox runs without it).
    seccomp.install(LIBC)
    # Init only receives signals it handles; Python's SIGINT handler would be one.
    for sig in signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD}:
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass
    sys.setrecursionlimit(100000)
    protocol = Protocol()
    init, _ = protocol.read()
    if init["op"] != "init":
        raise SystemExit(f"the first frame must be init, not {init['op']!r}")
    channel = open_channel(init.get("channel"))
    agent = Agent(init, LIBC)
    protocol.write(
        {
            "op": "ready",
            "pid": os.getpid(),
            "python": sys.version.split()[0],
            "channel": "fifo" if channel else "stdio",
        }
    )
    protocol = channel or protocol
    while True:
        try:
            header, blob = protocol.read()
        except EOFError:
            return
        reply: wire.AgentFrame
        try:
            reply, reply_blob = agent.handle(header, blob)
        except Exception:
            reply, reply_blob = {"op": "error", "message": traceback.format_exc()[-4000:]}, b""
        protocol.write(reply, reply_blob)


class ReportBudget:
    """How much of the programs' output a job's reply carries: each stream of each test at most
    ``per_stream`` bytes, and all of them together at most ``total``, taken in test order (so a
    job of loud tests cannot make a reply, and the host process reading it, of any size)."""

    def __init__(self, per_stream: int, total: int) -> None:
        self.per_stream = per_stream
        self.left = total

    def take(self, data: bytes) -> bytes:
        kept = data[: min(self.per_stream, self.left)]
        self.left -= len(kept)
        return kept


class Agent:
    def __init__(self, init: wire.InitFrame, libc: Any) -> None:
        self.processes = JudgeProcesses(init, libc)
        # Stdin test data kept for later jobs (in this process's memory: see testdata.py), and
        # the running job's, by key.
        self.test_cache: testdata.Lru[testdata.Kept] = testdata.Lru()
        self.job_data: dict[str, testdata.Kept] = {}
        self.dropped: list[testdata.Kept] = []

    # ---- jobs -------------------------------------------------------------------------
    def handle(
        self, job: wire.HostFrame, blob: bytes
    ) -> tuple[wire.PongFrame | wire.ResultFrame | wire.MissingFrame, bytes]:
        if job["op"] == "ping":
            return {"op": "pong", "nonce": job.get("nonce")}, b""
        if job["op"] != "job":
            raise ValueError(f"unknown op {job['op']!r}")
        missing = self._take_test_data(job, blob)
        if missing:
            return {"op": "missing", "keys": missing}, b""
        if "answer_within_ms" in job:
            job["limits"]["starved_until"] = time.monotonic() + job["answer_within_ms"] / 1000
        reply: wire.ResultFrame = {"op": "result", "compile": None, "tests": [], "reset_error": ""}
        reply_blob = b""
        self.processes.begin_job()
        try:
            workdir.unpack_files(job.get("blob_files", []), blob)
            if job.get("source_name"):
                workdir.write_file(job["source_name"], job["source"].encode(), 0o644)
            compiled = self._compile(job["compile"], reply) if job.get("compile") else True
            if job.get("return_artifacts") and compiled:
                # Before any test runs: the host caches these bytes for every later job with
                # the same build inputs, and a running program can replace its own files.
                reply["artifacts"], reply_blob = workdir.copy_out(
                    job["compile"]["artifacts"], glob=True
                )
            if compiled:
                self._make_room(job["limits"]["memory_kb"])
                # Memory the room made (a warm compiler stopped) is no test's due.
                self.processes.held_at_start = procfs.cgroup_memory_held()
                self._run_tests(job, reply)
            if job.get("fetch_files"):
                reply["fetched"], fetched_blob = workdir.copy_out(job["fetch_files"], glob=False)
                reply["fetched_offset"] = len(reply_blob)
                reply_blob += fetched_blob
        finally:
            testdata.release(self.dropped)
            self.job_data, self.dropped = {}, []
            reply["reset_error"] = self.processes.reset()
        return reply, reply_blob

    def _take_test_data(self, job: wire.JobFrame, blob: bytes) -> list[str]:
        """The job's test data, from its frame or kept from earlier jobs, into ``job_data``;
        the keys neither has (then nothing is kept or run: the host sends them)."""
        keys = testdata.job_keys(job["tests"])
        if not keys:
            return []
        files_size = sum(entry["size"] for entry in job.get("blob_files", []))
        carried = testdata.unpack(job.get("test_data", []), blob, files_size)
        missing = [key for key in keys if key not in carried and key not in self.test_cache]
        if missing:
            return missing
        data: dict[str, testdata.Kept] = {}
        new: dict[str, tuple[int, testdata.Kept]] = {}
        for key in keys:
            held = self.test_cache.get(key)
            if held is None:
                held = testdata.keep(carried[key])
                new[key] = (len(carried[key]), held)
            data[key] = held
        self.job_data = data
        # What no longer fits goes once the job is done (the job may be using it).
        self.dropped = self.test_cache.admit(keys, new, job.get("test_cache_bytes", 0))
        return []

    def _test_bytes(self, test: wire.TestSpec, output: bool) -> bytes:
        """A stdin test's input (or expected output), by key or, from an older host, inline."""
        if output:
            key, text = test.get("output_key"), test.get("output", "")
        else:
            key, text = test.get("input_key"), test.get("input", "")
        return text.encode() if key is None else testdata.content(self.job_data[key])

    def _stdin(self, test: wire.TestSpec) -> int:
        """A stdin test's stdin: a read-only descriptor of the kept sealed memfd, or a copy."""
        key = test.get("input_key")
        held = self.job_data.get(key) if key is not None else None
        if isinstance(held, int):
            return testdata.reader(held)
        return workdir.memfd("stdin", self._test_bytes(test, output=False))

    def _compile(self, spec: wire.CompileSpec, reply: wire.ResultFrame) -> bool:
        limits = spec["limits"]
        served = self._compile_on_server(spec) if spec.get("server") == "javac" else None
        if served is not None:
            watch, text = served
        else:
            output = workdir.memfd("compile-output")
            watch = self.processes.spawn_and_watch(
                spec["argv"],
                spec["env"],
                [workdir.memfd("empty"), output, output],
                limits,
                cap_fds=[output],
            )
            text = workdir.read_memfd(output, limits["output_bytes"])
            os.close(output)
            self.processes.kill_stragglers()
        failed = watch.killed_for or watch.status != 0
        if failed and not watch.killed_for and not watch.oom_killed:
            self.processes.note_oom_kills(watch, limits)  # a compiler's child, say
        message = text.decode("utf-8", "replace")
        if watch.killed_for == "cpu":
            message += "\n[judge] compilation exceeded its time limit"
        elif watch.killed_for == "wall":
            # Not the compiler's CPU time: the host was too busy (or the compiler blocked).
            message += "\n[judge] compilation exceeded its time limit (wall-clock backstop)"
        elif watch.killed_for == "memory":
            message += "\n[judge] compilation exceeded its memory limit"
        elif watch.killed_for == "output":
            message += "\n[judge] compiler output exceeded its limit"
        report: wire.CompileReport = {
            "ok": not failed,
            "output": message[-limits["output_bytes"] :],
            "cpu_ms": round(watch.cpu_ms, 3),
            "wall_ms": round(watch.wall_ms, 3),
            "exit_code": procfs.exit_code(watch.status),
            "limit": (
                watch.killed_for
                if watch.killed_for in ("cpu", "wall")
                else "host_memory"
                if failed and watch.oom_killed and not watch.killed_for
                else None
            ),
        }
        if failed and watch.oom_killed and watch.stopped_for_others:
            report["host_stopped"] = True  # the sandboxes together were out of memory
        reply["compile"] = report
        return not failed

    def _syntax_is_valid(self, job: wire.JobFrame, reply: wire.ResultFrame) -> bool:
        """The interpreter's syntax check, on the source as sent: the program ran, and may have
        rewritten its file (then, when the file cannot be restored, its failure stands)."""
        try:
            workdir.write_file(job["source_name"], job["source"].encode(), 0o644)
        except OSError:
            return True
        return self._compile(job["syntax_check"], reply)

    def _compile_on_server(self, spec: wire.CompileSpec) -> tuple[ProcessWatch, bytes] | None:
        """The compile on the warm javac, or None to compile with plain javac: the command is
        not one it serves, or it could not start or did not answer (the server's trouble, not
        the program's). Its start-up is not the job's: limits count from the request on."""
        if not javac_server.serves(spec["argv"], spec["limits"]["memory_kb"]):
            return None
        self.processes.runs += 1
        server = self.processes.javac
        if server.running() and (
            server.env != spec["env"]
            or not server.usable(self.processes.limits, self.processes.scheduling)
        ):
            server.stop()
        # Started only here, when no process of any job is left (the last reset killed them).
        if not server.running() and not server.start(spec["env"], "/work"):
            return None
        limits = spec["limits"]
        served = server.compile(
            spec["argv"],
            {
                "cpu_ms": limits["cpu_ms"],
                "wall_ms": limits["wall_ms"],
                "memory_kb": limits["memory_kb"],
                "output_bytes": limits["output_bytes"],
            },
        )
        if served is None:
            return None
        watch = ProcessWatch()
        watch.status, watch.cpu_ms, watch.wall_ms = served.status, served.cpu_ms, served.wall_ms
        watch.peak_kb, watch.killed_for = served.peak_kb, served.killed_for
        return watch, served.output[: limits["output_bytes"]]

    def _make_room(self, memory_limit_kb: int) -> None:
        """Stop the warm compiler when the sandbox's memory cap could not hold it and a test
        at its memory limit together: the cap must stop no test the limit would not."""
        if not self.processes.javac.running():
            return
        cap_kb = procfs.cgroup_memory_max_kb()
        if cap_kb is None:
            return
        used_kb = procfs.usage(sorted(self.processes.judge_pids()))[0]
        if used_kb + memory_limit_kb + JUDGE_MEMORY_KB > cap_kb:
            self.processes.javac.stop()

    def _run_tests(self, job: wire.JobFrame, reply: wire.ResultFrame) -> None:
        source_fd = workdir.memfd("source", job["source"].encode()) if job.get("use_zygote") else -1
        budget_s = job.get("budget_ms", 0) / 1000.0
        started = time.monotonic()
        report = ReportBudget(job["limits"]["report_bytes"], job["limits"]["report_total_bytes"])
        # Every test of a job is spawned with the same argv, environment and limits.
        run = job["run"]
        run_request = spawner_request(run["argv"], run["env"], rlimits(job["limits"]))
        unchecked = True
        try:
            for test in job["tests"]:
                if budget_s and time.monotonic() - started > budget_s:
                    # The job has had its share of the sandbox: the tests left are TLE, unrun.
                    reply["tests"].append(_budget_spent(budget_s))
                    if job.get("stop_on_first_failure"):
                        break
                    continue
                result = self._run_one(job, test, source_fd, report, run_request)
                tampered = self.processes.repair_after_test()
                if result.get("message") == HELPER_LOST:
                    # The rest of the job would run on a helper the program may still be racing.
                    reply["tests"].append(result)
                    break
                if tampered:
                    result["verdict"] = "RE"
                    result["message"] = f"the program tampered with the judge: {tampered}"
                    reply["tests"].append(result)
                    break
                reply["tests"].append(result)
                if result["verdict"] in ("RE", "CE") and unchecked and "syntax_check" in job:
                    unchecked = False
                    if not self._syntax_is_valid(job, reply):
                        reply["tests"].clear()
                        break
                if result["verdict"] == "CE":
                    reply["compile"] = {"ok": False, "output": result["message"], "cpu_ms": 0.0}
                    reply["tests"].pop()
                    break
                if result["verdict"] != "AC" and job.get("stop_on_first_failure"):
                    break
        finally:
            if source_fd >= 0:
                os.close(source_fd)

    def _run_one(
        self,
        job: wire.JobFrame,
        test: wire.TestSpec,
        source_fd: int,
        report: ReportBudget,
        run_request: bytes,
    ) -> wire.TestReport:
        limits = job["limits"]
        mode = job["mode"]
        token = os.urandom(16).hex()
        if mode == "stdin":
            tests_data = b""
        elif mode == "function":
            call = {"args": test.get("args", []), "kwargs": test.get("kwargs") or {}}
            tests_data = json.dumps(call).encode()
        elif "plan" in test and job.get("use_zygote"):
            tests_data = test["plan"][0].encode()
        else:
            tests_data = test["code"].encode()
        # A stdin program spawned directly gets stdin, stdout and stderr only: no harness files.
        harnessed = mode != "stdin" or bool(job.get("use_zygote"))
        stdout, stderr = workdir.memfd("stdout"), workdir.memfd("stderr")
        result = workdir.memfd("result") if harnessed else -1
        stdin = self._stdin(test) if mode == "stdin" else workdir.memfd("stdin")
        tests_fd = workdir.memfd("tests", tests_data) if harnessed else -1
        try:
            if job.get("use_zygote"):
                watch = self._zygote_run(
                    job,
                    test,
                    token,
                    [stdin, stdout, stderr, result, source_fd, tests_fd],
                    [stdout, stderr],
                )
            else:
                fds = [stdin, stdout, stderr]
                if mode != "stdin":
                    fds += [result, workdir.memfd("token", token.encode()), tests_fd]
                # A harness (function or assert mode) runs the candidate as a process of its own
                # and talks to it over two pipes (runner ends 6 and 7, candidate ends 8 and 9):
                # the token and the tests stay out of the program's process. Ours are closed once
                # spawned, so either side sees EOF when the other dies.
                pipes = _candidate_pipes() if mode != "stdin" else []
                try:
                    watch = self.processes.run_via(
                        self.processes.spawner,
                        run_request,
                        fds + pipes,
                        limits,
                        [stdout, stderr],
                        close_after_spawn=pipes,
                        runner=bool(pipes),
                    )
                finally:
                    for fd in fds[4:5]:  # the token, created only for harness modes
                        os.close(fd)
            if not watch.none_left:
                self.processes.kill_stragglers()
            self.processes.clear_ipc()
            out = _without_trailer(
                workdir.read_memfd(stdout, limits["output_bytes"] + 1), job.get("runtime_trailer")
            )
            err = workdir.read_memfd(stderr, limits["output_bytes"] + 1)
            # A planned assert test's values come back in the result (bounded by
            # answers_limit: see _zygote_run); other harness results are one short record.
            result_limit = answers_limit(limits) if "plan" in test else RESULT_LIMIT
            harness = workdir.read_memfd(result, result_limit) if harnessed else b""
            verdict = verdicts.decide(
                job,
                test,
                watch,
                out,
                err,
                harness,
                token,
                lambda: self._check_output(job, test, out),
            )
            if verdict["verdict"] not in verdicts.STANDING_VERDICTS and not watch.oom_killed:
                self.processes.note_oom_kills(watch, limits)
                if watch.oom_killed and watch.stopped_for_others:
                    verdict = verdicts.HOST_STOPPED.copy()
        finally:
            for fd in (stdout, stderr, result, stdin, tests_fd):
                if fd >= 0:
                    os.close(fd)
        shown_out, shown_err = report.take(out), report.take(err)
        return {
            **verdict,
            "time_ms": round(watch.cpu_ms, 3),
            "wall_ms": round(watch.wall_ms, 3),
            "memory_kb": watch.peak_kb,
            "exit_code": procfs.exit_code(watch.status),
            "signal": procfs.signal_of(watch.status),
            "stdout": display(shown_out),
            "stderr": display(shown_err),
            "truncated": len(shown_out) < len(out) or len(shown_err) < len(err),
        }

    def _check_output(self, job: wire.JobFrame, test: wire.TestSpec, out: bytes) -> wire.Outcome:
        checker = job["checker"]
        expected = self._test_bytes(test, output=True)
        if checker["kind"] != "custom":
            accepted, message = checkers.check_output(checker["kind"], out, expected, checker)
            return {"verdict": "AC" if accepted else "WA", "message": message}
        stdin_data = self._test_bytes(test, output=False)
        verdict = self._custom_check(checker, stdin_data, expected, out)
        if verdict["verdict"] != "SE":
            return verdict
        # A checker that crashes on this output may be crashing *because* of it (text where it
        # parses numbers): if it accepts the expected output as an answer, the checker works
        # and the program's output is wrong; if it fails on that too, the checker is broken.
        sane = self._custom_check(checker, stdin_data, expected, expected)
        if sane["verdict"] == "AC":
            message = "the checker could not read the output: " + verdict["message"]
            return {"verdict": "WA", "message": message}
        return verdict

    def _custom_check(
        self, checker: wire.CheckerSpec, stdin_data: bytes, expected: bytes, out: bytes
    ) -> wire.Outcome:
        fds = [workdir.memfd("empty"), workdir.memfd("checker-out"), workdir.memfd("checker-err")]
        fds += [
            workdir.memfd("checker", checker["source"].encode()),
            workdir.memfd("input", stdin_data),
        ]
        fds += [workdir.memfd("expected", expected), workdir.memfd("actual", out)]
        try:
            watch = self.processes.spawn_and_watch(
                checker["argv"], checker["env"], fds, checker["limits"]
            )
            self.processes.kill_stragglers()
            printed = workdir.read_memfd(fds[1], 4096) + workdir.read_memfd(fds[2], 4096)
        finally:
            for fd in fds:
                os.close(fd)
        text = display(printed).strip()
        code = procfs.exit_code(watch.status)
        if not watch.killed_for and code in (0, 1, 2):
            return {"verdict": "AC" if code == 0 else "WA", "message": text}
        return {
            "verdict": "SE",
            "message": f"checker failed (exit {code}, {watch.killed_for or 'no limit'}): {text}",
        }

    # ---- processes --------------------------------------------------------------------
    def _zygote_run(
        self,
        job: wire.JobFrame,
        test: wire.TestSpec,
        token: str,
        fds: list[int],
        cap_fds: list[int],
    ) -> ProcessWatch:
        assert self.processes.zygote is not None
        mode = "calls" if "plan" in test else job["mode"]
        kernel_limits = rlimits(job["limits"])
        request = {
            "op": "spawn",
            "mode": mode,
            # A planned test's answers are the runner's values, not the program's output: a
            # correct answer longer than a small output limit was OLE here and AC with the
            # runner, and so were answers past 1 MB together (a 2 MB string, 300 of 10 KB). They
            # get the larger of the file-size limit and 64 MB (read as much below).
            "answers_limit": answers_limit(job["limits"]),
            "entry_point": job.get("entry_point") or "",
            "token": token,
            "rlimits": kernel_limits,
            "cwd": "/work",
            "env": job["run"]["env"],
            "argv0": job["run"]["argv0"],
        }
        return self.processes.run_via(
            self.processes.zygote,
            json.dumps(request).encode(),
            fds,
            job["limits"],
            cap_fds,
            runner=mode == "assert",
        )


# ---- helpers ------------------------------------------------------------------------------
def answers_limit(limits: wire.Limits) -> int:
    """What a planned test's answers may take in all (the relay says OLE past it)."""
    return max(rlimits(limits)["fsize"], ANSWERS_LIMIT)


def _budget_spent(budget_s: float) -> wire.TestReport:
    return {
        "verdict": "TLE",
        "message": f"not run: the job's wall-clock budget ({budget_s:.0f} s) was spent",
        "limit": "budget",
        "time_ms": 0.0,
        "wall_ms": 0.0,
        "memory_kb": 0,
    }


def _without_trailer(out: bytes, trailer: str | None) -> bytes:
    """``out`` without the runtime's own message at its end (``trailer``), which follows the
    program's output on the same line when that did not end with a newline."""
    if not trailer:
        return out
    found = re.search(b"(?:" + trailer.encode() + rb")\n?\Z", out)
    return out[: found.start()] if found else out


def _candidate_pipes() -> list[int]:
    """fds 6-9 of a harness: runner reads, runner writes, candidate reads, candidate writes."""
    from_candidate, to_runner = os.pipe()
    from_runner, to_candidate = os.pipe()
    return [from_candidate, to_candidate, from_runner, to_runner]
