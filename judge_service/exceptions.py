"""Errors the judge raises. What a submission does is never an error: it is a verdict.

JudgeError
├── InvalidJobError          bad input (unknown language, empty code, limits out of
│                            range...); raised before anything runs, so nothing ran
└── InfrastructureError      the judge could not judge; reported as a system error or
    │                        HTTP 503, never as a verdict or a zero reward
    ├── BrokerUnavailable    the queue cannot take work
    ├── StoreError           the database failed a read or a write (any driver error: the
    │   │                    store lets no SQLAlchemy exception escape)
    │   └── StoreUnavailable    the database cannot be reached or dropped the connection
    └── SandboxError         the sandbox infrastructure failed
        ├── SandboxUnavailable  Docker is unreachable, an image is missing, the pool closed
        ├── SandboxCrashed      the sandbox or its agent died or broke the protocol mid-job
        ├── SandboxTimeout      the agent did not answer within the job's deadline
        └── ImageBuildError     building a sandbox image (or its base) failed
"""

from __future__ import annotations


class JudgeError(Exception):
    """Base of every error the judge raises."""


class InvalidJobError(JudgeError, ValueError):
    """The job cannot be judged as given; the message says what to change."""


class InfrastructureError(JudgeError):
    """Something the judge depends on failed; the submission was not judged."""


class BrokerUnavailable(InfrastructureError):
    pass


class StoreError(InfrastructureError):
    """The database failed a read or a write; the message carries the driver's reason."""


class StoreUnavailable(StoreError):
    pass


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
