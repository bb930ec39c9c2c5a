"""Turn a Job into the agent's wire format and the agent's answer back into a JobResult."""

from __future__ import annotations

from typing import cast

from judge_service.sandbox._assert_plan import plan
from judge_service.sandbox._prompt import prompt_helpers, with_helpers
from judge_service.sandbox._test_keys import Content, content_of
from judge_service.sandbox.agent import wire
from judge_service.sandbox.cache import Artifact, CompiledProgram
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.languages import LANGUAGES, LanguageSpec
from judge_service.sandbox.models import (
    CheckerKind,
    CompileResult,
    FetchedFile,
    Job,
    JobResult,
    TestCase,
    TestMode,
    TestResult,
    Verdict,
)
from judge_service.sandbox.validation import SANDBOX_OVERHEAD_MB

# A checker that crashes must read as a failed checker (exit 3), not as "wrong answer" (exit 1,
# which is also what an uncaught Python exception exits with).
_CHECKER_RUNNER = (
    "import runpy, sys, traceback\n"
    "sys.argv = sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
    "except SystemExit:\n"
    "    raise\n"
    "except BaseException:\n"
    "    traceback.print_exc()\n"
    "    sys.exit(3)\n"
)
CHECKER_ARGV = [
    "/usr/bin/python3",
    "-I",
    "-c",
    _CHECKER_RUNNER,
    "/dev/fd/3",
    "/dev/fd/4",
    "/dev/fd/5",
    "/dev/fd/6",
]
CHECKER_LIMITS: wire.Limits = {
    "cpu_ms": 10000,
    "wall_ms": 20000,
    "memory_kb": 512 * 1024,
    "output_bytes": 1 << 16,
    "report_bytes": 4096,
}
COMPILE_WALL_FACTOR = 4


def agent_header(
    job: Job, spec: LanguageSpec, settings: SandboxConfig, cached: CompiledProgram | None
) -> tuple[wire.JobFrame, bytes, dict[str, Content]]:
    """The job's frame, its blob (the files), and the test data its tests name by key: the
    pool adds to the frame what the sandbox it runs on does not hold (:func:`with_test_data`)."""
    limits = job.limits
    # An appended assert test is a whole program (_appended): run as a test suite is.
    appended = job.mode is TestMode.ASSERT and spec.appends_asserts
    tests: list[wire.TestSpec]
    data: dict[str, Content]
    tests, data = ([{"input": ""} for _ in job.tests], {}) if appended else _tests(job, spec)
    memory_mb = limits.memory_limit_mb
    source_name = spec.source_file(job.code)
    files = [Artifact(name, 0o644, content) for name, content in job.files.items()]
    header: wire.JobFrame = {
        "op": "job",
        "mode": "stdin" if appended else job.mode.value,
        "entry_point": job.entry_point,
        "stop_on_first_failure": job.stop_on_first_failure,
        "source": job.code,
        "source_name": source_name,
        "use_zygote": spec.use_zygote,
        "mle_markers": list(spec.mle_markers),
        "fetch_files": job.fetch_files,
        "limits": {
            "cpu_ms": limits.time_limit_ms,
            "wall_ms": limits.wall_ms,
            "starved_wall_factor": settings.starved_wall_factor,
            "memory_kb": (memory_mb + spec.rss_allowance_mb) * 1024,
            "output_bytes": limits.output_limit_kb * 1024,
            "report_bytes": (
                settings.report_bytes if limits.report_bytes is None else limits.report_bytes
            ),
            # All tests' reports together: the reply is built from what the agent sends back.
            "report_total_bytes": settings.max_reply_output_bytes,
            "stack_bytes": spec.stack_bytes(memory_mb),
        },
        "run": {"argv": _run_argv(job, spec), "env": spec.environment(), "argv0": source_name},
        "tests": tests,
        "budget_ms": job_budget_ms(job, settings),
        "checker": _checker(job),
        "blob_files": [],
    }
    failure_exit = spec.assert_failure_exit if appended else spec.suite_failure_exit
    if failure_exit is not None:
        header["suite_failure_exit"] = failure_exit
    if spec.runtime_trailer:
        header["runtime_trailer"] = spec.runtime_trailer
    if spec.compiled and cached is None:
        header["compile"] = compile_spec(job, spec, settings)
        header["return_artifacts"] = bool(spec.artifacts)
    elif cached is not None:
        files += list(cached.artifacts)
    if spec.syntax_check_argv:
        header["syntax_check"] = compile_spec(job, spec, settings, syntax_check=True)
    header["blob_files"] = [{"name": f.name, "size": len(f.content), "mode": f.mode} for f in files]
    if data:
        header["test_cache_bytes"] = test_cache_bytes(job, spec, settings)
    return header, b"".join(f.content for f in files), data


