"""Errors the engine raises. What a submission does is never an error: it is a verdict.

JudgeError
├── InvalidJobError          bad input (unknown language, empty code, limits out of
│                            range...); raised before anything runs, so nothing ran
└── InfrastructureError      the judge could not judge; reported as a system error,
    │                        never as a verdict
    └── SandboxError         the sandbox infrastructure failed
        ├── SandboxUnavailable  Docker is unreachable, an image is missing, the pool closed
        ├── SandboxCrashed      the sandbox or its agent died or broke the protocol mid-job
        ├── SandboxTimeout      the agent did not answer within the job's deadline
        └── ImageBuildError     building a sandbox image (or its base) failed

The root and the two branches live here, with the engine, because the engine raises them;
``judge_service.exceptions`` re-exports them and adds the service's own infrastructure errors.
"""

from __future__ import annotations

__all__ = [
    "ImageBuildError",
    "InfrastructureError",
    "InvalidJobError",
    "JudgeError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxTimeout",
    "SandboxUnavailable",
]


class JudgeError(Exception):
    """Base of every error the judge raises."""


class InvalidJobError(JudgeError, ValueError):
    """The job cannot be judged as given; the message says what to change."""


class InfrastructureError(JudgeError):
    """Something the judge depends on failed; the submission was not judged."""


class SandboxError(InfrastructureError):
    """The sandbox infrastructure failed; report a system error, never a verdict."""


class SandboxUnavailable(SandboxError):
    pass


class SandboxCrashed(SandboxError):
    pass


class SandboxTimeout(SandboxError):
    pass


class ImageBuildError(SandboxError):
    pass
