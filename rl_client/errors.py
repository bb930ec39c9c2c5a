"""What the client raises. A judged program's failure is never an exception: it is a verdict."""

from __future__ import annotations

__all__ = ["JudgeClientError", "JudgeRejected", "JudgeUnavailable"]


class JudgeClientError(Exception):
    """Base class of the client's errors."""


class JudgeRejected(JudgeClientError):
    """The service refused the request (a 4xx other than 408 and 429): asking again will not
    help; the request or the data is wrong."""

    def __init__(self, message: str, status_code: int, detail: object) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.detail = detail


class JudgeUnavailable(JudgeClientError):
    """The service did not answer after every retry (connection errors, time-outs, 429, 5xx)."""