def with_test_data(
    header: wire.JobFrame, blob: bytes, data: dict[str, Content], keys: list[str]
) -> tuple[wire.JobFrame, bytes]:
    """The frame and blob carrying the bytes of ``keys`` (after the files)."""
    if not keys:
        return header, blob
    sent: wire.JobFrame = {**header, "test_data": [{"key": k, "size": data[k].size} for k in keys]}
    return sent, b"".join([blob, *(data[key].encoded() for key in keys)])


def test_cache_bytes(job: Job, spec: LanguageSpec, settings: SandboxConfig) -> int:
    """How much test data the sandbox keeps once this job is admitted: ``test_cache_mb``, less
    whatever of it the job's program may need of the sandbox's memory (a job with the largest
    memory limit runs with nothing kept)."""
    room_mb = (
        settings.sandbox_memory_mb
        - SANDBOX_OVERHEAD_MB
        - spec.rss_allowance_mb
        - job.limits.memory_limit_mb
    )
    return max(0, min(settings.test_cache_mb, room_mb)) << 20


def _tests(job: Job, spec: LanguageSpec) -> tuple[list[wire.TestSpec], dict[str, Content]]:
    if job.mode is TestMode.STDIN:
        return _stdin_tests(job)
    tests = [_test_spec(test) for test in job.tests]
    if job.mode is TestMode.ASSERT and job.prompt:
        helpers, names = prompt_helpers(spec.name, job.prompt, job.entry_point or "")
        for test in tests:
            test["code"] = with_helpers(spec.name, test.get("code", ""), helpers, names)
    if job.mode is TestMode.ASSERT and spec.use_zygote:
        for test in tests:
            planned = plan(test.get("code", ""), job.entry_point or "")
            if planned is not None:
                calls, checks = planned
                test["plan"] = [calls, checks]
    return tests, {}


def _stdin_tests(job: Job) -> tuple[list[wire.TestSpec], dict[str, Content]]:
    """Stdin tests name their input and expected output by content key (see testdata.py)."""
    tests: list[wire.TestSpec] = []
    data: dict[str, Content] = {}
    for test in job.tests:
        spec: wire.TestSpec = {"input_key": _keyed(test.input, data)}
        if test.output is not None:
            spec["output_key"] = _keyed(test.output, data)
        tests.append(spec)
    return tests, data


def _keyed(text: str, data: dict[str, Content]) -> str:
    content = content_of(text)
    data.setdefault(content.key, content)
    return content.key


def compile_spec(
    job: Job, spec: LanguageSpec, settings: SandboxConfig, syntax_check: bool = False
) -> wire.CompileSpec:
    """How the agent compiles ``job`` (or checks its syntax): all of it is part of the
    compile-cache key."""
    limits = job.limits
    frame: wire.CompileSpec = {
        "argv": (
            spec.syntax_check_command(job.code) if syntax_check else spec.compile_command(job.code)
        ),
        "env": spec.environment(),
        "artifacts": [] if syntax_check else list(spec.artifacts),
        "limits": {
            "cpu_ms": limits.compile_time_limit_ms,
            # CPU time is the limit; the wall clock only stops a compiler that blocks, and a
            # compile it stops is judged again (see _rejudge), never cached.
            "wall_ms": limits.compile_time_limit_ms * COMPILE_WALL_FACTOR,
            "starved_wall_factor": settings.starved_wall_factor,
            "memory_kb": limits.compile_memory_limit_mb * 1024,
            "output_bytes": 1 << 16,
            "fsize_bytes": settings.sandbox_work_mb << 20,
        },
    }
    if spec.compile_server and settings.warm_compilers:
        frame["server"] = spec.compile_server
    return frame


def job_budget_ms(job: Job, settings: SandboxConfig) -> int:
    """How long the job's tests may hold the sandbox, all together: a few times what their
    CPU limits allow (a sleeper costs no CPU but holds a sandbox), never past the cap."""
    allowed = settings.job_budget_factor * job.limits.time_limit_ms * len(job.tests) + 5000
    return int(min(allowed, settings.max_job_wall_s * 1000))


def _run_argv(job: Job, spec: LanguageSpec) -> list[str]:
    if job.mode is TestMode.STDIN or not spec.harness_argv:
        return spec.main_argv(job.code, job.limits.memory_limit_mb)
    harness = spec.harness_command(job.code, job.limits.memory_limit_mb)
    program = spec.harness_program or spec.source_name
    return [*harness, job.mode.value, "/work/" + program, job.entry_point or ""]


def _test_spec(test: TestCase) -> wire.TestSpec:
    # TestCase's fields are TestSpec's; the unset ones stay off the wire.
    return cast(wire.TestSpec, test.model_dump(exclude_none=True))


def _checker(job: Job) -> wire.CheckerSpec:
    checker = job.checker
    described: wire.CheckerSpec = {
        "kind": checker.kind.value,
        "abs_tol": checker.abs_tol,
        "rel_tol": checker.rel_tol,
    }
    if checker.kind is CheckerKind.CUSTOM:
        described["source"] = checker.code or ""  # a custom checker's model requires its code
        described["argv"] = CHECKER_ARGV
        described["limits"] = CHECKER_LIMITS
        described["env"] = LANGUAGES["python"].environment()
    return described


