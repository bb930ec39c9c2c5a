"""The served-model complexity backend: a client for an OpenAI-compatible chat endpoint.

:class:`ServedModelJudge` asks the model; ``judge complexity serve`` starts a server (vLLM on
a GPU, or a small transformers server on a CPU); ``judge complexity train`` fine-tunes a model
on the same prompt. Importing this package needs only httpx: torch and transformers are
imported by the server and the trainer when they run.
"""

from complexity_model.served.client import ServedModelJudge
from complexity_model.served.errors import (
    ServedModelError,
    ServedModelRejected,
    ServedModelUnavailable,
)
from complexity_model.served.parse import ParsedAnswer, parse_answer
from complexity_model.served.prompt import build_messages, format_answer

__all__ = [
    "ParsedAnswer",
    "ServedModelError",
    "ServedModelJudge",
    "ServedModelRejected",
    "ServedModelUnavailable",
    "build_messages",
    "format_answer",
    "parse_answer",
]
