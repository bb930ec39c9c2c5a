"""The sandbox engine: warm Docker sandboxes that compile once and judge many tests."""

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
from judge_service.sandbox.pool import SandboxPool

__all__ = [
    "Checker",
    "CheckerKind",
    "CompileResult",
    "Job",
    "JobResult",
    "Limits",
    "SandboxPool",
    "TestCase",
    "TestMode",
    "TestResult",
    "Verdict",
]
