"""Errors the judge raises. What a submission does is never an error: it is a verdict.

Every error that leaves the module raising it is in this tree; classes defined elsewhere name
their module. The engine raises the root, InvalidJobError and the sandbox errors, so they are
defined in :mod:`judge_service.sandbox.errors` (the engine imports nothing of the service) and
are the same classes here. The HTTP API maps the three branches in one place
(``api/errors.py``); no route maps an error of its own.

JudgeError
├── InvalidJobError          bad input (unknown language, empty code, limits out of range,
│   │                        an empty batch...); raised before anything runs, so nothing ran.
│   │                        HTTP 422 with the message
│   └── BadRows              rows of an OpenRLHF batch whose label cannot be judged (nothing
│                            is); HTTP 422 listing the rows
├── TooLarge                 a body, a batch or a field over one of the service's size caps;
│                            HTTP 413 naming the cap
└── InfrastructureError      the judge could not judge; reported as a system error or
    │                        HTTP 503, never as a verdict or a zero reward
    ├── BrokerUnavailable    the queue cannot take work or give back results
    ├── StoreError           the database failed a read or a write (any driver error: the
    │   │                    store lets no SQLAlchemy exception escape)
    │   └── StoreUnavailable    the database cannot be reached or dropped the connection
    ├── SandboxError         (sandbox/errors.py) the sandbox infrastructure failed
    │   ├── SandboxUnavailable  Docker is unreachable, an image is missing, the pool closed
    │   ├── SandboxCrashed      the sandbox or its agent died or broke the protocol mid-job
    │   ├── SandboxTimeout      the agent did not answer within the job's deadline
    │   └── ImageBuildError     building a sandbox image (or its base) failed
    └── ServedModelError     (complexity_model/served/errors.py) the complexity model's
        │                    server answered, but not as an OpenAI-compatible one should
        ├── ServedModelUnavailable  it could not be reached or kept failing
        └── ServedModelRejected     it refused the request with a 4xx

Errors that never leave the module raising them: each is caught there and becomes a verdict,
a message or one of the errors above.

- In the sandbox, the agent's own (``sandbox/agent/``, stdlib only, never in this process):
  ``NotPlainData`` and ``DecodeError`` (``plain.py``, data across the trust boundary),
  ``HelperError`` (``helpers.py``, a spawn helper failed), ``CandidateError``
  (``isolated.py``, the candidate's exception of a type the runner cannot rebuild).
- In the complexity judges: ``EntryPointNotFound`` (``static/_ir.py``, the estimate is
  "unknown"), ``Timeout`` (``empirical/_timing.py``, a ``BaseException`` so that a solution's
  ``except Exception`` cannot swallow it), ``PromptTooLong`` (``served/_generate.py``, the
  model server's HTTP 400).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
    "BadRows",
    "BrokerUnavailable",
    "ImageBuildError",
    "InfrastructureError",
    "InvalidJobError",
    "JudgeError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "StoreError",
    "StoreUnavailable",
    "TooLarge",
]


class BadRows(InvalidJobError):
    """Rows whose label (or request shape) cannot be judged: ``[(row, reason)]``."""

    def __init__(self, rows: Sequence[tuple[int | None, str]]) -> None:
        super().__init__("; ".join(f"row {row}: {reason}" for row, reason in rows))
        self.rows = list(rows)

    def detail(self) -> dict[str, Any]:
        """The HTTP 422's ``detail`` (``RewardErrorOut``): one entry per row."""
        return {
            "message": "labels that cannot be judged; nothing was scored",
            "rows": [{"index": row, "error": reason} for row, reason in self.rows],
        }


class TooLarge(JudgeError):
    """A body, a batch or a field over one of the service's size caps; the message names both."""


class BrokerUnavailable(InfrastructureError):
    pass


class StoreError(InfrastructureError):
    """The database failed a read or a write; the message carries the driver's reason."""


class StoreUnavailable(StoreError):
    pass
