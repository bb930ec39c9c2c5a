"""Errors of the served-model backend.

They are :class:`~judge_service.sandbox.errors.InfrastructureError`\\ s: when the model server
cannot answer, the submission's complexity was not judged, which is never the same as a model
answer of ``"unknown"`` (that one is a result). A caller such as the ensemble catches them to
fall back to another backend; uncaught, the service reports a system error.
"""

from __future__ import annotations

import re

from judge_service.sandbox.errors import InfrastructureError

__all__ = ["ServedModelError", "ServedModelRejected", "ServedModelUnavailable"]

_TOO_LONG = re.compile(r"maximum context length|max_model_len|prompt is too long", re.IGNORECASE)


class ServedModelError(InfrastructureError):
    """The model server answered, but not as an OpenAI-compatible chat endpoint should.

    For example a 4xx (wrong model name, a request it refuses) or a body without
    ``choices[0].message.content``: retrying would not help, so it is raised at once.
    """


class ServedModelUnavailable(ServedModelError):
    """The model server could not be reached or kept failing (connection refused, 5xx,
    timeouts) after every retry."""


class ServedModelRejected(ServedModelError):
    """The server refused the request with a 4xx; ``status`` and ``detail`` say why."""

    def __init__(self, message: str, status: int, detail: str) -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail

    @property
    def prompt_too_long(self) -> bool:
        """The refusal is about this one prompt's length (vLLM's and this project's server's
        wording), not about the request's settings: that program alone cannot be judged."""
        return self.status == 400 and bool(_TOO_LONG.search(self.detail))
