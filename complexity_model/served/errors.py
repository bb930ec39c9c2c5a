"""Errors of the served-model backend.

They are :class:`~judge_service.exceptions.InfrastructureError`\\ s: when the model server
cannot answer, the submission's complexity was not judged, which is never the same as a model
answer of ``"unknown"`` (that one is a result). A caller such as the ensemble catches them to
fall back to another backend; uncaught, the service reports a system error.
"""

from __future__ import annotations

from judge_service.exceptions import InfrastructureError

__all__ = ["ServedModelError", "ServedModelUnavailable"]


class ServedModelError(InfrastructureError):
    """The model server answered, but not as an OpenAI-compatible chat endpoint should.

    For example a 4xx (wrong model name, a request it refuses) or a body without
    ``choices[0].message.content``: retrying would not help, so it is raised at once.
    """


class ServedModelUnavailable(ServedModelError):
    """The model server could not be reached or kept failing (connection refused, 5xx,
    timeouts) after every retry."""
