"""Training examples: (code, label) rows to token ids with the loss on the answer alone.

Each example is the serving prompt (:func:`build_messages` through :func:`encode_prompt`)
followed by the answer (:func:`format_answer` of the label, then the tokenizer's EOS so the
model learns to stop); the prompt's labels are -100, so the loss is the answer's alone. Code
too long for ``max_length`` is cut by tokens and marked truncated, as the client cuts it by
characters; the answer is never cut.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from complexity_model.ladder import normalise_class
from complexity_model.served.chat import encode_prompt
from complexity_model.served.prompt import (
    MAX_CODE_CHARS,
    TRUNCATED,
    build_messages,
    format_answer,
)

__all__ = ["IGNORE", "Example", "Features", "collate", "encode_example", "load_examples"]

IGNORE = -100  # the label value the loss of transformers' causal LMs skips
_CUT_TRIES = 4


@dataclass(frozen=True)
class Example:
    code: str
    language: str
    complexity: str


@dataclass(frozen=True)
class Features:
    input_ids: list[int]
    labels: list[int]


def load_examples(path: Path, limit: int | None = None) -> tuple[list[Example], int]:
    """Rows with ``code``, ``language`` and a ``complexity`` on the ladder, and how many rows
    were skipped (no code, or a label off the ladder)."""
    examples: list[Example] = []
    skipped = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            label = normalise_class(str(row.get("complexity", "")))
            code = row.get("code")
            if label is None or not isinstance(code, str) or not code.strip():
                skipped += 1
                continue
            examples.append(Example(code, str(row.get("language", "")), label))
            if limit is not None and len(examples) >= limit:
                break
    return examples, skipped


def _ids(tokenizer: Any, text: str) -> list[int]:
    return [int(token) for token in tokenizer(text, add_special_tokens=False)["input_ids"]]


def encode_example(tokenizer: Any, example: Example, max_length: int) -> Features | None:
    """The example's features, or None when even an empty program would not fit."""
    answer = _ids(tokenizer, format_answer(example.complexity))
    if tokenizer.eos_token_id is not None:
        answer.append(int(tokenizer.eos_token_id))
    budget = max_length - len(answer)
    prompt = encode_prompt(tokenizer, build_messages(example.code, example.language))
    code_ids = _ids(tokenizer, example.code[:MAX_CODE_CHARS])
    marker, cut = len(_ids(tokenizer, TRUNCATED)), 0
    for _ in range(_CUT_TRIES):
        if len(prompt) <= budget:
            return Features(prompt + answer, [IGNORE] * len(prompt) + answer)
        # Decoding and re-encoding can merge tokens differently: cut again if still over.
        cut += len(prompt) - budget
        keep = len(code_ids) - cut - marker
        if keep <= 0:
            return None
        code = tokenizer.decode(code_ids[:keep]) + TRUNCATED
        prompt = encode_prompt(tokenizer, build_messages(code, example.language))
    return None


def collate(batch: Sequence[Features], pad_id: int) -> dict[str, Any]:
    """Right-padded tensors: ``input_ids``, ``attention_mask`` and ``labels``."""
    import torch  # the optional [model] extra: only training imports it

    width = max(len(features.input_ids) for features in batch)
    ids, mask, labels = [], [], []
    for features in batch:
        pad = width - len(features.input_ids)
        ids.append(features.input_ids + [pad_id] * pad)
        mask.append([1] * len(features.input_ids) + [0] * pad)
        labels.append(features.labels + [IGNORE] * pad)
    return {
        "input_ids": torch.tensor(ids),
        "attention_mask": torch.tensor(mask),
        "labels": torch.tensor(labels),
    }
