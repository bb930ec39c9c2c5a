"""The judge's processes in a sandbox, and the job's: spawning and watching a program, undoing
what a test did to the judge, killing what a job left and resetting the sandbox between jobs.

The agent (PID 1) owns two long-lived helpers (the C spawner and, for Python, the zygote) and
the warm javac; every other process in the container is a job's. A program can kill a helper
(same uid) or change its limits or scheduling; :meth:`JudgeProcesses.repair_after_test`
replaces it, and a change to the agent's own that cannot be undone taints the sandbox (the host
then destroys it). Standard library only: this module runs inside the sandbox.
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

from judge_service.sandbox.agent import ipc, javac_server, procfs, wire, workdir
from judge_service.sandbox.agent import watch as watching
from judge_service.sandbox.agent.helpers import Helper, HelperError, spawner_ping, spawner_request
from judge_service.sandbox.agent.watch import KILL_GRACE_S, SWARM_PROCESSES, ProcessWatch

SPAWNER = "/opt/judge/spawner"
IPC_DIRS = ("/dev/shm", "/dev/mqueue")
SCRATCH_DIRS = ("/work", "/tmp", *IPC_DIRS)
HELPER_LOST = "the program killed the judge's helper process"


class JudgeProcesses:
    def __init__(self, init: wire.InitFrame, libc: Any) -> None:
        self.libc = libc
        self.spawner = Helper("spawner", [SPAWNER])
        self.zygote: Helper | None = None
        self.limits = procfs.limits_of(0)
        self.scheduling = procfs.scheduling_of(0)
        self.tainted = ""
        self.javac = javac_server.JavacServer()
        # How many times a job's processes may have run (spawns, stragglers found), and that
        # count when the judge's processes were last checked and the IPC objects last removed:
        # the reset repeats neither check when no process of the job has run since.
        self.runs = 0
        self.checked_at = self.ipc_cleared_at = -1
        # The sandbox's OOM kills when last read, and what its memory cgroup held when the
        # running job began (both read by begin_job; the first also by note_oom_kills).
        self.oom_kills_seen: int | None = None
        self.held_at_start: int | None = None
        # Set when processes outlived a kill: they ran on after any check; the reset does all.
        self.survivors = False
        if init.get("zygote_bundle"):
            self.zygote = Helper(
                "python zygote", init["zygote_argv"], init["zygote_bundle"].encode()
            )
        for helper in self.helpers():
            helper.start()

    def helpers(self) -> list[Helper]:
        return [self.spawner] + ([self.zygote] if self.zygote else [])

    def judge_pids(self) -> set[int]:
        """The agent, its helpers and the warm compiler: never a job's processes."""
        pids = {os.getpid(), *(helper.pid for helper in self.helpers())}
        return pids | ({self.javac.pid} if self.javac.running() else set())

    def job_pids(self) -> list[int]:
        keep = self.judge_pids()
        return [pid for pid in procfs.all_pids() if pid not in keep]

    def repair_after_test(self) -> str:
        """Undo what a test could do to the judge's own processes; '' when nothing was wrong.

        A stopped or dead helper is replaced. A helper whose limits were changed (prlimit(2)
        checks only uids) is replaced; the agent's own changed limits cannot all be restored
        (a lowered hard limit stays), so that taints the sandbox: the job stops and the reset
        fails, which destroys it.
        """
        for helper in self.helpers():
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

    def kill_stragglers(self) -> None:
        """Kill every process but this agent and its helpers; reap what is left.

        A swarm (a fork bomb) is killed with one kill(-1): killing it a pid at a time races
        its forks while it starves this process of CPU, so a busy host could see the sandbox
        hang. kill(-1) from PID 1 reaches every other process, the helpers too; they are
        started again when next needed.
        """
        for _ in range(100):
            keep = self.judge_pids()
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
            for helper in self.helpers():
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
        self.kill_stragglers()
        # Nothing but the judge's own processes has run since the last test's checks and IPC
        # clean-up (stragglers found would have counted, survivors of a kill end this): what
        # they found still holds, and the last test's are not done twice.
        settled = not self.survivors
        self.survivors = False
        checked = settled and self.checked_at == self.runs
        problems = (
            [self.tainted] if self.tainted or (not checked and self.repair_after_test()) else []
        )
        ipc_cleared = settled and self.ipc_cleared_at == self.runs
        for directory in SCRATCH_DIRS:
            if ipc_cleared and directory in IPC_DIRS:
                continue
            if not self._wipe(directory):
                problems.append(f"{directory} not empty after wipe")
        if not ipc_cleared:
            ipc.remove_sysv_objects(self.libc)
        for helper in self.helpers():
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
            keep = self.judge_pids()
            leftover = [pid for pid in procfs.all_pids() if pid not in keep]
            if leftover:
                problems.append(f"processes survived the reset: {leftover}")
        return "; ".join(problems)

    def clear_ipc(self) -> None:
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
            self.spawn_and_watch(
                ["/bin/rm", "-rf", "--", *names],
                {"PATH": "/usr/bin:/bin"},
                [workdir.memfd("empty"), output, output],
                limits,
            )
        finally:
            os.close(output)
        self.kill_stragglers()

    def spawn_and_watch(
        self,
        argv: list[str],
        env: dict[str, str],
        fds: list[int],
        limits: wire.Limits,
        cap_fds: list[int] | None = None,
        close_after_spawn: list[int] | None = None,
        runner: bool = False,
    ) -> ProcessWatch:
        request = spawner_request(argv, env, rlimits(limits))
        return self.run_via(
            self.spawner, request, fds, limits, cap_fds or [], close_after_spawn or [], runner
        )

    def _spawn(self, helper: Helper, request: bytes, fds: list[int]) -> int:
        try:
            return helper.spawn(request, fds)
        except HelperError:
            if self.job_pids():
                raise
            # No program ran: the helper died on its own while the sandbox was idle (the OOM
            # killer takes helpers, born at the programs' score, when no program is left to take
            # at the cap on every sandbox). A failed spawn stopped it: this starts a fresh one.
            return helper.spawn(request, fds)

    def run_via(
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
        beyond_rss = ipc.MemoryBeyondRss(cap_fds)
        judge_pids = sorted(pid for pid in self.judge_pids() if pid)
        clock = procfs.JobCpuClock(judge_pids)
        started = time.monotonic()
        try:
            pid = self._spawn(helper, request, fds)
        except HelperError:
            for fd in close_after_spawn or []:
                os.close(fd)
            if not self.job_pids():
                raise
            # The program ran and killed the helper before its "spawned" reply left (a race
            # the program can win); without a program the helper failed on its own.
            watch = ProcessWatch()
            watch.lost = HELPER_LOST
            return watch
        for fd in close_after_spawn or []:
            os.close(fd)
        watching.below_the_agent(pid)
        assert helper.channel is not None
        watch = watching.watch(
            pid,
            helper.channel.fileno(),
            started,
            limits,
            cap_fds,
            beyond_rss,
            clock,
            self.job_pids,
            runner,
        )
        report = helper.receive(timeout=KILL_GRACE_S * 2)
        if report is None or report.get("op") != "exit":
            procfs.kill(pid)
            helper.stop()
            watch.lost = HELPER_LOST
            return watch
        watch.status = report["status"]
        if procfs.signal_of(watch.status) == signal.SIGKILL and not watch.killed_for:
            self.note_oom_kills(watch, limits)
        if report.get("output"):
            # The zygote's relay took the program's answers past the limit: what the program
            # did after (ignoring SIGXFSZ, it exited, slept or spun) is not what stopped it.
            watch.killed_for = "output"
        watch.cpu_ms = max(report["cpu_ms"] + watch.orphan_cpu_ms, watch.job_cpu_ms)
        if not runner:  # a runner's peak is its own or its child's: not the program's alone
            watch.peak_kb = max(watch.peak_kb, report["maxrss_kb"])
        return watch

    def begin_job(self) -> None:
        """The baselines of a job's OOM stops: an idle sandbox's helper the OOM killer took
        before the job is not the job's."""
        self.held_at_start = procfs.cgroup_memory_held()
        self.oom_kills_seen = procfs.cgroup_oom_kills()

    def note_oom_kills(self, watch: ProcessWatch, limits: wire.Limits) -> None:
        """Whether the OOM killer took a process of the sandbox since the counter was last
        read (the program, or a child whose loss it may have turned into a wrong answer), and
        whether for the other sandboxes' memory. Read for a run that ended by SIGKILL, and for
        one that failed otherwise, when its verdict is known (one file read an accepted test
        saves; a kill in an accepted test is then counted for the next failed one, which is
        judged again)."""
        oom_kills = procfs.cgroup_oom_kills()
        seen, self.oom_kills_seen = self.oom_kills_seen, oom_kills
        watch.oom_killed = seen is not None and oom_kills is not None and oom_kills > seen
        if watch.oom_killed:
            # Its due: its memory limit and its output files (memory files, charged too).
            entitled = (limits["memory_kb"] << 10) + limits["output_bytes"]
            watch.stopped_for_others = procfs.stopped_for_others(self.held_at_start, entitled)


def rlimits(limits: wire.Limits) -> dict[str, int]:
    """Kernel limits behind the agent's own enforcement (CPU in whole seconds, as a backstop)."""
    return {
        "cpu_s": int(limits["cpu_ms"] / 1000) + 1,
        "fsize": limits.get("fsize_bytes", limits["output_bytes"] + 1),
        "stack": limits.get("stack_bytes", -1),
        "nofile": 256,
    }
