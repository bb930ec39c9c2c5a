"""Fine-tuning (judge complexity train) and its features, on the tiny model built on the spot."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from complexity_model.ladder import LADDER
from complexity_model.served import format_answer
from complexity_model.served._features import IGNORE, Example, encode_example, load_examples
from complexity_model.served._generate import TransformersGenerator, load_local
from complexity_model.served.chat import encode_prompt, render_prompt
from complexity_model.served.prompt import TRUNCATED, build_messages
from complexity_model.train import TrainConfig, train
from tests.complexity_model._tiny_model import build_tiny_model, write_rows


@pytest.fixture(scope="module")
def base_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("base") / "model")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_rows(tmp_path_factory.mktemp("data") / "train.jsonl")


def test_rows_off_the_ladder_or_without_code_are_skipped(data: Path) -> None:
    examples, skipped = load_examples(data)
    assert [example.complexity for example in examples] == ["O(1)", "O(n)", "O(n log n)", "O(n^2)"]
    assert skipped == 2


def test_the_loss_covers_the_answer_alone(base_model: Path) -> None:
    _, tokenizer = load_local(base_model)
    example = Example("for i in range(n):\n    print(i)\n", "python", "O(n)")
    features = encode_example(tokenizer, example, max_length=4096)
    assert features is not None
    prompt = encode_prompt(tokenizer, build_messages(example.code, example.language))
    assert features.input_ids[: len(prompt)] == prompt
    assert features.labels[: len(prompt)] == [IGNORE] * len(prompt)
    answer = features.labels[len(prompt) :]
    assert answer == features.input_ids[len(prompt) :]
    assert answer[-1] == tokenizer.eos_token_id
    assert tokenizer.decode(answer[:-1]) == format_answer("O(n)")


def test_long_code_is_cut_to_fit_and_the_answer_kept(base_model: Path) -> None:
    _, tokenizer = load_local(base_model)
    example = Example("total += i * i\n" * 400, "python", "O(n^2)")
    features = encode_example(tokenizer, example, max_length=600)
    assert features is not None
    assert len(features.input_ids) <= 600
    text = tokenizer.decode(features.input_ids)
    assert TRUNCATED in text
    assert text.endswith(format_answer("O(n^2)") + tokenizer.eos_token)
    assert encode_example(tokenizer, example, max_length=40) is None  # not even the prompt


def test_a_tokenizer_without_chat_template_gets_the_fallback(tmp_path: Path) -> None:
    _, tokenizer = load_local(build_tiny_model(tmp_path / "plain", chat_template=False))
    messages = build_messages("x = 1", "python")
    text = render_prompt(tokenizer, messages)
    assert text.startswith("### System\n") and text.endswith("### Assistant\n")
    assert "### User\n" in text and "x = 1" in text
    generator = TransformersGenerator(tmp_path / "plain")
    generation = generator.generate(messages, max_tokens=4, logprobs=False)
    assert generation.completion_tokens <= 4 and generation.token_logprobs is None


def _weights(model: Any) -> dict[str, Any]:
    return {name: tensor.detach().clone() for name, tensor in model.state_dict().items()}


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in before if not bool((before[name] == after[name]).all())]


@pytest.mark.parametrize("lora", [False, True], ids=["full", "lora"])
def test_a_few_steps_train_and_save_a_model_that_loads_and_serves(
    base_model: Path, data: Path, tmp_path: Path, lora: bool
) -> None:
    output = tmp_path / "trained"
    config = TrainConfig(
        data=data,
        model=str(base_model),
        output=output,
        max_steps=3,
        batch_size=2,
        learning_rate=1e-2,
        lora=lora,
        lora_r=4,
        lora_alpha=8,
        device="cpu",
    )
    summary = train(config, log=lambda line: None)
    assert (summary.examples, summary.skipped, summary.steps) == (4, 2, 3)
    assert len(summary.losses) == 3 and all(math.isfinite(loss) for loss in summary.losses)
    before, _ = load_local(base_model)
    after, tokenizer = load_local(output)
    assert type(after).__name__ == "Qwen2ForCausalLM"
    assert not any("lora" in name for name in after.state_dict())  # merged into the weights
    assert set(after.state_dict()) == set(before.state_dict())
    assert _changed(_weights(before), _weights(after))
    assert tokenizer.chat_template is not None
    record = json.loads((output / "complexity_training.json").read_text())
    assert record["steps"] == 3 and record["config"]["lora"] == str(lora)
    messages = build_messages("print(1)", "python")
    generation = TransformersGenerator(output).generate(messages, max_tokens=6, logprobs=True)
    assert 1 <= generation.completion_tokens <= 6


def test_training_learns_the_answer_format(base_model: Path, data: Path, tmp_path: Path) -> None:
    """Enough steps on four rows and the tiny model writes their answers: the loss reaches the
    answer tokens, and serving uses the prompt that training used."""
    output = tmp_path / "fitted"
    config = TrainConfig(
        data=data,
        model=str(base_model),
        output=output,
        max_steps=40,
        batch_size=4,
        learning_rate=1e-2,
        warmup_ratio=0.0,
        device="cpu",
    )
    summary = train(config, log=lambda line: None)
    assert summary.losses[-1] < summary.losses[0] / 4
    generator = TransformersGenerator(output)
    examples, _ = load_examples(data)
    answers = [
        generator.generate(build_messages(example.code, example.language), 40, False)
        for example in examples
    ]
    assert [answer.text for answer in answers] == [
        format_answer(example.complexity) for example in examples
    ]
    assert all(answer.finish_reason == "stop" for answer in answers)
    assert {example.complexity for example in examples} <= set(LADDER)
