"""The KV cache of the prompt prefix that the requests share, read once and reused.

Every prompt of the complexity judge starts with the same chat header and system prompt; a
request that starts with the remembered prefix has only the rest of its prompt read, on top
of a copy of the prefix's cache. Nothing is configured: after a prompt read in full, the
prefix it shares with the previous prompt read in full (at least ``min_tokens``, and never a
whole prompt: the last token is always read, for its logits) becomes the remembered one. So
the first two different prompts teach it, and a client with another system prompt replaces
it. Greedy answers do not change: a prefix's keys and values depend only on the prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["SharedPrefix"]


class SharedPrefix:
    """One remembered prefix: its token ids and its cache (per layer: keys, values of one
    row). Used by the decoding thread alone."""

    def __init__(self, min_tokens: int = 16) -> None:
        self.min_tokens = min_tokens
        self.ids: list[int] = []
        self.layers: list[tuple[Any, Any]] = []
        self.hits = 0
        self._last: list[int] | None = None

    def match(self, prompt: Sequence[int]) -> int:
        """How many of ``prompt``'s first tokens the remembered cache holds (0 or all of it)."""
        size = len(self.ids)
        if size and len(prompt) > size and list(prompt[:size]) == self.ids:
            return size
        return 0

    def learn(self, prompt: list[int], layers: Sequence[tuple[Any, Any]], row: int) -> None:
        """After ``prompt`` was read in full, as row ``row`` of ``layers`` (left-padded: its
        tokens are the last ones): remember what it shares with the previous such prompt."""
        previous, self._last = self._last, prompt
        if previous is None:
            return
        shared = 0
        for mine, theirs in zip(prompt, previous, strict=False):
            if mine != theirs:
                break
            shared += 1
        shared = min(shared, len(prompt) - 1)
        if shared < self.min_tokens:
            return
        start = layers[0][0].shape[2] - len(prompt)  # the row's left padding
        end = start + shared
        # A copy: a view would keep the whole batch's cache alive.
        self.layers = [
            (keys[row : row + 1, :, start:end].clone(), values[row : row + 1, :, start:end].clone())
            for keys, values in layers
        ]
        self.ids = prompt[:shared]
