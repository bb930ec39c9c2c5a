"""SandboxPool: warm sandboxes per language, a compile cache, and the judge() entry point.

Like go-judge's pool: a sandbox goes back to the pool only if its agent reset it cleanly after
the job (every process killed, scratch space wiped, IPC objects removed); otherwise it is
destroyed and a fresh one is started on demand.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import cast

import docker
import docker.errors

from judge_service.sandbox import _appended, _cgroup_memory, _jobs, _rejudge
from judge_service.sandbox._cpu_slots import machine_slots
from judge_service.sandbox._memory_budget import MemoryBudget
from judge_service.sandbox._memory_gate import MemoryGate
from judge_service.sandbox._test_keys import Content
from judge_service.sandbox.agent import testdata, wire
from judge_service.sandbox.cache import CompileCache, compile_key
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import (
    InvalidJobError,
    SandboxCrashed,
    SandboxError,
    SandboxUnavailable,
)
from judge_service.sandbox.images import build_command, image_tag
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult
from judge_service.sandbox.sandbox import Sandbox, remove_stale_sandboxes
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB, validate_job

_log = logging.getLogger(__name__)


@dataclass
class PoolStats:
    """Counters a metrics endpoint can read without locking."""

    jobs: int = 0
    tests: int = 0
    sandboxes_started: int = 0
    sandboxes_destroyed: int = 0
    # Tests and compiles the kernel's OOM killer stopped within their memory limits.
    host_memory_stops: int = 0
    job_verdicts: dict[str, int] = field(default_factory=dict)
    test_verdicts: dict[str, int] = field(default_factory=dict)


class _LanguagePool:
    def __init__(self, language: str, capacity: int) -> None:
        self.language = language
        self.capacity = capacity
        # Oldest first: a job takes the most recently used, so the reaper meets the coldest.
        self.idle: list[Sandbox] = []
        self.idle_since: dict[Sandbox, float] = {}
        self.count = 0
        self.busy = 0
        self.condition = threading.Condition()


class SandboxPool:
    """Thread-safe. ``judge`` raises only SandboxError (infrastructure) or InvalidJobError."""

    def __init__(
        self,
        settings: SandboxConfig | None = None,
        client: docker.DockerClient | None = None,
        sandbox_factory: Callable[[str], Sandbox] | None = None,
    ) -> None:
        self.settings = settings or SandboxConfig()
        self.cache = CompileCache(self.settings.compile_cache_mb << 20)
        self.stats = PoolStats()
        self._client = client
        self._factory = sandbox_factory or self._start_sandbox
        self._budget = MemoryBudget(self.settings.sandbox_memory_budget_mb)
        self.cpu_slots = machine_slots(self.settings.cpu_slots, self.settings.cpu_slots_dir)
        self._memory_gate = MemoryGate(self.cpu_slots.directory)
        # Set up with the Docker client, before the first sandbox starts.
        self.sandboxes_cgroup: _cgroup_memory.SandboxesCgroup | None = None
        self._docker_lock = threading.Lock()
        self._pools: dict[str, _LanguagePool] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._image_ids: dict[str, str] = {}
        self._stop_reaper = threading.Event()
        self._reaper: threading.Thread | None = None
        # What test data each sandbox's agent holds (sizes only; see agent/testdata.py).
        self._held: weakref.WeakKeyDictionary[Sandbox, testdata.Lru[None]] = (
            weakref.WeakKeyDictionary()
        )
        self._held_lock = threading.Lock()

    # ---- public API -----------------------------------------------------------------------
    def judge(self, job: Job) -> JobResult:
        """Judge one job; the verdict is data, exceptions mean the judge could not judge it.

        What a wall clock cut short while the host starved the program of CPU is judged again
        with more wall time (see ``_rejudge``). An assert job of a language that appends its
        tests is judged as one whole program per test (see ``_appended``)."""
        if _appended.appends_tests(job):
            validate_job(job, self.settings)  # refused whole, before any test runs
            results: list[JobResult] = []
            for index in range(len(job.tests)):
                results.append(self._judge_rejudging(_appended.whole_program(job, index)))
                if _appended.stops_after(job, results[-1]):
                    break
            result = _appended.merge(job, results)
        else:
            result = self._judge_rejudging(job)
        self._count(result)
        return result

    def _judge_rejudging(self, job: Job) -> JobResult:
        # On the monotonic clock; the time the job waited in a queue is already gone from it.
        answer_by = (
            time.monotonic() + (job.answer_by - time.time()) if job.answer_by is not None else None
        )
        result = self._judge_counting_host_memory(job, answer_by)
        wall_ms = job.limits.wall_ms
        judged_alone = False
        for _ in range(self.settings.wall_retries):
            wall_ms = min(2 * wall_ms, 4 * self.settings.max_time_limit_ms)
            rejudge = _rejudge.plan(job, result, wall_ms, host_memory=not judged_alone)
            if rejudge is None:
                break
            run_by = None if answer_by is None else answer_by - _jobs.longest_run_s(rejudge.job)
            if run_by is not None and time.monotonic() > run_by:
                break  # an answer marked load-dependent in time beats a better one too late
            if not _oom_killed(result):
                again = self._judge_counting_host_memory(rejudge.job, answer_by)
            else:
                # Who was stopped cannot be told (see _memory_gate): judged alone, it stands.
                with self._memory_gate.alone(run_by) as alone:
                    if not alone:
                        break  # its provisional verdict stands, marked and never cached
                    self._make_room_alone(rejudge.job)
                    again = self._judge_counting_host_memory(rejudge.job, answer_by)
                judged_alone = True
            result = _rejudge.merge(result, rejudge, again)
        return result

    def _judge_counting_host_memory(self, job: Job, answer_by: float | None) -> JobResult:
        with self._memory_gate.shared():  # not while a job is judged alone on this host
            result = self._judge_once(job, answer_by)
        self.stats.host_memory_stops += _oom_killed(result)
        return result

    def _judge_once(self, job: Job, answer_by: float | None = None) -> JobResult:
        started = time.monotonic()
        spec = validate_job(job, self.settings)
        self._check_fits_the_common_cap(job)
        key = (
            compile_key(
                self._image_id(job.language),
                job.language,
                _jobs.compile_spec(job, spec, self.settings),
                job.code,
                job.files,
            )
            if spec.compiled
            else ""
        )
        cached = self.cache.get(key) if key else None
        if cached is not None and not cached.ok:
            result = _jobs.job_result(job, None, b"", cached)
        else:
            header, blob, data = _jobs.agent_header(job, spec, self.settings, cached)
            # A syntax check may run too: the host waits for it as for a compile.
            compiling = (cached is None and spec.compiled) or bool(spec.syntax_check_argv)
            reply, reply_blob = self._run(job, header, blob, data, compiling, answer_by)
            compiled = _jobs.compiled_program(reply, reply_blob)
            if key and compiled is not None:
                self.cache.put(key, compiled)
            result = _jobs.job_result(job, reply, reply_blob, cached)
        result.duration_ms = (time.monotonic() - started) * 1000
        return result

    def _check_fits_the_common_cap(self, job: Job) -> None:
        """A job whose tests' memory cannot fit in what every sandbox may take together would
        be stopped by the kernel even alone on the host: refused, as a limit too large. (Not
        its compile limit, a generous backstop a compiler seldom nears: a small host would
        refuse every compiled job.)"""
        cap_mb = self.sandboxes_cgroup.cap_mb if self.sandboxes_cgroup is not None else None
        needed_mb = _job_memory_mb(job, compiling=False) + SANDBOX_OVERHEAD_MB
        if cap_mb is not None and needed_mb > cap_mb:
            raise InvalidJobError(
                f"the job's memory ({needed_mb} MB with its sandbox's share) exceeds the "
                f"{cap_mb} MB every sandbox on this host may take together "
                "(sandbox_memory_total_mb)"
            )

    def judge_many(self, jobs: Sequence[Job], workers: int | None = None) -> list[JobResult]:
        """Judge in parallel, in order; a job the infrastructure failed becomes an SE result."""
        if not jobs:
            return []
        width = workers or max(
            1, self.settings.sandboxes_per_language * len({j.language for j in jobs})
        )
        with ThreadPoolExecutor(max_workers=min(width, len(jobs))) as executor:
            return list(executor.map(self._judge_or_system_error, jobs))

    def connect(self) -> None:
        """Reach Docker now rather than at the first job: the sandboxes of this host's dead
        judges removed, the common memory cap set (SandboxUnavailable if Docker is down)."""
        self._docker()

    def warm(self, languages: Iterable[str], count: int | None = None) -> None:
        """Start sandboxes ahead of traffic (``count`` per language, default its capacity, at
        most what the memory budget holds), each with its idle share of the budget."""
        for language in languages:
            pool = self._pool(language)
            fits = self._budget.budget_mb // SANDBOX_OVERHEAD_MB
            target = min(count or pool.capacity, pool.capacity, fits)
            started: list[Sandbox] = []
            try:
                while True:
                    with pool.condition:
                        if pool.count >= target:
                            break
                        pool.count += 1
                    try:
                        self._budget.take(SANDBOX_OVERHEAD_MB, self._evict_idle, self._idle_mb)
                    except BaseException:
                        self._uncount(pool)
                        raise
                    try:
                        started.append(self._create(pool))
                    except BaseException:
                        self._budget.give(SANDBOX_OVERHEAD_MB)
                        raise
            finally:
                for sandbox in started:
                    self._release(pool, sandbox, True, SANDBOX_OVERHEAD_MB)

    @property
    def closed(self) -> bool:
        return self._closed

    def occupancy(self) -> dict[str, dict[str, int]]:
        return {
            name: {"busy": pool.busy, "idle": len(pool.idle), "capacity": pool.capacity}
            for name, pool in self._pools.items()
        }

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pools = list(self._pools.values())
        self._stop_reaper.set()
        for pool in pools:
            with pool.condition:
                idle, pool.idle = pool.idle, []
                pool.idle_since.clear()
                pool.count -= len(idle)
                pool.condition.notify_all()
            for sandbox in idle:
                self._discard(sandbox, counted=False)

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- internals --------------------------------------------------------------------------
    def _judge_or_system_error(self, job: Job) -> JobResult:
        try:
            return self.judge(job)
        except SandboxError as error:
            return JobResult.system_failure(len(job.tests), str(error))

    def _run(
        self,
        job: Job,
        header: wire.JobFrame,
        blob: bytes,
        data: dict[str, Content],
        compiling: bool,
        answer_by: float | None,
    ) -> tuple[wire.ResultFrame, bytes]:
        pool = self._pool(job.language)
        longest_s = _jobs.longest_run_s(job, compiling)
        # Waiting for a sandbox past this point would answer after the caller gave up.
        wait_until = answer_by - longest_s if answer_by is not None else None
        # The job's memory and its sandbox's share, reserved before it holds a sandbox: a job
        # waiting for memory holds nothing another needs.
        reserved_mb = self._budget.take(
            _job_memory_mb(job, compiling) + SANDBOX_OVERHEAD_MB,
            self._evict_idle,
            self._idle_mb,
            wait_until,
        )
        try:
            sandbox = self._acquire(pool, wait_until)
        except BaseException:
            self._budget.give(reserved_mb)
            raise
        healthy = False
        try:
            # The agent starts the job's clocks when the frame arrives: after the slot.
            in_sandbox = threading.Event()
            cpu_s = _while_in_sandbox(getattr(sandbox, "cpu_seconds", None), in_sandbox)
            with self.cpu_slots.hold(run_by=wait_until, cpu_s=cpu_s, longest_s=longest_s):
                if answer_by is not None:
                    left_s = answer_by - time.monotonic()  # a client's huge timeout: a day
                    header["answer_within_ms"] = int(min(max(left_s, 0.0), 86400.0) * 1000)
                reply, reply_blob = self._request(
                    sandbox, job, header, blob, data, compiling, in_sandbox
                )
            # Read defensively: a frame that breaks the protocol is a crashed agent, not a bug.
            if reply.get("op") == "error":
                raise SandboxCrashed(f"sandbox agent failed: {reply.get('message')}")
            if reply.get("op") != "result":
                raise SandboxCrashed(f"sandbox agent answered a job with {reply.get('op')!r}")
            result = cast(wire.ResultFrame, reply)  # its op is "result"
            healthy = not result.get("reset_error")
            if self.sandboxes_cgroup is not None:  # the next job's stops are told apart by it
                self.sandboxes_cgroup.reset_peak(sandbox.id)
            sandbox.jobs_run += 1
            return result, reply_blob
        finally:
            self._release(pool, sandbox, healthy, reserved_mb)

    def _request(
        self,
        sandbox: Sandbox,
        job: Job,
        header: wire.JobFrame,
        blob: bytes,
        data: dict[str, Content],
        compiling: bool,
        in_sandbox: threading.Event,
    ) -> tuple[wire.AgentFrame, bytes]:
        """Send the job with the test data the sandbox does not hold; once more with what its
        agent says it lacks (a miss: nothing ran). ``in_sandbox`` is set while the agent has
        the job."""
        timeout = _jobs.deadline_seconds(job, compiling, self.settings)
        keys = testdata.job_keys(header["tests"])
        held = self._held_index(sandbox)
        send = held.missing(keys)
        sent, sent_blob = _jobs.with_test_data(header, blob, data, send)
        reply, reply_blob = _in_sandbox(sandbox, sent, sent_blob, timeout, in_sandbox)
        if reply.get("op") == "missing":
            lacking = [key for key in cast(wire.MissingFrame, reply)["keys"] if key in data]
            held.forget(lacking)
            send = list(dict.fromkeys([*send, *lacking]))
            sent, sent_blob = _jobs.with_test_data(header, blob, data, send)
            reply, reply_blob = _in_sandbox(sandbox, sent, sent_blob, timeout, in_sandbox)
        if reply.get("op") == "result":
            new = {key: (data[key].size, None) for key in send}
            held.admit(keys, new, header.get("test_cache_bytes", 0))
        return reply, reply_blob

    def _held_index(self, sandbox: Sandbox) -> testdata.Lru[None]:
        with self._held_lock:
            held = self._held.get(sandbox)
            if held is None:
                held = self._held[sandbox] = testdata.Lru()
            return held

    def _pool(self, language: str) -> _LanguagePool:
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the sandbox pool is closed")
            if language not in self._pools:
                self._pools[language] = _LanguagePool(
                    language, self.settings.sandboxes_per_language
                )
                self._start_reaper()
            return self._pools[language]

    def _start_reaper(self) -> None:
        """With the first pool (a language costs nothing until used), the thread that closes
        sandboxes idle longer than ``sandbox_idle_s``. Called under ``_lock``."""
        if self._reaper is not None or self.settings.sandbox_idle_s <= 0:
            return
        self._reaper = threading.Thread(target=self._reap_loop, name="sandbox-reaper", daemon=True)
        self._reaper.start()

    def _reap_loop(self) -> None:
        interval = min(max(self.settings.sandbox_idle_s / 4, 0.05), 10.0)
        while not self._stop_reaper.wait(interval):
            self.reap_idle()

    def reap_idle(self, now: float | None = None) -> int:
        """Close every sandbox idle for ``sandbox_idle_s`` or more; return how many."""
        now = time.monotonic() if now is None else now
        cutoff = now - self.settings.sandbox_idle_s
        with self._lock:
            pools = list(self._pools.values())
        cold: list[Sandbox] = []
        for pool in pools:
            with pool.condition:
                while pool.idle and pool.idle_since.get(pool.idle[0], now) <= cutoff:
                    sandbox = pool.idle.pop(0)
                    pool.idle_since.pop(sandbox, None)
                    pool.count -= 1
                    cold.append(sandbox)
                if cold:
                    pool.condition.notify_all()  # room to start one for a waiter, if any
        for sandbox in cold:
            self._discard(sandbox)
        return len(cold)

    def _evict_idle(self) -> bool:
        """Close the sandbox idle the longest, of any language, to give its memory to a new
        one; whether there was one."""
        with self._lock:
            pools = list(self._pools.values())
        oldest: tuple[float, _LanguagePool] | None = None
        for pool in pools:
            with pool.condition:
                if pool.idle:
                    since = pool.idle_since.get(pool.idle[0], 0.0)
                    if oldest is None or since < oldest[0]:
                        oldest = (since, pool)
        if oldest is None:
            return False
        pool = oldest[1]
        with pool.condition:
            if not pool.idle:
                return True  # taken meanwhile: look again
            sandbox = pool.idle.pop(0)
            pool.idle_since.pop(sandbox, None)
            pool.count -= 1
            pool.condition.notify_all()
        self._discard(sandbox)
        return True

    def _make_room_alone(self, job: Job) -> None:
        """Close idle sandboxes, the longest idle first, until the sandboxes together and
        ``job``'s memory fit their common cap (the job judged alone: no job holds memory now,
        but idle sandboxes do, their cached tests the most)."""
        cgroup = self.sandboxes_cgroup
        if cgroup is None or cgroup.cap_mb is None:
            return
        needed_mb = _job_memory_mb(job, compiling=True) + SANDBOX_OVERHEAD_MB
        while True:
            used_mb = cgroup.usage_mb()
            if used_mb is None or used_mb + needed_mb <= cgroup.cap_mb:
                return
            if not self._evict_idle():
                return

    def _idle_mb(self) -> int:
        """The budget the idle sandboxes hold (what closing all of them would give back)."""
        with self._lock:
            pools = list(self._pools.values())
        return SANDBOX_OVERHEAD_MB * sum(len(pool.idle) for pool in pools)

    def _discard(self, sandbox: Sandbox, counted: bool = True, idle_share: bool = True) -> None:
        """Close a sandbox the pool no longer holds; an idle one's share goes back to the
        budget (a busy one's is part of its job's reservation)."""
        if counted:
            self.stats.sandboxes_destroyed += 1
        try:
            sandbox.close()
        finally:
            if idle_share:
                self._budget.give(SANDBOX_OVERHEAD_MB)

    def _acquire(self, pool: _LanguagePool, wait_until: float | None = None) -> Sandbox:
        with pool.condition:
            while not pool.idle and pool.count >= pool.capacity:
                timeout = None if wait_until is None else wait_until - time.monotonic()
                if timeout is not None and timeout <= 0:
                    pool.condition.notify()  # a wake-up meant for this waiter goes to the next
                    raise SandboxUnavailable(
                        f"every {pool.language} sandbox is busy: no answer could come in time"
                    )
                pool.condition.wait(timeout)
                if self._closed:
                    raise SandboxUnavailable("the sandbox pool is closed")
            pool.busy += 1
            if pool.idle:
                sandbox = pool.idle.pop()
                pool.idle_since.pop(sandbox, None)
                # Its idle share of the budget: the job's reservation holds it now.
                self._budget.give(SANDBOX_OVERHEAD_MB)
                return sandbox
            pool.count += 1
        try:
            return self._create(pool)
        except BaseException:
            with pool.condition:
                pool.busy -= 1
                pool.condition.notify()
            raise

    def _create(self, pool: _LanguagePool) -> Sandbox:
        try:
            sandbox = self._factory(pool.language)
        except BaseException:
            self._uncount(pool)
            raise
        self.stats.sandboxes_started += 1
        return sandbox

    def _uncount(self, pool: _LanguagePool) -> None:
        with pool.condition:
            pool.count -= 1
            pool.condition.notify()

    def _release(
        self, pool: _LanguagePool, sandbox: Sandbox, healthy: bool, reserved_mb: int
    ) -> None:
        """Back to the idle sandboxes, keeping its share of ``reserved_mb`` (the rest goes back
        to the budget), or closed, giving all of it back."""
        with pool.condition:
            pool.busy = max(0, pool.busy - 1)
            if healthy and not self._closed:
                pool.idle.append(sandbox)
                pool.idle_since[sandbox] = time.monotonic()
                pool.condition.notify()
                self._budget.give(reserved_mb - SANDBOX_OVERHEAD_MB)
                return
            pool.count -= 1
            pool.condition.notify()
        self._budget.give(reserved_mb)
        self._discard(sandbox, idle_share=False)

    def _docker(self) -> docker.DockerClient:
        """The Docker client; one this pool makes comes with the host's dead judges' sandboxes
        removed and the common memory cap set, before any sandbox starts (a client given to
        the pool is its caller's, used as it is)."""
        with self._docker_lock:
            if self._client is None:
                try:
                    client = docker.from_env(timeout=120)
                    client.ping()
                    remove_stale_sandboxes(client)
                except docker.errors.DockerException as error:
                    raise SandboxUnavailable(f"Docker is not reachable: {error}") from error
                self.sandboxes_cgroup = self._sandboxes_cgroup(client)
                self._client = client
            return self._client

    def _sandboxes_cgroup(self, client: docker.DockerClient) -> _cgroup_memory.SandboxesCgroup:
        settings = self.settings
        try:
            info = client.info()
        except docker.errors.DockerException as error:
            raise SandboxUnavailable(f"Docker is not reachable: {error}") from error
        total_mb = settings.sandbox_memory_total_mb or _cgroup_memory.default_total_mb()
        cgroup = _cgroup_memory.prepare(
            settings.sandbox_cgroup_parent,
            total_mb,
            settings.host_cgroup_dir,
            str(info.get("CgroupDriver", "")),
            str(info.get("CgroupVersion", "1")),
        )
        if cgroup.reason:
            _log.warning("sandboxes share no memory cap: %s", cgroup.reason)
        return cgroup

    def _image_id(self, language: str) -> str:
        """The image ID the language's tag names when first asked: every sandbox of the
        language runs it (a rebuild moves the tag, not this), so the compile-cache key names
        the compiler that built each entry. A new pool picks up a rebuilt image."""
        if language not in self._image_ids:
            prefix = self.settings.image_prefix
            try:
                image = self._docker().images.get(image_tag(language, prefix))
            except docker.errors.ImageNotFound as error:
                raise SandboxUnavailable(
                    f"the {language} sandbox image {image_tag(language, prefix)} is missing; "
                    f"build it with `{build_command(language, prefix)}`"
                ) from error
            except docker.errors.DockerException as error:
                raise SandboxUnavailable(f"Docker is not reachable: {error}") from error
            # The first answer wins: two first jobs racing a rebuild must not pin two images.
            return self._image_ids.setdefault(language, image.id or "")
        return self._image_ids[language]

    def _start_sandbox(self, language: str) -> Sandbox:
        client = self._docker()
        parent = self.sandboxes_cgroup.parent if self.sandboxes_cgroup is not None else ""
        return Sandbox(client, language, self._image_id(language), self.settings, parent)

    def _count(self, result: JobResult) -> None:
        self.stats.jobs += 1
        self.stats.tests += len(result.tests)
        job_verdicts, test_verdicts = self.stats.job_verdicts, self.stats.test_verdicts
        job_verdicts[result.verdict.value] = job_verdicts.get(result.verdict.value, 0) + 1
        for test in result.tests:
            test_verdicts[test.verdict.value] = test_verdicts.get(test.verdict.value, 0) + 1


def _job_memory_mb(job: Job, compiling: bool) -> int:
    """What a job may use before the agent stops it: its memory limit (its compile's, when
    larger and compiling) and its runtime's allowance above the limit."""
    limits = job.limits
    largest = max(limits.memory_limit_mb, limits.compile_memory_limit_mb if compiling else 0)
    spec = LANGUAGES.get(job.language)
    return largest + (spec.rss_allowance_mb if spec is not None else 0)


def _oom_killed(result: JobResult) -> int:
    """Tests and compiles of ``result`` the kernel's OOM killer stopped within their limits."""
    compiled = result.compile is not None and result.compile.limit == "host_memory"
    return compiled + sum(test.limit == "host_memory" for test in result.tests)


def _while_in_sandbox(
    cpu_s: Callable[[], float | None] | None, in_sandbox: threading.Event
) -> Callable[[], float | None] | None:
    """The sandbox's busy seconds while its agent has the job, None (nothing known: it does not
    lend) before the frame has left this process and after the reply came: a job whose host
    thread waits for a CPU before it sends the frame is not a sleeper, and lending its slot then
    ran three programs on two slots."""
    if cpu_s is None:
        return None
    return lambda: cpu_s() if in_sandbox.is_set() else None


def _in_sandbox(
    sandbox: Sandbox,
    frame: wire.HostFrame,
    blob: bytes,
    timeout: float,
    in_sandbox: threading.Event,
) -> tuple[wire.AgentFrame, bytes]:
    in_sandbox.set()
    try:
        return sandbox.request(frame, blob, timeout=timeout)
    finally:
        in_sandbox.clear()
