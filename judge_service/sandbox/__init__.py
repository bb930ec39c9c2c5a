"""The sandbox engine: warm Docker sandboxes that compile once and judge many tests.

A layer of its own: it imports nothing else of the project. Its API is the models below, its
settings (:class:`SandboxConfig`), its errors (:mod:`.errors`), :func:`validate_job`, and the
pool that judges (:class:`judge_service.sandbox.pool.SandboxPool`). The pool is not imported
here: it needs the Docker client, and a process that only builds or checks jobs (the API) has
no use for it.
"""

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import (
    Checker,
    CheckerKind,
    CompileResult,
    Job,
    JobResult,
    Limits,
    TestCase,
    TestMode,
    TestResult,
    Verdict,
)
from judge_service.sandbox.validation import validate_job

__all__ = [
    "Checker",
    "CheckerKind",
    "CompileResult",
    "Job",
    "JobResult",
    "Limits",
    "SandboxConfig",
    "TestCase",
    "TestMode",
    "TestResult",
    "Verdict",
    "validate_job",
]
