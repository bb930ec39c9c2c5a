"""MultiPL-E style assert mode, for the languages without an assert harness: each test's code is
appended to the program and the whole is run, once per test, as MultiPL-E runs its programs.
Its exit status is the verdict: 0 AC, the language's failed-assertion status
(``LanguageSpec.assert_failure_exit``) WA, another crash RE; time and memory limits as ever.

The pool judges each whole program as a job of its own (compiled, cached and limited as any
job) and merges their results into the job's: its tests in order, its verdict the first
failure's."""

from __future__ import annotations

from judge_service.sandbox._jobs import summarise
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import CompileResult, Job, JobResult, TestMode, Verdict

# What stops the whole programs after one: nothing later could be judged differently.
_FINAL = (Verdict.CE, Verdict.SE)


def appends_tests(job: Job) -> bool:
    """Whether ``job`` is judged as whole programs, its tests appended to its code."""
    spec = LANGUAGES.get(job.language)
    return job.mode is TestMode.ASSERT and spec is not None and spec.appends_asserts


def whole_program(job: Job, index: int) -> Job:
    """The job of test ``index``: the program with that test's code after it."""
    test = job.tests[index]
    code = job.code.rstrip("\n") + "\n\n" + (test.code or "") + "\n"
    return job.model_copy(update={"code": code, "tests": [test], "prompt": None})


def stops_after(job: Job, result: JobResult) -> bool:
    return result.verdict in _FINAL or (
        job.stop_on_first_failure and result.verdict is not Verdict.AC
    )


def merge(job: Job, results: list[JobResult]) -> JobResult:
    """The job's result from its whole programs' (one per test judged, in order)."""
    tests = [test for result in results for test in result.tests]
    compiles = [result.compile for result in results if result.compile is not None]
    failed = [compiled for compiled in compiles if not compiled.ok]
    chosen = failed or compiles
    compile_result: CompileResult | None = chosen[0] if chosen else None
    files = results[-1].files if results else []
    merged = summarise(len(job.tests), tests, compile_result, files)
    system_errors = [result.system_error for result in results if result.system_error]
    if system_errors:
        merged.verdict, merged.system_error = Verdict.SE, system_errors[0]
    merged.duration_ms = sum(result.duration_ms for result in results)
    return merged
