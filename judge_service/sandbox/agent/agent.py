"""The judging agent: PID 1 of every sandbox container.

The host sends this module's source, with the sibling modules it imports, over the
container's stdin at start (it is never on the container's disk, so user code cannot read it),
then one frame per job. For each job the agent writes the files, compiles once, runs every
test with its limits, checks the output against the expected output (which never leaves this
process, and this process is not dumpable), resets the sandbox and answers with one frame.

Why PID 1: the kernel does not deliver SIGKILL or SIGSTOP sent from inside the container to its
init, so user code cannot kill the judge; and every orphan is re-parented here for reaping.

Frames and their fields: :mod:`.wire`, the module the host writes them with. Standard library
only.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import sys
import time
import traceback
from typing import Any, cast

from judge_service.sandbox.agent import (
    checkers,
    ipc,
    javac_server,
    plain,
    planned,
    procfs,
    testdata,
    wire,
    workdir,
)
from judge_service.sandbox.agent.helpers import (
    Helper,
    HelperError,
    spawner_ping,
    spawner_request,
)

PR_SET_DUMPABLE = 4
SPAWNER = "/opt/judge/spawner"
IPC_DIRS = ("/dev/shm", "/dev/mqueue")
SCRATCH_DIRS = ("/work", "/tmp", *IPC_DIRS)
KILL_GRACE_S = 2.0
HELPER_LOST = "the program killed the judge's helper process"
RESULT_LIMIT = 1 << 20
SWARM_PROCESSES = 16
# Room the judge needs at the container's cap besides its processes and the test's memory limit
# (the test's input and output files, /work): most of what the host reserves for the judge
# (validation.SANDBOX_OVERHEAD_MB) once the warm compiler has taken its share.
JUDGE_MEMORY_KB = 128 << 10


class Protocol:
    """Length-prefixed frames over the container's stdin and stdout."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def read_exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = os.read(0, max(1 << 16, size - len(self.buffer)))
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

    @staticmethod
    def write(header: wire.AgentFrame, blob: bytes = b"") -> None:
        view = memoryview(wire.encode(header, blob))
        while view:
            view = view[os.write(1, view) :]


LIBC = ctypes.CDLL(None, use_errno=True)


def main() -> None:
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
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
    agent = Agent(init, LIBC)
    protocol.write({"op": "ready", "pid": os.getpid(), "python": sys.version.split()[0]})
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


