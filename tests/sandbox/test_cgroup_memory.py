"""Every sandbox's memory together: one parent cgroup, capped by the kernel, sized from the host.

Many programs, each within its own limit, together past what the host has: the kernel holds the
sandboxes to their common cap and stops the largest, whatever its answer. Its test is marked
``limit: "host_memory"``, never cached, and judged again alone on the host, where no one else's
memory can stop it: that verdict stands (a correct program accepted, a wrong one wrong, never SE,
which a policy would aim for to turn its zero into no reward). The first run's verdict is told by
the sandbox's memory peak: below its own cap and within its due, SE; else its own.
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge_service.sandbox import _cgroup_memory, _jobs, _rejudge
from judge_service.sandbox.agent import procfs, verdicts, wire
from judge_service.sandbox.agent.watch import ProcessWatch
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.models import Job, JobResult, TestResult, Verdict
from judge_service.sandbox.pool import SandboxPool

V1_MEMORY = Path("/sys/fs/cgroup/memory")


# ---- the parent cgroup, prepared on a cgroup tree laid out in a temporary directory ------------
def _v1_tree(root: Path, name: str, memsw: bool = True) -> Path:
    """What the kernel would make on mkdir: the limit files (here, made ahead)."""
    directory = root / "memory" / name
    directory.mkdir(parents=True)
    (directory / "memory.limit_in_bytes").write_text("9223372036854771712")
    if memsw:
        (directory / "memory.memsw.limit_in_bytes").write_text("9223372036854771712")
    return directory


def test_the_default_cap_is_most_of_the_hosts_memory() -> None:
    host = _cgroup_memory.host_memory_mb()
    assert host > 256
    assert _cgroup_memory.default_total_mb() == int(host * _cgroup_memory.DEFAULT_SHARE)


def test_cgroupfs_v1_writes_the_cap_on_memory_and_swap(tmp_path: Path) -> None:
    directory = _v1_tree(tmp_path, "judge_x")
    (directory / "memory.usage_in_bytes").write_text(str(300 << 20))
    cgroup = _cgroup_memory.prepare("judge_x", 1024, str(tmp_path), "cgroupfs", "1")
    assert cgroup.parent == "/judge_x" and cgroup.cap_mb == 1024 and not cgroup.reason
    assert (directory / "memory.limit_in_bytes").read_text() == str(1024 << 20)
    assert (directory / "memory.memsw.limit_in_bytes").read_text() == str(1024 << 20)
    assert cgroup.status() == {"cgroup_parent": "/judge_x", "cap_mb": 1024, "used_mb": 300}


def test_cgroupfs_v2_enables_the_controller_and_writes_memory_max(tmp_path: Path) -> None:
    (tmp_path / "cgroup.subtree_control").write_text("cpu pids")
    (tmp_path / "judge_x").mkdir()
    (tmp_path / "judge_x" / "memory.max").write_text("max")
    cgroup = _cgroup_memory.prepare("judge_x", 2048, str(tmp_path), "cgroupfs", "2")
    assert cgroup.cap_mb == 2048
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+memory"
    assert (tmp_path / "judge_x" / "memory.max").read_text() == str(2048 << 20)


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        ("not a cgroup", "is not a memory cgroup"),  # a plain directory: nothing to write
        ("refused", "Is a directory"),  # a write the kernel refuses (EBUSY, EROFS, EACCES)
    ],
)
def test_a_cap_that_cannot_be_written_is_reported_not_assumed(
    tmp_path: Path, layout: str, reason: str
) -> None:
    if layout == "refused":
        directory = _v1_tree(tmp_path, "judge_x", memsw=False)
        (directory / "memory.limit_in_bytes").unlink()
        (directory / "memory.limit_in_bytes").mkdir()  # exists, and refuses a write
    else:
        (tmp_path / "memory").mkdir()
    cgroup = _cgroup_memory.prepare("judge_x", 1024, str(tmp_path), "cgroupfs", "1")
    assert cgroup.cap_mb is None and cgroup.parent == "/judge_x"
    assert reason in cgroup.reason and "host_cgroup_dir" in cgroup.reason
    assert "used_mb" not in cgroup.status() and cgroup.status()["reason"] == cgroup.reason


def test_the_systemd_driver_gets_a_slice_and_how_to_cap_it(tmp_path: Path) -> None:
    cgroup = _cgroup_memory.prepare("judge_x", 4096, str(tmp_path), "systemd", "2")
    assert cgroup.parent == "judge_x.slice" and cgroup.cap_mb is None
    assert "systemctl set-property judge_x.slice MemoryMax=4096M" in cgroup.reason
    assert not any(tmp_path.iterdir())  # systemd's to make, not ours


def test_no_parent_means_no_common_cap(tmp_path: Path) -> None:
    cgroup = _cgroup_memory.prepare("", 4096, str(tmp_path), "cgroupfs", "1")
    assert (
        cgroup.parent == "" and cgroup.cap_mb is None and "sandbox_cgroup_parent" in cgroup.reason
    )


def test_the_parent_name_cannot_leave_the_cgroup_tree() -> None:
    for name in ("../escape", "a/b", "judge sandboxes"):
        with pytest.raises(ValueError):
            SandboxConfig(sandbox_cgroup_parent=name)


# ---- the verdict: the host's memory, never the program's -------------------------------------
def _decide(watch: ProcessWatch, memory_kb: int = 65536) -> wire.Outcome:
    job = {
        "mode": "stdin",
        "limits": {"memory_kb": memory_kb, "cpu_ms": 1000, "wall_ms": 3000, "output_bytes": 1000},
        "checker": {"kind": "tokens"},
    }
    return verdicts.decide(
        job,  # type: ignore[arg-type]
        {},  # type: ignore[arg-type]
        watch,
        b"41\n",
        b"",
        b"",
        "",
        lambda: {"verdict": "WA", "message": "wrong answer"},
    )


def _killed(
    peak_kb: int, oom_killed: bool, killed_for: str = "", for_others: bool = False
) -> ProcessWatch:
    watch = ProcessWatch()
    watch.status = 9  # killed by SIGKILL
    watch.peak_kb = peak_kb
    watch.oom_killed = oom_killed
    watch.stopped_for_others = for_others
    watch.killed_for = killed_for
    return watch


def test_a_program_the_oom_killer_stopped_for_its_own_sandbox_keeps_its_own_verdict() -> None:
    # At its own sandbox's cap, past its due, or where that cannot be told: never SE (no
    # reward), which a program could aim for; its own verdict, marked to be judged again.
    for peak_kb, verdict in ((1000, "RE"), (40000, "MLE"), (60000, "MLE")):
        outcome = _decide(_killed(peak_kb, oom_killed=True))
        assert outcome["verdict"] == verdict and outcome.get("limit") == "host_memory", outcome


def test_a_program_the_oom_killer_stopped_for_the_other_sandboxes_is_a_system_error() -> None:
    for peak_kb in (1000, 40000, 60000):
        outcome = _decide(_killed(peak_kb, True, for_others=True))
        assert outcome["verdict"] == "SE" and outcome.get("limit") == "host_memory", outcome
    # Past its own limit as the agent counts it, it is MLE whoever ran out.
    assert _decide(_killed(70000, True, for_others=True))["verdict"] == "MLE"


def _cgroup_files(root: Path, held: int, peak: int, cap: int | str) -> None:
    for name, value in (("usage", held), ("peak", peak), ("cap", cap)):
        (root / name).write_text(f"{value}\n")


@pytest.mark.parametrize(
    ("peak_mb", "cap", "for_others"),
    [
        (300, 1024 << 20, True),  # 250 MB above the start, within a 256 MB limit and output
        (1024, 1024 << 20, False),  # its own cap
        (1020, 1024 << 20, False),  # within the margin of its own cap
        (700, 1024 << 20, False),  # 650 MB above the start: past its due, the others' or not
        (300, "max", True),  # no cap of its own
    ],
)
def test_who_the_oom_killer_stopped_a_run_for_is_told_by_the_sandboxs_peak(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, peak_mb: int, cap: int | str, for_others: bool
) -> None:
    files = (str(tmp_path / "usage"), str(tmp_path / "peak"), str(tmp_path / "cap"))
    monkeypatch.setattr(procfs, "CGROUP_MEMORY", (files,))
    _cgroup_files(tmp_path, held=50 << 20, peak=peak_mb << 20, cap=cap)
    held = procfs.cgroup_memory_held()
    assert held == 50 << 20
    entitled = (256 << 20) + (1 << 20)
    assert procfs.stopped_for_others(held, entitled) is for_others
    assert procfs.stopped_for_others(None, entitled) is False  # nothing known at the start


def test_without_a_peak_to_read_a_stop_is_the_programs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tuple(str(tmp_path / name) for name in ("usage", "peak", "cap"))
    monkeypatch.setattr(procfs, "CGROUP_MEMORY", (missing,))
    assert procfs.cgroup_memory_held() is None
    assert procfs.stopped_for_others(1 << 20, 1 << 30) is False


def test_a_program_past_its_own_limit_is_mle_whoever_else_ran_out() -> None:
    assert _decide(_killed(70000, oom_killed=True))["verdict"] == "MLE"
    assert _decide(_killed(30000, True, killed_for="memory"))["verdict"] == "MLE"
    # Killed with no OOM kill counted (the sandbox's cap, before the counters): as before.
    assert _decide(_killed(40000, oom_killed=False)) == {
        "verdict": "MLE",
        "message": "killed by the memory cap",
    }
    assert _decide(_killed(1000, oom_killed=False))["verdict"] == "RE"


def test_a_test_the_host_stopped_is_judged_again_and_never_cached() -> None:
    stopped = TestResult(
        verdict=Verdict.RE, time_ms=5, wall_ms=50, memory_kb=1000, limit="host_memory"
    )
    fine = TestResult(verdict=Verdict.AC, time_ms=5, wall_ms=50, memory_kb=1000)
    job = Job(language="python", code="print(1)\n", tests=[{"input": "", "output": "1"}] * 2)
    result = JobResult(verdict=Verdict.RE, passed=1, total=2, tests=[fine, stopped])
    assert result.load_dependent
    plan = _rejudge.plan(job, result, wall_ms=6000)
    assert plan is not None and plan.indices == (1,)
    assert plan.job.limits.wall_ms == job.limits.wall_ms  # no more wall time than before
    merged = _rejudge.merge(
        result, plan, JobResult(verdict=Verdict.AC, passed=1, total=1, tests=[fine])
    )
    assert merged.verdict is Verdict.AC and not merged.load_dependent


def test_a_compile_the_host_stopped_is_a_system_error_never_cached() -> None:
    job = Job(language="cpp", code="int main(){}", tests=[{"input": "", "output": ""}])
    compile_report: wire.CompileReport = {
        "ok": False,
        "output": "g++: fatal error: Killed signal terminated program cc1plus",
        "cpu_ms": 900.0,
        "limit": "host_memory",
    }
    reply: wire.ResultFrame = {
        "op": "result",
        "compile": compile_report,
        "tests": [],
        "reset_error": "",
    }
    # Stopped at its own cap (or past its due): its own failure, a CE, judged again.
    own = _jobs.job_result(job, reply, b"", None)
    assert own.verdict is Verdict.CE and own.load_dependent
    # Stopped for the other sandboxes' memory: the judge's failure.
    reply["compile"] = {**compile_report, "host_stopped": True}
    stopped = _jobs.job_result(job, reply, b"", None)
    assert stopped.verdict is Verdict.SE and stopped.system_error, stopped
    assert stopped.load_dependent and _jobs.compiled_program(reply, b"") is None
    plan = _rejudge.plan(job, stopped, wall_ms=6000)
    assert plan is not None and plan.whole


def test_only_the_tests_memory_must_fit_the_common_cap(tmp_path: Path) -> None:
    """A compile limit is a backstop a compiler seldom nears: a small host's cap refuses the
    jobs whose tests could not fit, not every compiled job."""
    pool = SandboxPool(SandboxConfig(cpu_slots_dir=str(tmp_path)), client=object())  # type: ignore[arg-type]
    pool.sandboxes_cgroup = _cgroup_memory.SandboxesCgroup("/judge_sandboxes", 1600)
    compiled = Job(
        language="cpp",
        code="int main(){}",
        tests=[{"input": "", "output": ""}],
        limits={"memory_limit_mb": 256, "compile_memory_limit_mb": 1536},
    )
    pool._check_fits_the_common_cap(compiled)  # 1536 + 192 > 1600, but only the compile's
    too_large = compiled.model_copy(
        update={"limits": compiled.limits.model_copy(update={"memory_limit_mb": 1500})}
    )
    with pytest.raises(InvalidJobError, match="1600 MB every sandbox"):
        pool._check_fits_the_common_cap(too_large)


# ---- the real thing: Docker, the kernel, three programs past the common cap ------------------
# Every job's memory and its sandbox's share fit under the 600 MB cap (else it is refused).
LIMITS = {"memory_limit_mb": 400, "compile_memory_limit_mb": 400, "time_limit_ms": 4000}
LIMITS_256 = {**LIMITS, "memory_limit_mb": 256}
HOLD = """
import sys, time
held = b"x" * ({mb} << 20)
time.sleep({sleep_s})
print(len(held) >> 20)
"""


def _hold(mb: int, sleep_s: float = 0) -> Job:
    """A correct program that holds ``mb`` MB for ``sleep_s`` seconds."""
    code = HOLD.format(mb=mb, sleep_s=sleep_s)
    tests = [{"input": "", "output": str(mb)}]
    return Job(language="python", code=code, tests=tests, limits=LIMITS)


@pytest.fixture
def capped_pool(request: pytest.FixtureRequest) -> Iterator[tuple[SandboxPool, Path]]:
    """A pool whose sandboxes (1 GB each) are capped at 600 MB together; three per language,
    or as many as the test's ``sandboxes`` parameter says."""
    if not V1_MEMORY.is_dir():
        pytest.skip("the host has no cgroup v1 memory controller at /sys/fs/cgroup/memory")
    parent = f"judge_test_{uuid.uuid4().hex[:8]}"
    settings = SandboxConfig(
        sandboxes_per_language=getattr(request, "param", 3),
        sandbox_memory_mb=1024,
        sandbox_memory_total_mb=600,
        sandbox_cgroup_parent=parent,
    )
    try:
        with SandboxPool(settings) as pool:
            yield pool, V1_MEMORY / parent
    finally:
        for controller in Path("/sys/fs/cgroup").iterdir():
            try:
                (controller / parent).rmdir()
            except OSError:
                pass


