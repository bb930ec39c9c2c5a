"""Greedy decoding of a batch whose rows join and leave between decode steps.

``model.generate`` computes every row of a batch from the same first step until the last row
stops. :class:`DecodeBatch` instead keeps the rows being decoded and their KV cache, left-padded
to a common width: :meth:`DecodeBatch.admit` reads new prompts and joins them to the batch
between two steps (continuous batching), and a row leaves the batch (and the cache) at its
first stop token or its own token limit, so a step costs what its live rows cost. Positions
count from each row's first real token, so a padded row sees the positions it would see alone,
and greedy decoding of one row does not depend on the other rows: each row is what its prompt
alone would have produced.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from complexity_model.served._prefix import SharedPrefix

__all__ = ["DecodeBatch", "Decoded", "Prompt", "greedy_batch"]

Key = TypeVar("Key")


@dataclass
class Decoded:
    """A row's generated tokens (the stop token included, when it stopped) and, when asked
    for, the log-probability of each of them."""

    tokens: list[int]
    logprobs: list[float] | None


@dataclass(frozen=True)
class Prompt(Generic[Key]):
    """A prompt to decode: its token ids, its token limit, whether to keep logprobs, and the
    caller's key that comes back with its result."""

    ids: list[int]
    limit: int
    logprobs: bool
    key: Key


@dataclass
class _Row(Generic[Key]):
    prompt: Prompt[Key]
    decoded: Decoded = field(default_factory=lambda: Decoded([], None))


@dataclass
class _Piece:
    """Rows' KV cache (per layer: keys, values) left-padded to one width, and their mask."""

    layers: list[tuple[Any, Any]]
    mask: Any  # [rows, width] of 0 (padding) and 1


