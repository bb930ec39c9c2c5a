"""A tiny Qwen2-style causal LM built on the spot: random weights, a BPE tokenizer trained on a
few strings, a ChatML template. Nothing is downloaded; saving and loading take milliseconds."""

from __future__ import annotations

import json
from pathlib import Path

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_CORPUS = [
    "def solve(n):\n    for i in range(n):\n        print(i)\n",
    "public class Main { public static void main(String[] args) { int n = 5; } }",
    '{"complexity": "O(n log n)", "confidence": 0.8}',
    "What is the worst-case time complexity of this program?",
]

# Labelled rows in the fields of codecomplex_dev.jsonl; the last two are skipped by training.
LABELLED_ROWS = [
    {"code": "print(1)\n", "language": "python", "complexity": "O(1)"},
    {"code": "for i in range(n):\n    print(i)\n", "language": "python", "complexity": "linear"},
    {"code": "xs.sort()\n", "language": "python", "complexity": "O(nlogn)"},
    {
        "code": "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) s++;",
        "language": "java",
        "complexity": "quadratic",
    },
    {"code": "x = 1\n", "language": "python", "complexity": "O(n!)"},  # off the ladder
    {"code": "", "language": "python", "complexity": "O(1)"},  # no code
]


def write_rows(path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in LABELLED_ROWS), encoding="utf-8")
    return path


def build_tiny_model(directory: Path, *, chat_template: bool = True, seed: int = 0) -> Path:
    """Save a 2-layer, 32-wide Qwen2 model and its tokenizer to ``directory``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=320,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(_CORPUS, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    if chat_template:
        tokenizer.chat_template = CHATML
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        # Wide enough that greedy decoding wanders over the vocabulary instead of repeating
        # one token: the parser then sees real garbage.
        initializer_range=0.5,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory


def fit_tiny_model(root: Path, *, steps: int = 40) -> Path:
    """The tiny model trained on :data:`LABELLED_ROWS` until it writes their answers (and
    stops after them); returns the trained model's directory under ``root``."""
    from complexity_model.train import TrainConfig, train

    config = TrainConfig(
        data=write_rows(root / "rows.jsonl"),
        model=str(build_tiny_model(root / "base")),
        output=root / "fitted",
        max_steps=steps,
        batch_size=4,
        learning_rate=1e-2,
        warmup_ratio=0.0,
        device="cpu",
    )
    train(config, log=lambda line: None)
    return config.output
