"""Errors the judge raises. What a submission does is never an error: it is a verdict.

JudgeError
├── InvalidJobError        bad input (unknown language, empty code, limits out of range...);
│                          raised before anything runs, so nothing was executed
└── SandboxError           the infrastructure failed; the submission was not judged
    ├── SandboxUnavailable Docker is unreachable, an image is missing, or the pool is closed
    ├── SandboxCrashed     the sandbox or its agent died or broke the protocol mid-job
    ├── SandboxTimeout     the agent did not answer within the job's deadline
    └── ImageBuildError    building a sandbox image (or its base) failed
"""

from __future__ import annotations


class JudgeError(Exception):
    """Base of every error the judge raises."""


class InvalidJobError(JudgeError, ValueError):
    """The job cannot be judged as given; the message says what to change."""


class SandboxError(JudgeError):
    """The sandbox infrastructure failed; report a system error, never a verdict."""


class SandboxUnavailable(SandboxError):
    pass


class SandboxCrashed(SandboxError):
    pass


class SandboxTimeout(SandboxError):
    pass


class ImageBuildError(SandboxError):
    pass
