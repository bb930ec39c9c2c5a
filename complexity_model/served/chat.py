"""Chat messages to prompt tokens, the one way the CPU server and the trainer both use.

With the tokenizer's own chat template when it has one (instruct models ship one), so the
model sees the format it was tuned on; with a plain fallback otherwise. Training and serving
go through :func:`encode_prompt`, so a model fine-tuned here is served with the prompt it was
trained on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["encode_prompt", "render_prompt"]

_FALLBACK_ASSISTANT = "### Assistant\n"


def render_prompt(tokenizer: Any, messages: Sequence[dict[str, str]]) -> str:
    """The prompt text ending where the assistant's answer starts."""
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=True, tokenize=False
        )
        if not isinstance(text, str):
            raise TypeError("the chat template did not render to text")
        return text
    parts = [f"### {m['role'].capitalize()}\n{m['content']}\n\n" for m in messages]
    return "".join(parts) + _FALLBACK_ASSISTANT


def encode_prompt(tokenizer: Any, messages: Sequence[dict[str, str]]) -> list[int]:
    """Token ids of :func:`render_prompt`; a template brings its own special tokens, the
    fallback gets the tokenizer's (a BOS, for tokenizers that use one)."""
    templated = bool(getattr(tokenizer, "chat_template", None))
    ids = tokenizer(render_prompt(tokenizer, messages), add_special_tokens=not templated)
    return [int(token) for token in ids["input_ids"]]
