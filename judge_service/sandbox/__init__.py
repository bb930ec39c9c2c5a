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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from judge_service.sandbox.pool import SandboxPool


def __getattr__(name: str) -> object:
    # The pool imports the settings, which import the models: loaded on first use, no cycle.
    if name == "SandboxPool":
        from judge_service.sandbox.pool import SandboxPool

        return SandboxPool
    raise AttributeError(name)


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