@pytest.mark.integration
def test_programs_past_the_common_cap_are_judged_again_never_blamed(
    capped_pool: tuple[SandboxPool, Path],
) -> None:
    pool, memory_dir = capped_pool
    hold = _hold(220, sleep_s=2.5)
    hello = Job(
        language="python", code="print(1)\n", tests=[{"input": "", "output": "1"}], limits=LIMITS
    )
    warmed = pool.judge_many([hello] * 3, workers=3)
    assert [r.verdict for r in warmed] == [Verdict.AC] * 3
    status = pool.sandboxes_cgroup.status() if pool.sandboxes_cgroup else {}
    assert status.get("cap_mb") == 600 and status.get("cgroup_parent") == f"/{memory_dir.name}", (
        status
    )
    assert (memory_dir / "memory.limit_in_bytes").read_text().strip() == str(600 << 20)
    # Each sandbox is a child of the parent, as the kernel sees it.
    assert len([child for child in memory_dir.iterdir() if child.is_dir()]) == 3
    results: list[JobResult] = []
    lock = threading.Lock()

    def one() -> None:
        result = pool.judge(hold)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=one) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Three programs of 220 MB (each within its 400 MB limit and its sandbox's 1 GB cap) and
    # three agents do not fit in 600 MB: the kernel stopped at least one, which was judged again.
    assert pool.stats.host_memory_stops >= 1
    # Each correct: the one stopped was judged again alone on the host, and accepted.
    assert [result.verdict for result in results] == [Verdict.AC] * 3, results
    # Every agent survived: the sandboxes judge the next job.
    smaller = _hold(100)
    again = pool.judge_many([smaller] * 3, workers=3)
    assert [result.verdict for result in again] == [Verdict.AC] * 3, again


@pytest.mark.integration
def test_a_program_past_its_own_limit_under_the_common_cap_is_still_mle(
    capped_pool: tuple[SandboxPool, Path],
) -> None:
    """Beside two programs holding memory, one that grows past its own limit may meet the
    common cap first (and be stopped there, within its limit): judged again alone on the host,
    it meets its own. Never a verdict it did not earn, nor one the others earned."""
    pool, _ = capped_pool
    holder = _hold(200, sleep_s=2.5)
    greedy = Job(
        language="python",
        code="import time\ntime.sleep(0.5)\n" + HOLD.format(mb=600, sleep_s=1),
        tests=[{"input": "", "output": "600"}],
        limits=LIMITS,
    )
    results = pool.judge_many([holder, holder, greedy], workers=3)
    assert results[2].verdict is Verdict.MLE, results[2]
    assert [result.verdict for result in results[:2]] == [Verdict.AC] * 2, results


SWARM = r"""
import os, signal, time
print(41, flush=True)  # wrong: the answer is 1
ready_r, ready_w = os.pipe()
for _ in range(18):  # more processes than the agent sums exactly
    if os.fork() == 0:
        os.read(ready_r, 1)
        held = b"x" * (70 << 20)
        time.sleep(30)
        os._exit(0)
os.write(ready_w, b"g" * 18)
while True:
    pid, status = os.wait()
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        os.kill(os.getpid(), signal.SIGKILL)  # after the OOM killer took a child
"""


@pytest.mark.integration
@pytest.mark.parametrize("variant", ["swarm", "swarm dying at once", "lone child"])
def test_a_wrong_program_that_meets_its_own_cap_cannot_make_itself_a_system_error(
    capped_pool: tuple[SandboxPool, Path], variant: str
) -> None:
    """The review's attack: children past the sandbox's 1 GB cap, the OOM killer takes one, and
    the program kills itself, as if the host had stopped it: SE would be no reward for a wrong
    answer (the code before made it SE on every judging)."""
    pool, _ = capped_pool
    code = SWARM
    if variant == "swarm dying at once":
        code = code.replace("time.sleep(30)", "time.sleep(0)")
    elif variant == "lone child":
        code = code.replace("range(18)", "range(1)").replace("70 << 20", "1000 << 20")
        code = code.replace('b"g" * 18', 'b"g"')
    job = Job(language="python", code=code, tests=[{"input": "", "output": "1"}], limits=LIMITS_256)
    for _ in range(2):
        result = pool.judge(job)
        assert result.verdict in (Verdict.WA, Verdict.MLE, Verdict.RE), result
        assert result.verdict is not Verdict.SE and result.system_error is None, result


def _sandbox_processes(pool: SandboxPool, memory_dir: Path) -> list[tuple[int, str, int]]:
    """(pid, command name, oom_score_adj) of the one idle sandbox's processes."""
    (sandbox,) = [sandbox for language in pool._pools.values() for sandbox in language.idle]
    found = []
    for pid in (memory_dir / sandbox.id / "cgroup.procs").read_text().split():
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        adj = int(Path(f"/proc/{pid}/oom_score_adj").read_text())
        found.append((int(pid), comm, adj))
    return found


@pytest.mark.integration
@pytest.mark.parametrize("language", ["python", "c"])
def test_an_idle_sandbox_whose_helpers_the_oom_killer_took_judges_the_next_job(
    capped_pool: tuple[SandboxPool, Path], language: str
) -> None:
    """At the cap on every sandbox, with no program left to take, the OOM killer takes the
    helpers of idle sandboxes (born at the programs' score): the next job there, anyone's, was SE
    ("the python zygote did not answer a spawn request"; found by the review)."""
    pool, memory_dir = capped_pool
    code = (
        "print(1)\n" if language == "python" else '#include <stdio.h>\nint main(void){puts("1");}\n'
    )
    job = Job(language=language, code=code, tests=[{"input": "", "output": "1"}], limits=LIMITS)
    assert pool.judge(job).verdict is Verdict.AC
    # Only one of this language: the next job goes to the same sandbox.
    others = [pool._pools[other] for other in pool._pools if other != language]
    assert all(not other.idle for other in others)
    helpers = [
        (pid, comm) for pid, comm, adj in _sandbox_processes(pool, memory_dir) if adj == 1000
    ]
    assert helpers, _sandbox_processes(pool, memory_dir)
    for pid, _ in helpers:
        os.kill(pid, signal.SIGKILL)
    for _ in range(2):
        result = pool.judge(job)
        assert result.verdict is Verdict.AC, (helpers, result)
    assert pool.stats.sandboxes_destroyed == 0


@pytest.mark.integration
def test_a_job_that_cannot_fit_the_common_cap_is_refused(
    capped_pool: tuple[SandboxPool, Path],
) -> None:
    """Alone on the host it would still be stopped: a limit too large, said so."""
    pool, _ = capped_pool
    hello = Job(
        language="python", code="print(1)\n", tests=[{"input": "", "output": "1"}], limits=LIMITS
    )
    assert pool.judge(hello).verdict is Verdict.AC
    too_large = hello.model_copy(
        update={"limits": hello.limits.model_copy(update={"memory_limit_mb": 800})}
    )
    with pytest.raises(InvalidJobError, match="every sandbox on this host may take together"):
        pool.judge(too_large)


# Programs beside two others that hold 200 MB each for 2.5 s: three of them do not fit in the
# 600 MB cap, and the kernel stops the largest (every program runs at oom_score_adj 1000).
BESIDE_HOLDERS = {
    "python, the largest": (HOLD.format(mb=250, sleep_s=1), "250"),
    "c, the largest": (
        """#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
    size_t size = 250u << 20;
    volatile char *held = malloc(size);
    long sum = 0;
    for (size_t i = 0; i < size; i += 4096) held[i] = 1;
    sleep(1);
    for (size_t i = 0; i < size; i += 4096) sum += held[i];
    printf("%ld\\n", sum / 256);
}
""",
        "250",
    ),
    "python, with children": (
        """
import os, time
children = []
for _ in range(2):  # 360 MB together, within its limit; each smaller than a holder
    pid = os.fork()
    if pid == 0:
        held = b"x" * (180 << 20)
        time.sleep(1)
        os._exit(0 if held else 1)
    children.append(pid)
print(250 if all(os.waitpid(pid, 0)[1] == 0 for pid in children) else 0)
""",
        "250",
    ),
}


def _beside_holders(pool: SandboxPool, code: str, expected: str) -> list[JobResult]:
    """The holders' results, then the program's."""
    holder = _hold(200, sleep_s=2.5)
    language = "c" if "#include" in code else "python"
    program = Job(
        language=language, code=code, tests=[{"input": "", "output": expected}], limits=LIMITS
    )
    late = program.model_copy(update={"code": "import time\ntime.sleep(0.3)\n" + code})
    return pool.judge_many([holder, holder, late if language == "python" else program], 3)


@pytest.mark.integration
@pytest.mark.parametrize("program", sorted(BESIDE_HOLDERS))
def test_a_correct_program_the_others_memory_stopped_is_accepted_judged_alone(
    capped_pool: tuple[SandboxPool, Path], program: str
) -> None:
    """Before: judged again at once, beside the same holders, and stopped again: its own RE or
    MLE (a zero for a correct program), or a wrong answer for a lost child."""
    pool, _ = capped_pool
    results = _beside_holders(pool, *BESIDE_HOLDERS[program])
    assert pool.stats.host_memory_stops >= 1, results
    assert [result.verdict for result in results] == [Verdict.AC] * 3, results


@pytest.mark.integration
@pytest.mark.parametrize("program", sorted(BESIDE_HOLDERS))
def test_a_wrong_program_that_makes_itself_the_oom_killers_choice_is_still_wrong(
    capped_pool: tuple[SandboxPool, Path], program: str
) -> None:
    """The review's attack: a wrong answer behind memory held until the others' memory and its
    own meet the common cap, so that the kernel stops it (the largest) within its limit: SE (no
    reward) with the peak rule alone. Judged again alone on the host, it is wrong, and the
    correct programs beside it are accepted."""
    pool, _ = capped_pool
    code, _ = BESIDE_HOLDERS[program]
    results = _beside_holders(pool, code, expected="1")  # its 250 is wrong here
    assert pool.stats.host_memory_stops >= 1, results
    assert [result.verdict for result in results[:2]] == [Verdict.AC] * 2, results
    assert results[2].verdict is Verdict.WA and results[2].system_error is None, results[2]


@pytest.mark.integration
def test_judged_alone_the_idle_sandboxes_cached_tests_make_room(
    capped_pool: tuple[SandboxPool, Path],
) -> None:
    """The second review's attack: every idle sandbox holds a problem's 60 MB input in its test
    cache; a wrong program holding 370 MB of its 400 MB meets the common cap with no other job
    running, on the first run and (before: idle sandboxes were closed only above 90 % of the
    cap) alone too: SE. Judged alone, idle sandboxes close until it fits: wrong."""
    pool, _ = capped_pool
    big_input = "7\n" * (30 << 20)
    warm = Job(
        language="python",
        code="import sys\nprint(len(sys.stdin.read()) > 0)\n",
        tests=[{"input": big_input, "output": "True"}],
        limits=LIMITS,
    )
    for expected, verdict in (("1", Verdict.WA), ("370", Verdict.AC)):
        assert [r.verdict for r in pool.judge_many([warm] * 3, workers=3)] == [Verdict.AC] * 3
        job = Job(
            language="python",
            code="import sys\nsys.stdin.read(1)\n" + HOLD.format(mb=370, sleep_s=0),
            tests=[{"input": big_input, "output": expected}],
            limits=LIMITS,
        )
        stops = pool.stats.host_memory_stops
        result = pool.judge(job)
        assert pool.stats.host_memory_stops > stops, "the common cap was not met"
        assert result.verdict is verdict and result.system_error is None, result


@pytest.mark.integration
@pytest.mark.parametrize("capped_pool", [1], indirect=True)
def test_every_job_starts_with_its_sandboxs_peak_reset(
    capped_pool: tuple[SandboxPool, Path],
) -> None:
    """Its stops are told apart by the peak since the job began: a job before it that held
    much (or met its own cap) must not make the next one's stop look like its own doing."""
    pool, memory_dir = capped_pool
    job = _hold(300)
    assert pool.judge(job).verdict is Verdict.AC
    (sandbox,) = pool._pools["python"].idle  # one per language: the job's
    for name in ("memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes"):
        peak = int((memory_dir / sandbox.id / name).read_text())
        assert peak < 200 << 20, f"{name} was not reset after the job: {peak >> 20} MB"
