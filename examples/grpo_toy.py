"""Toy problems, a tiny policy and its SFT warm-up for ``grpo_demo.py``.

Each problem reads n and prints a number; it comes in four families, each with a constant c
in 2..25 that the prompt names. Every family has a slow shape (a loop over 1..n: O(n)) and a
fast one (a closed formula: O(1), the declared optimal class), and a buggy version of each
(an off-by-one loop, a float division). The policy is a 2-layer Qwen2 built from a config;
its tokenizer is a byte-level BPE trained here plus one token per code fragment, so an answer
is about a dozen tokens and the choices that matter (loop or formula, bug or not, which digit)
are single tokens. Nothing is downloaded."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FAMILIES = ("scaled_sum", "multiples", "shifted_sum", "repeat")
CONSTANTS = tuple(range(2, 26))
_SIZES = (1, 4, 9, 10, 37, 100, 999, 2520)


@dataclass(frozen=True)
class Toy:
    family: str
    c: int

    @property
    def id(self) -> str:
        return f"toy-{self.family}-{self.c}"

    @property
    def prompt(self) -> str:
        c = self.c
        task = {
            "scaled_sum": f"the sum of {c}*i for i from 1 to n",
            "multiples": f"how many of 1..n are multiples of {c}",
            "shifted_sum": f"the sum of i+{c} for i from 1 to n",
            "repeat": f"{c} added up n times",
        }[self.family]
        return f"Read n. Print {task}.\nAnswer:\n"

    def answer(self, n: int) -> int:
        c = self.c
        return {
            "scaled_sum": c * n * (n + 1) // 2,
            "multiples": n // c,
            "shifted_sum": n * (n + 1) // 2 + c * n,
            "repeat": c * n,
        }[self.family]

    def problem(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tests": [{"input": f"{n}\n", "output": str(self.answer(n))} for n in _SIZES],
            "optimal_complexity": "O(1)",
            "time_limit_ms": 1000,
        }

    def code(self, shape: str) -> str:
        """shape: slow, slow_bug, fast or fast_bug."""
        c = self.c
        term = {"scaled_sum": f"{c}*i", "multiples": f"i%{c}==0", "shifted_sum": f"i+{c}"}
        formula = {
            "scaled_sum": (f"{c}*n*(n+1)//2", f"{c}*n*(n+1)/2"),
            "multiples": (f"n//{c}", f"n/{c}"),
            "shifted_sum": (f"n*(n+1)//2+{c}*n", f"n*(n+1)/2+{c}*n"),
            "repeat": (f"{c}*n", f"{c}*(n+1)"),
        }[self.family]
        if shape.startswith("fast"):
            body = f"print({formula[shape == 'fast_bug']})\n"
        else:
            stop = "n" if shape == "slow_bug" else "n+1"
            add = term.get(self.family, str(c))
            body = f"s=0\nfor i in range(1,{stop}):\n    s+={add}\nprint(s)\n"
        return f"```python\nn=int(input())\n{body}```"


def toys() -> list[Toy]:
    return [Toy(family, c) for family in FAMILIES for c in CONSTANTS]


def split(seed: int = 0) -> tuple[list[Toy], list[Toy]]:
    """(seen, held-out): four constants of each family held out (never in SFT or GRPO)."""
    rng = random.Random(seed)
    held: list[Toy] = []
    for family in FAMILIES:
        held += [Toy(family, c) for c in rng.sample(CONSTANTS, 4)]
    return [toy for toy in toys() if toy not in held], held


# Fragments that become single tokens (longest first, so the tokenizer prefers them).
_FRAGMENTS = sorted(
    {
        "```python\n",
        "```",
        "n=int(input())\n",
        "s=0\n",
        "for i in range(1,n+1):\n",
        "for i in range(1,n):\n",
        "    s+=",
        "print(s)\n",
        "print(",
        ")\n",
        "*i",
        "i+",
        "i%",
        "==0",
        "*n*(n+1)//2",
        "*n*(n+1)/2",
        "n//",
        "n/",
        "n*(n+1)//2+",
        "n*(n+1)/2+",
        "*n",
        "*(n+1)",
        "\n",
        # Each constant one token, the same in the prompt and the code: copying it is then
        # copying a token.
        *(str(c) for c in CONSTANTS),
    },
    key=len,
    reverse=True,
)


def tiny_policy(seed: int = 0) -> tuple[Any, Any]:
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=320,
        special_tokens=["<|endoftext|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator([toy.prompt for toy in toys()], trainer)
    bpe.add_tokens([AddedToken(text, normalized=False) for text in _FRAGMENTS])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=256,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config), tokenizer


# The SFT mixture: a weak coder that mostly loops, often with a bug.
MIXTURE = {"slow": 0.40, "slow_bug": 0.35, "fast": 0.15, "fast_bug": 0.10}


def sft_rows(problems: list[Toy], per_problem: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    shapes, weights = zip(*MIXTURE.items(), strict=True)
    return [
        (toy.prompt, toy.code(rng.choices(shapes, weights)[0]))
        for toy in problems
        for _ in range(per_problem)
    ]


def sft(model: Any, tokenizer: Any, rows: list[tuple[str, str]], steps: int, out: Path) -> Path:
    """Cross-entropy on the answers (prompt tokens masked), full batch, then saved."""
    import torch

    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    sequences, labels = [], []
    for prompt, answer in rows:
        p = tokenizer.encode(prompt, add_special_tokens=False)
        a = [*tokenizer.encode(answer, add_special_tokens=False), eos]
        sequences.append(p + a)
        labels.append([-100] * len(p) + a)
    width = max(len(s) for s in sequences)
    ids = torch.tensor([s + [pad] * (width - len(s)) for s in sequences])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sequences])
    targets = torch.tensor([t + [-100] * (width - len(t)) for t in labels])
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(steps):
        batch = torch.randint(0, len(sequences), (64,))
        loss = model(input_ids=ids[batch], attention_mask=mask[batch], labels=targets[batch]).loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"  sft step {step:4d} loss {loss.item():.3f}", flush=True)
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    return out
