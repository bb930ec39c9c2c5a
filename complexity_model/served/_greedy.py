"""Greedy decoding of a left-padded batch in which each row stops on its own.

``model.generate`` computes every row of a batch until the last row stops: one answer that
runs to ``max_tokens`` keeps every finished row in the computation. Here a row leaves the
batch (and the KV cache) at its first stop token or its own token limit, so a batch costs
what its live rows cost. Positions count from each row's first real token, so a padded row
sees the positions it would see alone.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Decoded", "greedy_batch"]


@dataclass
class Decoded:
    """A row's generated tokens (the stop token included, when it stopped) and, when asked
    for, the raw logits of each step."""

    tokens: list[int]
    logits: list[Any] | None


def greedy_batch(
    model: Any,
    prompts: Sequence[list[int]],
    limits: Sequence[int],
    stop_ids: set[int],
    pad_id: int,
    keep_logits: Sequence[bool],
    *,
    prefill_rows: bool = False,
) -> list[Decoded]:
    """Each prompt's greedy continuation, at most ``limits[i]`` tokens.

    With ``prefill_rows`` each prompt is read alone, unpadded, and the caches are joined
    left-padded: on a CPU a padded batch's attention takes the slow masked path for the whole
    prompt, where one prompt takes the causal kernel.
    """
    import torch
    from transformers import DynamicCache

    device = model.device
    # transformers renamed the argument (past_key_values is deprecated from 5.x on).
    parameters = inspect.signature(model.forward).parameters
    cache_name = "cache" if "cache" in parameters else "past_key_values"
    width = max(len(prompt) for prompt in prompts)
    ids = [[pad_id] * (width - len(p)) + list(p) for p in prompts]
    mask_rows = [[0] * (width - len(p)) + [1] * len(p) for p in prompts]
    input_ids = torch.tensor(ids, device=device)
    mask = torch.tensor(mask_rows, device=device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    decoded = [Decoded([], [] if keep else None) for keep in keep_logits]
    rows = list(range(len(prompts)))  # the rows still decoding, in cache order
    cache = DynamicCache()
    with torch.inference_mode():
        if prefill_rows:
            step = _prefill_rows(model, prompts, width, cache_name, cache)
        else:
            # Only the last position's logits: a real vocabulary over every prompt position
            # of a batch would be gigabytes.
            output = model(
                input_ids=input_ids,
                attention_mask=mask,
                position_ids=positions,
                use_cache=True,
                logits_to_keep=1,
                **{cache_name: cache},
            )
            step = output.logits[:, -1, :]
        following = positions[:, -1:] + 1
        while True:
            chosen = step.argmax(dim=-1)
            live = []
            for slot, row in enumerate(rows):
                token = int(chosen[slot])
                entry = decoded[row]
                entry.tokens.append(token)
                if entry.logits is not None:
                    entry.logits.append(step[slot])
                if token not in stop_ids and len(entry.tokens) < limits[row]:
                    live.append(slot)
            if not live:
                return decoded
            if len(live) < len(rows):
                keep = torch.tensor(live, device=device)
                cache.batch_select_indices(keep)
                mask, chosen, following = mask[keep], chosen[keep], following[keep]
                rows = [rows[slot] for slot in live]
            mask = torch.cat([mask, mask.new_ones((len(rows), 1))], dim=-1)
            output = model(
                input_ids=chosen[:, None],
                attention_mask=mask,
                position_ids=following,
                use_cache=True,
                **{cache_name: cache},
            )
            step = output.logits[:, -1, :]
            following = following + 1


def _prefill_rows(
    model: Any, prompts: Sequence[list[int]], width: int, cache_name: str, cache: Any
) -> Any:
    """Reads each prompt alone into ``cache``, left-padded to ``width``; the last logits."""
    import torch
    from torch.nn.functional import pad
    from transformers import DynamicCache

    rows, last = [], []
    for prompt in prompts:
        row = DynamicCache()
        output = model(
            input_ids=torch.tensor([prompt], device=model.device),
            use_cache=True,
            logits_to_keep=1,
            **{cache_name: row},
        )
        rows.append((row, width - len(prompt)))
        last.append(output.logits[:, -1, :])
    for layer in range(len(rows[0][0].layers)):
        keys = [pad(row.layers[layer].keys, (0, 0, left, 0)) for row, left in rows]
        values = [pad(row.layers[layer].values, (0, 0, left, 0)) for row, left in rows]
        cache.update(torch.cat(keys), torch.cat(values), layer)
    return torch.cat(last)