class DecodeBatch(Generic[Key]):
    """The rows being decoded greedily, each with its pending token (chosen, not yet fed).

    With ``prefill_rows`` each admitted prompt is read alone, unpadded: on a CPU a padded
    batch's attention takes the slow masked path for the whole prompt, where one prompt (or
    several of the same length) takes the causal kernel. Otherwise the admitted prompts are
    read as one padded batch (the faster way on a GPU).
    """

    def __init__(
        self,
        model: Any,
        stop_ids: set[int],
        *,
        prefill_rows: bool = True,
        prefix: SharedPrefix | None = None,
    ) -> None:
        self.model = model
        self.prefix = prefix
        self.stop_ids = stop_ids
        self.prefill_rows = prefill_rows
        # transformers renamed the argument (past_key_values is deprecated from 5.x on).
        parameters = inspect.signature(model.forward).parameters
        self._cache_name = "cache" if "cache" in parameters else "past_key_values"
        self._rows: list[_Row[Key]] = []
        # The rows' KV cache, left-padded to one width, and its mask ([rows, width] of 0 for
        # padding, 1 for a real token); the tokens to feed at the next step.
        self._cache: Any = None
        self._mask: Any = None
        self._pending: Any = None

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> list[Prompt[Key]]:
        """Drops every row (after a failed step); their prompts, to run again elsewhere."""
        prompts = [row.prompt for row in self._rows]
        self._rows, self._cache, self._mask, self._pending = [], None, None, None
        return prompts

    def admit(self, prompts: Sequence[Prompt[Key]]) -> list[tuple[Key, Decoded]]:
        """Reads ``prompts`` and joins them to the batch; those already finished after their
        first token (a stop token, or a limit of 1) come back at once and do not join."""
        import torch

        if not prompts:
            return []
        with torch.inference_mode():
            piece, last = self._prefill(prompts)
        rows = [_Row(prompt, Decoded([], [] if prompt.logprobs else None)) for prompt in prompts]
        chosen, done, live = self._choose(rows, last)
        if live:
            index = torch.tensor(live, device=self.model.device)
            piece = _Piece(
                [(keys[index], values[index]) for keys, values in piece.layers], piece.mask[index]
            )
            if self._cache is not None:
                current = [(layer.keys, layer.values) for layer in self._cache.layers]
                piece = _join(_Piece(current, self._mask), piece)
            self._cache, self._mask = _cache(piece.layers), piece.mask
            pending = chosen[index]
            if self._pending is not None:
                pending = torch.cat([self._pending, pending])
            self._pending = pending
            self._rows += [rows[slot] for slot in live]
        return [(rows[slot].prompt.key, rows[slot].decoded) for slot in done]

    def step(self) -> list[tuple[Key, Decoded]]:
        """Feeds every row its pending token and chooses the next; the rows that finished."""
        import torch

        if not self._rows:
            return []
        assert self._cache is not None and self._mask is not None
        positions = self._mask.sum(dim=-1, keepdim=True)  # real tokens before the fed one
        mask = torch.cat([self._mask, self._mask.new_ones((len(self._rows), 1))], dim=-1)
        with torch.inference_mode():
            output = self.model(
                input_ids=self._pending[:, None],
                attention_mask=mask,
                position_ids=positions,
                use_cache=True,
                **{self._cache_name: self._cache},
            )
        chosen, done, live = self._choose(self._rows, output.logits[:, -1, :])
        finished = [(self._rows[slot].prompt.key, self._rows[slot].decoded) for slot in done]
        if not live:
            self.clear()
            return finished
        if done:
            index = torch.tensor(live, device=self.model.device)
            self._cache.batch_select_indices(index)
            mask, chosen = mask[index], chosen[index]
            self._rows = [self._rows[slot] for slot in live]
            # Columns that are padding in every row left with the rows that needed them.
            start = int(mask.any(dim=0).int().argmax())
            if start:
                for layer in self._cache.layers:
                    layer.keys = layer.keys[:, :, start:]
                    layer.values = layer.values[:, :, start:]
                mask = mask[:, start:]
        self._mask, self._pending = mask, chosen
        return finished

    def _choose(self, rows: Sequence[_Row[Key]], logits: Any) -> tuple[Any, list[int], list[int]]:
        """Each row's greedy token from its ``logits`` row: the tokens, and the slots that
        finished and those that go on."""
        import torch

        chosen = logits.argmax(dim=-1)
        values = None
        if any(row.decoded.logprobs is not None for row in rows):
            values = torch.log_softmax(logits.float(), dim=-1).gather(1, chosen[:, None])[:, 0]
            values = values.tolist()
        done, live = [], []
        for slot, (row, token) in enumerate(zip(rows, chosen.tolist(), strict=True)):
            decoded = row.decoded
            decoded.tokens.append(int(token))
            if decoded.logprobs is not None and values is not None:
                decoded.logprobs.append(float(values[slot]))
            if token in self.stop_ids or len(decoded.tokens) >= row.prompt.limit:
                done.append(slot)
            else:
                live.append(slot)
        return chosen, done, live

    def _prefill(self, prompts: Sequence[Prompt[Key]]) -> tuple[_Piece, Any]:
        """The prompts' cache and mask, and the logits of their last positions."""
        import torch

        if not self.prefill_rows:
            return self._forward([list(prompt.ids) for prompt in prompts])
        # Prompts of one length (and the same shared prefix read already) are read together:
        # no padding, so no mask either.
        groups: dict[tuple[int, int], list[int]] = {}
        for slot, prompt in enumerate(prompts):
            known = self.prefix.match(prompt.ids) if self.prefix is not None else 0
            groups.setdefault((len(prompt.ids), known), []).append(slot)
        pieces, lasts, order = [], [], []
        # Prompts that use the prefix first: reading the others may replace it.
        for (_, known), slots in sorted(groups.items(), key=lambda group: -group[0][1]):
            ids = [list(prompts[slot].ids) for slot in slots]
            piece, last = self._forward(ids, known)
            if self.prefix is not None:
                if known:
                    self.prefix.hits += len(slots)
                else:
                    for row, row_ids in enumerate(ids):
                        self.prefix.learn(row_ids, piece.layers, row)
            pieces.append(piece)
            lasts.append(last)
            order += slots
        piece, last = pieces[0], torch.cat(lasts)
        for other in pieces[1:]:
            piece = _join(piece, other)
        # Back to the prompts' order.
        index = torch.tensor([order.index(slot) for slot in range(len(prompts))])
        index = index.to(self.model.device)
        layers = [(keys[index], values[index]) for keys, values in piece.layers]
        return _Piece(layers, piece.mask[index]), last[index]

    def _forward(self, ids: list[list[int]], known: int = 0) -> tuple[_Piece, Any]:
        """One prefill of left-padded ``ids`` (masked only when their lengths differ); with
        ``known``, the rows (of one length) start with the shared prefix, whose cache is
        copied in and whose tokens are not read again."""
        import torch
        from transformers import DynamicCache

        device = self.model.device
        if known:
            assert self.prefix is not None
            rows = len(ids)
            cache = _cache(
                [
                    (keys.expand(rows, -1, -1, -1), values.expand(rows, -1, -1, -1))
                    for keys, values in self.prefix.layers
                ]
            )
            positions = torch.arange(known, len(ids[0]), device=device).expand(rows, -1)
            output = self.model(
                input_ids=torch.tensor([row[known:] for row in ids], device=device),
                position_ids=positions,
                use_cache=True,
                logits_to_keep=1,
                **{self._cache_name: cache},
            )
            layers = [(layer.keys, layer.values) for layer in cache.layers]
            mask = torch.ones((rows, len(ids[0])), dtype=torch.long, device=device)
            return _Piece(layers, mask), output.logits[:, -1, :]
        width = max(len(row) for row in ids)
        # The pads (id 0) are masked out.
        input_ids = torch.tensor([[0] * (width - len(row)) + row for row in ids], device=device)
        mask = torch.tensor([[0] * (width - len(row)) + [1] * len(row) for row in ids])
        mask = mask.to(device)
        extra: dict[str, Any] = {}
        if any(len(row) != width for row in ids):
            extra["attention_mask"] = mask
            extra["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
        cache = DynamicCache()
        output = self.model(
            input_ids=input_ids,
            use_cache=True,
            # Only the last position's logits: a real vocabulary over every prompt position of
            # a batch would be gigabytes.
            logits_to_keep=1,
            **extra,
            **{self._cache_name: cache},
        )
        layers = [(layer.keys, layer.values) for layer in cache.layers]
        return _Piece(layers, mask), output.logits[:, -1, :]


@functools.cache
def _growing_layer() -> type:
    """A DynamicLayer whose keys and values are views of buffers with room to grow.

    DynamicLayer appends a step's token with ``torch.cat``, a copy of the whole cache at every
    step: most of a 16-row decode step's time on a CPU. Here a step writes its token into the
    buffer in place; the buffer is copied only when it is full or when the batch's rows
    changed (the layer's tensors were replaced, by a row leaving or padding trimmed).
    """
    from transformers.cache_utils import DynamicLayer

    class GrowingLayer(DynamicLayer):  # type: ignore[misc]
        _key_buffer: Any = None
        _value_buffer: Any = None

        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> Any:
            if not self.is_initialized:
                self.lazy_initialization(key_states, value_states)
                self.keys, self.values = key_states[..., :0, :], value_states[..., :0, :]
            length = self.keys.shape[-2]
            total = length + key_states.shape[-2]
            buffer = self._key_buffer
            if (
                buffer is None
                or buffer.shape[-2] < total
                or buffer.shape[:2] != self.keys.shape[:2]
                or buffer.data_ptr() != self.keys.data_ptr()
                or self._value_buffer.data_ptr() != self.values.data_ptr()
            ):
                rows, heads, _, width = key_states.shape
                room = total + max(64, total // 2)
                self._key_buffer = key_states.new_empty((rows, heads, room, width))
                self._value_buffer = value_states.new_empty((rows, heads, room, width))
                self._key_buffer[..., :length, :] = self.keys
                self._value_buffer[..., :length, :] = self.values
            self._key_buffer[..., length:total, :] = key_states
            self._value_buffer[..., length:total, :] = value_states
            self.keys = self._key_buffer[..., :total, :]
            self.values = self._value_buffer[..., :total, :]
            return self.keys, self.values

    return GrowingLayer


def _cache(layers: Sequence[tuple[Any, Any]]) -> Any:
    """A DynamicCache holding ``layers`` (keys, values per layer), with room to grow."""
    from transformers import DynamicCache

    cache = DynamicCache()
    cache.layer_class_to_replicate = _growing_layer()
    for index, (keys, values) in enumerate(layers):
        cache.update(keys, values, index)
    return cache


def _join(first: _Piece, second: _Piece) -> _Piece:
    """The rows of both pieces, left-padded to the wider one."""
    import torch
    from torch.nn.functional import pad

    width = max(first.mask.shape[1], second.mask.shape[1])

    def widen(tensor: Any, by: int) -> Any:  # [rows, heads, length, dim]: pad the length
        return pad(tensor, (0, 0, by, 0)) if by else tensor

    a, b = width - first.mask.shape[1], width - second.mask.shape[1]
    layers = [
        (torch.cat([widen(k1, a), widen(k2, b)]), torch.cat([widen(v1, a), widen(v2, b)]))
        for (k1, v1), (k2, v2) in zip(first.layers, second.layers, strict=True)
    ]
    mask = torch.cat([pad(first.mask, (a, 0)), pad(second.mask, (b, 0))])
    return _Piece(layers, mask)


def greedy_batch(
    model: Any,
    prompts: Sequence[list[int]],
    limits: Sequence[int],
    stop_ids: set[int],
    keep_logprobs: Sequence[bool],
    *,
    prefill_rows: bool = False,
) -> list[Decoded]:
    """Each prompt's greedy continuation, at most ``limits[i]`` tokens, decoded as one batch
    from the same first step (the rows leave as they stop)."""
    batch: DecodeBatch[int] = DecodeBatch(model, stop_ids, prefill_rows=prefill_rows)
    results: dict[int, Decoded] = dict(
        batch.admit(
            [
                Prompt(list(ids), limit, keep, index)
                for index, (ids, limit, keep) in enumerate(
                    zip(prompts, limits, keep_logprobs, strict=True)
                )
            ]
        )
    )
    while len(batch):
        results.update(batch.step())
    return [results[index] for index in range(len(prompts))]
