"""Errors the judge raises. What a submission does is never an error: it is a verdict.

JudgeError
├── InvalidJobError          bad input (unknown language, empty code, limits out of
│                            range...); raised before anything runs, so nothing ran
└── InfrastructureError      the judge could not judge; reported as a system error or
    │                        HTTP 503, never as a verdict or a zero reward
    ├── BrokerUnavailable    the queue cannot take work
    ├── StoreUnavailable     the database cannot be reached
    └── SandboxError         the sandbox infrastructure failed
        ├── SandboxUnavailable  Docker is unreachable, an image is missing, the pool closed
        ├── SandboxCrashed      the sandbox or its agent died or broke the protocol mid-job
        ├── SandboxTimeout      the agent did not answer within the job's deadline
        └── ImageBuildError     building a sandbox image (or its base) failed

The engine raises the root, InvalidJobError and the sandbox errors, so they are defined in
:mod:`judge_service.sandbox.errors` (the engine imports nothing of the service) and are the
same classes here.
"""

from __future__ import annotations

from judge_service.sandbox.errors import (
    ImageBuildError,
    InfrastructureError,
    InvalidJobError,
    JudgeError,
    SandboxCrashed,
    SandboxError,
    SandboxTimeout,
    SandboxUnavailable,
)

__all__ = [
    "BrokerUnavailable",
    "ImageBuildError",
    "InfrastructureError",
    "InvalidJobError",
    "JudgeError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "StoreUnavailable",
]


class BrokerUnavailable(InfrastructureError):
    pass


class StoreUnavailable(InfrastructureError):
    pass