class ProcessWatch:
    """What the watch loop learned about one process."""

    def __init__(self) -> None:
        self.status = 0
        self.cpu_ms = 0.0
        self.wall_ms = 0.0
        self.peak_kb = 0
        self.killed_for = ""
        # How long the host kept the job waiting for a CPU (what its threads waited, at most
        # the time its processes were off a CPU), read at the wall deadline: high means the
        # host was busy, not that the program was slow.
        self.cpu_wait_ms = 0.0
        self.orphan_cpu_ms = 0.0
        # All the CPU the job's processes used, reaped by whoever (see procfs.JobCpuClock).
        self.job_cpu_ms = 0.0
        self.lost = ""
        # No process of the job was left when it ended (none can have started since).
        self.none_left = False


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
        self.libc = libc
        self.spawner = Helper("spawner", [SPAWNER])
        self.zygote: Helper | None = None
        self.limits = procfs.limits_of(0)
        self.scheduling = procfs.scheduling_of(0)
        self.tainted = ""
        # Stdin test data kept for later jobs (in this process's memory: see testdata.py), and
        # the running job's, by key.
        self.test_cache: testdata.Lru[testdata.Kept] = testdata.Lru()
        self.job_data: dict[str, testdata.Kept] = {}
        self.dropped: list[testdata.Kept] = []
        self.javac = javac_server.JavacServer()
        # How many times a job's processes may have run (spawns, stragglers found), and that
        # count when the judge's processes were last checked and the IPC objects last removed:
        # the reset repeats neither check when no process of the job has run since.
        self.runs = 0
        self.checked_at = self.ipc_cleared_at = -1
        # Set when processes outlived a kill: they ran on after any check; the reset does all.
        self.survivors = False
        if init.get("zygote_bundle"):
            self.zygote = Helper(
                "python zygote", init["zygote_argv"], init["zygote_bundle"].encode()
            )
        for helper in self._helpers():
            helper.start()

    def _helpers(self) -> list[Helper]:
        return [self.spawner] + ([self.zygote] if self.zygote else [])

    def _judge_pids(self) -> set[int]:
        """The agent, its helpers and the warm compiler: never a job's processes."""
        pids = {os.getpid(), *(helper.pid for helper in self._helpers())}
        return pids | ({self.javac.pid} if self.javac.running() else set())

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
        reply: wire.ResultFrame = {"op": "result", "compile": None, "tests": [], "reset_error": ""}
        reply_blob = b""
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
                self._run_tests(job, reply)
            if job.get("fetch_files"):
                reply["fetched"], fetched_blob = workdir.copy_out(job["fetch_files"], glob=False)
                reply["fetched_offset"] = len(reply_blob)
                reply_blob += fetched_blob
        finally:
            testdata.release(self.dropped)
            self.job_data, self.dropped = {}, []
            reply["reset_error"] = self.reset()
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
            watch = self._spawn_and_watch(
                spec["argv"],
                spec["env"],
                [workdir.memfd("empty"), output, output],
                limits,
                cap_fds=[output],
            )
            text = workdir.read_memfd(output, limits["output_bytes"])
            os.close(output)
            self._kill_stragglers()
        failed = watch.killed_for or watch.status != 0
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
        reply["compile"] = {
            "ok": not failed,
            "output": message[-limits["output_bytes"] :],
            "cpu_ms": round(watch.cpu_ms, 3),
            "wall_ms": round(watch.wall_ms, 3),
            "exit_code": procfs.exit_code(watch.status),
            "limit": watch.killed_for if watch.killed_for in ("cpu", "wall") else None,
        }
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
        self.runs += 1
        server = self.javac
        if server.running() and (
            server.env != spec["env"] or not server.usable(self.limits, self.scheduling)
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
        if not self.javac.running():
            return
        cap_kb = procfs.cgroup_memory_max_kb()
        if cap_kb is None:
            return
        used_kb = procfs.usage(sorted(self._judge_pids()))[0]
        if used_kb + memory_limit_kb + JUDGE_MEMORY_KB > cap_kb:
            self.javac.stop()

    def _run_tests(self, job: wire.JobFrame, reply: wire.ResultFrame) -> None:
        source_fd = workdir.memfd("source", job["source"].encode()) if job.get("use_zygote") else -1
        budget_s = job.get("budget_ms", 0) / 1000.0
        started = time.monotonic()
        report = ReportBudget(job["limits"]["report_bytes"], job["limits"]["report_total_bytes"])
        # Every test of a job is spawned with the same argv, environment and limits.
        run = job["run"]
        run_request = spawner_request(run["argv"], run["env"], _rlimits(job["limits"]))
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
                tampered = self._repair_after_test()
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
                # Assert mode: the harness runs the candidate as a process of its own and talks
                # to it over two pipes (runner ends 6 and 7, candidate ends 8 and 9). Ours are
                # closed once spawned, so either side sees EOF when the other dies.
                pipes = _candidate_pipes() if mode == "assert" else []
                try:
                    watch = self._run_via(
                        self.spawner,
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
                self._kill_stragglers()
            self._clear_ipc()
            out = workdir.read_memfd(stdout, limits["output_bytes"] + 1)
            err = workdir.read_memfd(stderr, limits["output_bytes"] + 1)
            # A planned assert test's values come back in the result (bounded by the file-size
            # limit, or RESULT_LIMIT when larger: see _zygote_run); other harness results are
            # one short record.
            result_limit = _rlimits(limits)["fsize"] if "plan" in test else RESULT_LIMIT
            harness = (
                workdir.read_memfd(result, max(result_limit, RESULT_LIMIT)) if harnessed else b""
            )
            verdict = self._verdict(job, test, watch, out, err, harness, token)
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
            "stdout": _display(shown_out),
            "stderr": _display(shown_err),
            "truncated": len(shown_out) < len(out) or len(shown_err) < len(err),
        }

    def _verdict(
        self,
        job: wire.JobFrame,
        test: wire.TestSpec,
        watch: ProcessWatch,
        out: bytes,
        err: bytes,
        harness: bytes,
        token: str,
    ) -> wire.Outcome:
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
        if signal_number == signal.SIGXCPU or watch.cpu_ms > limits["cpu_ms"]:
            return {"verdict": "TLE", "message": "cpu time limit exceeded", "limit": "cpu"}
        overflowed = watch.peak_kb > memory_limit_kb and signal_number != signal.SIGSEGV
        if overflowed or any(m.encode() in err for m in job.get("mle_markers", [])):
            return {"verdict": "MLE", "message": "memory limit exceeded"}
        if signal_number == signal.SIGKILL and watch.peak_kb * 2 > memory_limit_kb:
            return {"verdict": "MLE", "message": "killed by the memory cap"}
        if planned_outcome is not None:
            return _planned_verdict(planned_outcome, watch)
        if "suite_failure_exit" in job:
            return _suite_verdict(watch, job["suite_failure_exit"], out)
        outcome = _harness_outcome(harness, token) if job["mode"] != "stdin" or harness else None
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
            if job["mode"] == "assert" and status == "harness_error":
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
            return self._check_output(job, test, out)
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
            watch = self._spawn_and_watch(checker["argv"], checker["env"], fds, checker["limits"])
            self._kill_stragglers()
            printed = workdir.read_memfd(fds[1], 4096) + workdir.read_memfd(fds[2], 4096)
        finally:
            for fd in fds:
                os.close(fd)
        text = _display(printed).strip()
        code = procfs.exit_code(watch.status)
        if not watch.killed_for and code in (0, 1, 2):
            return {"verdict": "AC" if code == 0 else "WA", "message": text}
        return {
            "verdict": "SE",
            "message": f"checker failed (exit {code}, {watch.killed_for or 'no limit'}): {text}",
        }

    # ---- processes --------------------------------------------------------------------
    def _spawn_and_watch(
        self,
        argv: list[str],
        env: dict[str, str],
        fds: list[int],
        limits: wire.Limits,
        cap_fds: list[int] | None = None,
        close_after_spawn: list[int] | None = None,
        runner: bool = False,
    ) -> ProcessWatch:
        request = spawner_request(argv, env, _rlimits(limits))
        return self._run_via(
            self.spawner, request, fds, limits, cap_fds or [], close_after_spawn or [], runner
        )

    def _zygote_run(
        self,
        job: wire.JobFrame,
        test: wire.TestSpec,
        token: str,
        fds: list[int],
        cap_fds: list[int],
    ) -> ProcessWatch:
        assert self.zygote is not None
        mode = "calls" if "plan" in test else job["mode"]
        rlimits = _rlimits(job["limits"])
        request = {
            "op": "spawn",
            "mode": mode,
            "release_after": test["plan"][2] if mode == "calls" else [],
            # A planned test's answers are the runner's values, not the program's output: a
            # correct answer longer than a small output limit was OLE here and AC with the
            # runner. They get at least what any harness result gets (read as much below).
            "answers_limit": max(rlimits["fsize"], RESULT_LIMIT),
            "entry_point": job.get("entry_point") or "",
            "token": token,
            "rlimits": rlimits,
            "cwd": "/work",
            "env": job["run"]["env"],
            "argv0": job["run"]["argv0"],
        }
        return self._run_via(
            self.zygote,
            json.dumps(request).encode(),
            fds,
            job["limits"],
            cap_fds,
            runner=mode == "assert",
        )

    def _run_via(
        self,
        helper: Helper,
        request: bytes,
        fds: list[int],
        limits: wire.Limits,
        cap_fds: list[int],
        close_after_spawn: list[int] | None = None,
        runner: bool = False,
    ) -> ProcessWatch:
        """Spawn through ``helper`` and watch the job. With ``runner``, the spawned process is
        an assert-mode harness that runs the candidate as its child: its own memory is the
        judge's, not the program's, and is left out of the program's."""
        self.runs += 1
        shared = ipc.SharedMemory(cap_fds)
        judge_pids = sorted(pid for pid in self._judge_pids() if pid)
        clock = procfs.JobCpuClock(judge_pids)
        started = time.monotonic()
        try:
            pid = helper.spawn(request, fds)
        except HelperError:
            for fd in close_after_spawn or []:
                os.close(fd)
            if not self._job_pids():
                raise
            # The program ran and killed the helper before its "spawned" reply left (a race
            # the program can win); without a program the helper failed on its own.
            watch = ProcessWatch()
            watch.lost = HELPER_LOST
            return watch
        for fd in close_after_spawn or []:
            os.close(fd)
        _below_the_agent(pid)
        assert helper.channel is not None
        watch = self._watch(
            pid, helper.channel.fileno(), started, limits, cap_fds, shared, clock, runner
        )
        report = helper.receive(timeout=KILL_GRACE_S * 2)
        if report is None or report.get("op") != "exit":
            procfs.kill(pid)
            helper.stop()
            watch.lost = HELPER_LOST
            return watch
        watch.status = report["status"]
        if report.get("output"):
            # The zygote's relay took the program's answers past the limit: what the program
            # did after (ignoring SIGXFSZ, it exited, slept or spun) is not what stopped it.
            watch.killed_for = "output"
        watch.cpu_ms = max(report["cpu_ms"] + watch.orphan_cpu_ms, watch.job_cpu_ms)
        if not runner:  # a runner's peak is its own or its child's: not the program's alone
            watch.peak_kb = max(watch.peak_kb, report["maxrss_kb"])
        return watch

    def _watch(
        self,
        pid: int,
        wait_fd: int,
        started: float,
        limits: wire.Limits,
        cap_fds: list[int],
        shared: ipc.SharedMemory,
        clock: procfs.JobCpuClock,
        runner: bool = False,
    ) -> ProcessWatch:
        """Wait for exit while enforcing wall, CPU and memory limits; kill on a breach.

        The wall clock stops what sleeps or blocks, not what the host starves: the deadline
        moves on by the time the job's threads waited for a CPU, but never by more than the
        time its processes did not spend on a CPU (waiting caused by its own processes is
        their CPU time, which the CPU limit stops)."""
        watch = ProcessWatch()
        cpu_limit_s = limits["cpu_ms"] / 1000.0
        wall_s = limits["wall_ms"] / 1000.0
        wall_deadline = started + wall_s
        wall_cap = started + wall_s * limits.get("starved_wall_factor", 1.0)
        cpu_check_at = started + cpu_limit_s
        poll_interval = 0.002
        next_poll = started + poll_interval
        memory_limit_kb = limits["memory_kb"]
        while True:
            now = time.monotonic()
            timeout = max(0.0, min(wall_deadline, cpu_check_at, next_poll) - now)
            if select.select([wait_fd], [], [], timeout)[0]:
                break
            now = time.monotonic()
            if now >= wall_deadline:
                pids = self._job_pids()
                used = _job_cpu_s(pids, clock)
                if used >= cpu_limit_s:
                    watch.killed_for = "cpu"
                # A swarm waits on its own processes, not on a busy host.
                elif len(pids) <= SWARM_PROCESSES:
                    # Threads come and go (a JVM's compiler threads), and their waits with them:
                    # the largest estimate so far stands.
                    waited_s = min(procfs.run_delay_ms(pids) / 1000.0, now - started - used)
                    watch.cpu_wait_ms = max(watch.cpu_wait_ms, waited_s * 1000.0)
                    wall_deadline = min(started + wall_s + watch.cpu_wait_ms / 1000.0, wall_cap)
                if now >= wall_deadline and not watch.killed_for:
                    watch.killed_for = "wall"
            if now >= cpu_check_at and not watch.killed_for:
                used = _job_cpu_s(self._job_pids(), clock)
                if used >= cpu_limit_s:
                    watch.killed_for = watch.killed_for or "cpu"
                cpu_check_at = now + max(cpu_limit_s - used, 0.005)
            if now >= next_poll:
                pids = [other for other in self._job_pids() if not (runner and other == pid)]
                rss = procfs.memory_kb(pids, memory_limit_kb)
                rss += shared.unmapped_kb(pids, rss, memory_limit_kb)
                watch.peak_kb = max(watch.peak_kb, rss)
                if rss > memory_limit_kb:
                    watch.killed_for = watch.killed_for or "memory"
                if any(os.fstat(fd).st_size > limits["output_bytes"] for fd in cap_fds):
                    watch.killed_for = watch.killed_for or "output"
                poll_interval = min(poll_interval * 2, 0.02)
                next_poll = now + poll_interval
            if watch.killed_for:
                procfs.kill(pid)
                select.select([wait_fd], [], [], KILL_GRACE_S)
                break
        watch.wall_ms = (time.monotonic() - started) * 1000.0
        # Children the program left running (or unreaped) count too: sampled before they die,
        # with what it left in shared memory (a /dev/shm file outlives its writer).
        job_pids = self._job_pids()
        watch.none_left = not job_pids
        others = [other for other in job_pids if other != pid]
        left_kb = procfs.memory_kb(others, memory_limit_kb)
        left_kb += shared.unmapped_kb(others, max(left_kb, watch.peak_kb), memory_limit_kb)
        watch.peak_kb = max(watch.peak_kb, left_kb)
        cpu_s = procfs.usage(others)[1]
        watch.orphan_cpu_ms = cpu_s * 1000.0
        watch.job_cpu_ms = (clock.used_s() or 0.0) * 1000.0
        return watch

    def _job_pids(self) -> list[int]:
        keep = self._judge_pids()
        return [pid for pid in procfs.all_pids() if pid not in keep]

    def _repair_after_test(self) -> str:
        """Undo what a test could do to the judge's own processes; '' when nothing was wrong.

        A stopped or dead helper is replaced. A helper whose limits were changed (prlimit(2)
        checks only uids) is replaced; the agent's own changed limits cannot all be restored
        (a lowered hard limit stays), so that taints the sandbox: the job stops and the reset
        fails, which destroys it.
        """
        for helper in self._helpers():
            if helper.pid and (
                procfs.process_state(helper.pid) not in ("S", "R")
                or procfs.limits_of(helper.pid) != self.limits
                or procfs.scheduling_of(helper.pid) != self.scheduling
            ):
                helper.stop()
        if self.javac.running() and not self.javac.usable(self.limits, self.scheduling):
            self.javac.stop()
        if procfs.limits_of(0) != self.limits:
            self.tainted = "resource limits of the judge were changed"
        elif not self._restore_scheduling():
            self.tainted = "the judge's scheduling priority, policy or CPU affinity was changed"
        self.checked_at = self.runs
        return self.tainted

    def _restore_scheduling(self) -> bool:
        """Undo nice, affinity and policy changes to the agent (setpriority(2),
        sched_setaffinity(2) and sched_setscheduler(2) check only uids), which every later
        program would inherit.

        An affinity is restored; a raised nice value or SCHED_IDLE is not (undoing them needs
        CAP_SYS_NICE or an RLIMIT_NICE, which sandboxes lack): False then, and the sandbox is
        destroyed.
        """
        if self.scheduling is None or procfs.scheduling_of(0) == self.scheduling:
            return True
        nice, cpus, policy = self.scheduling
        try:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
            os.sched_setaffinity(0, cpus)
            os.sched_setscheduler(0, policy, os.sched_param(0))
        except OSError:
            return False
        return procfs.scheduling_of(0) == self.scheduling

    def _kill_stragglers(self) -> None:
        """Kill every process but this agent and its helpers; reap what is left.

        A swarm (a fork bomb) is killed with one kill(-1): killing it a pid at a time races
        its forks while it starves this process of CPU, so a busy host could see the sandbox
        hang. kill(-1) from PID 1 reaches every other process, the helpers too; they are
        started again when next needed.
        """
        for _ in range(100):
            keep = self._judge_pids()
            others = [pid for pid in procfs.all_pids() if pid not in keep]
            if not others:
                return
            self.runs += 1
            if len(others) > SWARM_PROCESSES:
                procfs.kill(-1)
                # The warm javac was killed too: reap it now. Left to a later _reap, it could
                # stay a zombie (or a dying process that still looks usable) through the next
                # job, whose compile, answered from the cache, would not look at it.
                self.javac.stop()
            else:
                for pid in others:
                    procfs.kill(pid)
            self._reap()
            time.sleep(0.001)
        self.survivors = True

    def _reap(self) -> None:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for helper in self._helpers():
                if pid == helper.pid:
                    helper.pid = 0
                    helper.stop()
            if pid == self.javac.pid:
                self.javac.forget()

    # ---- reset --------------------------------------------------------------------------
    def reset(self) -> str:
        """Kill every process of the job, wipe scratch space, drop IPC objects; '' when clean."""
        try:
            return self._reset()
        except Exception as error:  # the host destroys a sandbox it cannot trust
            return f"reset failed: {error!r}"[:1000]

    def _reset(self) -> str:
        runs = self.runs
        self._kill_stragglers()
        # Nothing but the judge's own processes has run since the last test's checks and IPC
        # clean-up (stragglers found would have counted, survivors of a kill end this): what
        # they found still holds, and the last test's are not done twice.
        settled = not self.survivors
        self.survivors = False
        checked = settled and self.checked_at == self.runs
        problems = (
            [self.tainted] if self.tainted or (not checked and self._repair_after_test()) else []
        )
        ipc_cleared = settled and self.ipc_cleared_at == self.runs
        for directory in SCRATCH_DIRS:
            if ipc_cleared and directory in IPC_DIRS:
                continue
            if not self._wipe(directory):
                problems.append(f"{directory} not empty after wipe")
        if not ipc_cleared:
            ipc.remove_sysv_objects(self.libc)
        for helper in self._helpers():
            nonce = os.urandom(8).hex()
            ping = (
                spawner_ping(nonce)
                if helper is self.spawner
                else json.dumps({"op": "ping", "nonce": nonce}).encode()
            )
            if not helper.healthy(ping, nonce):
                helper.stop()
                try:
                    helper.start()
                except HelperError as error:
                    problems.append(str(error))
        # When no process of the job was left (it would have counted) and none ran since, none
        # can have appeared: only a job's process could start one.
        if self.runs != runs or self.survivors:
            keep = self._judge_pids()
            leftover = [pid for pid in procfs.all_pids() if pid not in keep]
            if leftover:
                problems.append(f"processes survived the reset: {leftover}")
        return "; ".join(problems)

    def _clear_ipc(self) -> None:
        """Between tests too, not only between jobs: shared memory a test left would hold memory
        charged to no test, and carry state into the next (its processes are dead by now, so
        nothing keeps a segment attached)."""
        emptied = [self._wipe(directory) for directory in IPC_DIRS]
        ipc.remove_sysv_objects(self.libc)
        if all(emptied):  # else the reset wipes again and reports what is left
            self.ipc_cleared_at = self.runs

    def _wipe(self, directory: str) -> bool:
        """Empty ``directory`` (if the sandbox has it); whether it is empty now."""
        try:
            if not os.listdir(directory):
                return True  # most tests leave nothing: one listing
        except (FileNotFoundError, NotADirectoryError):
            return True
        try:
            workdir.wipe(directory)
        except RecursionError:
            self._remove_with_rm(directory)
        return not os.listdir(directory)

    def _remove_with_rm(self, directory: str) -> None:
        """rm(1) walks trees of any depth; shutil.rmtree recurses once per level."""
        names = [os.path.join(directory, name) for name in os.listdir(directory)]
        limits: wire.Limits = {
            "cpu_ms": 20000,
            "wall_ms": 30000,
            "memory_kb": 256 << 10,
            "output_bytes": 1 << 16,
        }
        output = workdir.memfd("rm-output")
        try:
            self._spawn_and_watch(
                ["/bin/rm", "-rf", "--", *names],
                {"PATH": "/usr/bin:/bin"},
                [workdir.memfd("empty"), output, output],
                limits,
            )
        finally:
            os.close(output)
        self._kill_stragglers()


# ---- helpers ------------------------------------------------------------------------------
def _rlimits(limits: wire.Limits) -> dict[str, int]:
    """Kernel limits behind the agent's own enforcement (CPU in whole seconds, as a backstop)."""
    return {
        "cpu_s": int(limits["cpu_ms"] / 1000) + 1,
        "fsize": limits.get("fsize_bytes", limits["output_bytes"] + 1),
        "stack": limits.get("stack_bytes", -1),
        "nofile": 256,
    }


def _below_the_agent(pid: int) -> None:
    """Run the job's process at the lowest priority in its container (its children inherit it):
    a fork bomb of 128 processes must not starve the agent that has to stop it. Limits are CPU
    time, so this changes no verdict. (The zygote's children lower themselves before the
    program starts; a spawned one may have forked before this lands, which only costs speed.)"""
    try:
        os.setpriority(os.PRIO_PROCESS, pid, 19)
    except OSError:
        pass


def _job_cpu_s(pids: list[int], clock: procfs.JobCpuClock) -> float:
    """The job's CPU seconds so far: its cgroup's count, or what its live processes say."""
    return max(procfs.usage(pids)[1], clock.used_s() or 0.0)


def _budget_spent(budget_s: float) -> wire.TestReport:
    return {
        "verdict": "TLE",
        "message": f"not run: the job's wall-clock budget ({budget_s:.0f} s) was spent",
        "limit": "budget",
        "time_ms": 0.0,
        "wall_ms": 0.0,
        "memory_kb": 0,
    }


def _candidate_pipes() -> list[int]:
    """fds 6-9 of an assert-mode harness: runner reads, runner writes, candidate reads,
    candidate writes."""
    from_candidate, to_runner = os.pipe()
    from_runner, to_candidate = os.pipe()
    return [from_candidate, to_candidate, from_runner, to_runner]


def _planned_verdict(outcome: dict[str, Any] | str, watch: ProcessWatch) -> wire.Outcome:
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


def _suite_verdict(watch: ProcessWatch, failure_exit: int, out: bytes) -> wire.Outcome:
    """A test suite's run (or an appended assert test's): exit 0 is AC, the "tests failed"
    status WA (with the report's last line; a negative status is a signal's number), anything
    else (a crash, another signal, a framework error) RE."""
    code = procfs.exit_code(watch.status)
    signal_number = procfs.signal_of(watch.status)
    if watch.status == 0:
        return {"verdict": "AC", "message": ""}
    if code == failure_exit or (failure_exit < 0 and signal_number == -failure_exit):
        lines = _display(out[-400:]).strip().splitlines()
        return {"verdict": "WA", "message": "tests failed" + (f": {lines[-1]}" if lines else "")}
    how = f"signal {signal_number}" if signal_number else f"exit code {code}"
    return {"verdict": "RE", "message": f"runtime error ({how})"}


def _harness_outcome(data: bytes, token: str) -> dict[str, Any] | None:
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


def _display(data: bytes) -> str:
    return data.decode("utf-8", "replace").replace("\x00", "\ufffd")
