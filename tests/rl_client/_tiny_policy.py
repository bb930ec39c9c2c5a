"""A tiny Qwen2 causal LM built from a config, with a byte-level BPE tokenizer trained on the
spot and a ChatML template: nothing is downloaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_CORPUS = [
    "```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    "Read two integers and print their sum.",
]


def tiny_model_and_tokenizer(seed: int = 0) -> tuple[Any, Any]:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(_CORPUS, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = CHATML
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config), tokenizer


def train_answer_policy(
    directory: Path, rows: list[tuple[str, list[tuple[str, int]]]], steps: int = 120, seed: int = 0
) -> Path:
    """A tiny model that, given one of the prompts, answers one of its answers with the
    frequency of the counts, saved to ``directory``. Each whole prompt and each whole answer
    is one token of the vocabulary, so a few seconds of training on a CPU learn the mapping
    from a prompt to its answers' distribution."""
    import torch
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator([prompt for prompt, _ in rows], trainer)
    answers = sorted({answer for _, options in rows for answer, _ in options})
    whole = [prompt for prompt, _ in rows] + answers
    bpe.add_tokens([AddedToken(text, normalized=False, special=False) for text in whole])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>"
    )
    tokenizer.chat_template = CHATML
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(config)
    sequences, labels = [], []
    for prompt, options in rows:
        ids = tokenizer.encode(prompt, add_special_tokens=False)
        for answer, count in options:
            answer_id = tokenizer.convert_tokens_to_ids(answer)
            for _ in range(count):
                sequences.append([*ids, answer_id, tokenizer.eos_token_id])
                labels.append([-100] * len(ids) + [answer_id, tokenizer.eos_token_id])
    width = max(len(sequence) for sequence in sequences)
    pad = tokenizer.pad_token_id
    input_ids = torch.tensor([s + [pad] * (width - len(s)) for s in sequences])
    mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sequences])
    targets = torch.tensor([t + [-100] * (width - len(t)) for t in labels])
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(steps):
        loss = model(input_ids=input_ids, attention_mask=mask, labels=targets).loss
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval()
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    return directory