def longest_run_s(job: Job, compiling: bool = False) -> float:
    """How long the job takes at most when the host is not starving it: its compile's CPU
    limit and its tests' wall limits (a wall-clock backstop beyond that is for hung jobs)."""
    compile_s = job.limits.compile_time_limit_ms / 1000 if compiling else 0
    return compile_s + job.limits.wall_ms / 1000 * len(job.tests)


def deadline_seconds(job: Job, compiling: bool, settings: SandboxConfig) -> float:
    """How long the agent may take before the host declares the sandbox hung: what its wall
    limits allow a program the host starves of CPU (``starved_wall_factor``)."""
    factor = settings.starved_wall_factor
    per_test = job.limits.wall_ms * factor / 1000 + 2.5
    if job.checker.kind is CheckerKind.CUSTOM:
        per_test += CHECKER_LIMITS["wall_ms"] / 1000
    compile_wall_ms = job.limits.compile_time_limit_ms * COMPILE_WALL_FACTOR
    compile_s = compile_wall_ms * factor / 1000 + 5 if compiling else 0
    return 15.0 + compile_s + per_test * len(job.tests)


def compiled_program(reply: wire.ResultFrame, blob: bytes) -> CompiledProgram | None:
    """The cacheable outcome of a compilation the agent ran, if it ran one."""
    compiled = reply.get("compile")
    if compiled is None or "exit_code" not in compiled:
        return None
    entries = reply.get("artifacts", [])
    if any("error" in entry for entry in entries):
        return None  # an artifact that did not come back: later runs would miss a file
    artifacts = []
    offset = 0
    for entry in entries:
        artifacts.append(
            Artifact(entry["name"], entry["mode"], blob[offset : offset + entry["size"]])
        )
        offset += entry["size"]
    if compiled.get("limit") in ("wall", "host_memory"):
        return None  # stopped by the wall clock or the OOM killer: the host may have decided
    return CompiledProgram(compiled["ok"], compiled["output"], compiled["cpu_ms"], tuple(artifacts))


def job_result(
    job: Job, reply: wire.ResultFrame | None, blob: bytes, cached: CompiledProgram | None
) -> JobResult:
    """The job's result from the agent's ``reply``; None when nothing ran (``cached`` is a
    failed compilation)."""
    total = len(job.tests)
    if cached is not None:
        compile_result: CompileResult | None = CompileResult(
            ok=cached.ok, output=cached.output, time_ms=cached.time_ms, cached=True
        )
    elif reply is not None and (compiled := reply.get("compile")) is not None:
        compile_result = CompileResult(
            ok=compiled["ok"],
            output=compiled["output"],
            time_ms=compiled.get("cpu_ms", 0.0),
            limit=compiled.get("limit"),
        )
    else:
        compile_result = None
    if reply is None:
        return summarise(total, [], compile_result, [])
    if compile_result is not None and reply["compile"] and reply["compile"].get("host_stopped"):
        return JobResult(
            verdict=Verdict.SE,
            passed=0,
            total=total,
            compile=compile_result,
            system_error="the kernel's OOM killer took a process of the compile while its sandbox "
            "held no more than its due: the sandboxes together were out of memory",
        )
    tests = [TestResult.model_validate(test) for test in reply.get("tests", [])]
    return summarise(total, tests, compile_result, _fetched(reply, blob))


def summarise(
    total: int,
    tests: list[TestResult],
    compile_result: CompileResult | None,
    fetched: list[FetchedFile],
) -> JobResult:
    """The job's verdict from its tests: the first failure's, SE if any test's is SE."""
    passed = sum(test.verdict is Verdict.AC for test in tests)
    if compile_result is not None and not compile_result.ok:
        return JobResult(
            verdict=Verdict.CE, passed=0, total=total, compile=compile_result, files=fetched
        )
    failures = [test for test in tests if test.verdict is not Verdict.AC]
    system_errors = [test.message for test in failures if test.verdict is Verdict.SE]
    verdict = failures[0].verdict if failures else Verdict.AC
    if system_errors:
        verdict = Verdict.SE
    return JobResult(
        verdict=verdict,
        passed=passed,
        total=total,
        tests=tests,
        compile=compile_result,
        files=fetched,
        system_error=system_errors[0] if system_errors else None,
    )


def _fetched(reply: wire.ResultFrame, blob: bytes) -> list[FetchedFile]:
    files = []
    offset = reply.get("fetched_offset", 0)
    for entry in reply.get("fetched", []):
        if "error" in entry:
            files.append(FetchedFile(name=entry["name"], error=entry["error"]))
            continue
        files.append(FetchedFile(name=entry["name"], content=blob[offset : offset + entry["size"]]))
        offset += entry["size"]
    return files
