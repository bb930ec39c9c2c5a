"""TRL reward functions: values from the live service, plain and conversational completions,
None when the sandboxes are down, and one real GRPOTrainer step on CPU that calls them."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from rl_client import JudgeClient, RetryPolicy
from rl_client.trl import AsyncJudgeReward, JudgeReward
from tests.api._cluster import ApiServer
from tests.rl_client._tiny_policy import tiny_model_and_tokenizer
from tests.rl_client.conftest import SUM_OK, SUM_PROBLEM, SUM_WRONG, fenced

pytestmark = pytest.mark.integration

PLAIN = [fenced(SUM_OK), fenced(SUM_WRONG), "no code here ```", fenced(SUM_OK)]


def test_sync_reward_plain_completions_and_components_ask_once(service: ApiServer) -> None:
    reward = JudgeReward(JudgeClient(service.url))
    columns = {"problem_id": ["sum"] * 4}
    totals = reward(prompts=["p"] * 4, completions=PLAIN, **columns)
    # AC; the static analyser's O(1) is not trusted to pay R_time.
    assert totals[0] == totals[3] and totals[0] == 1.0
    assert totals[1] == 0.0  # WA
    parts = reward.components()
    assert [part.__name__ for part in parts] == ["judge_format", "judge_correctness", "judge_time"]
    sent: list[int] = []
    original = reward.client.judge
    reward.client.judge = lambda items, options=None, on_batch=None: (  # type: ignore[method-assign]
        sent.append(len(list(items))) or original(items, options)
    )
    values = [part(prompts=["p"] * 4, completions=PLAIN, **columns) for part in parts]
    assert sent == []  # the memo held every result of this batch
    for index in range(4):
        parts_sum = sum(v[index] for v in values if v[index] is not None)
        assert math.isclose(parts_sum, totals[index] or 0.0)
    assert values[1][0] == 1.0 and values[1][1] == 0.0 and values[2][0] == 0.0


def test_async_reward_conversational_completions_and_inline_problems(service: ApiServer) -> None:
    reward = AsyncJudgeReward(service.url, language="python")
    completions = [[{"role": "assistant", "content": text}] for text in PLAIN[:2]]
    inline = {**SUM_PROBLEM, "id": "sum-inline-trl"}
    values = asyncio.run(
        reward(
            prompts=[[{"role": "user", "content": "sum"}]] * 2,
            completions=completions,
            problem=[inline, inline],
        )
    )
    assert values[0] is not None and values[0] == 1.0 and values[1] == 0.0


def test_a_system_error_is_none_for_sync_async_and_components(broken_service: ApiServer) -> None:
    columns = {"problem_id": ["sum", "sum"]}
    sync = JudgeReward(broken_service.url)
    assert sync(prompts=["p", "p"], completions=PLAIN[:2], **columns) == [None, None]
    assert [
        part(prompts=["p"], completions=PLAIN[:1], problem_id=["sum"]) for part in sync.components()
    ] == [[None]] * 3
    asynchronous = AsyncJudgeReward(broken_service.url)
    assert asyncio.run(asynchronous(prompts=["p", "p"], completions=PLAIN[:2], **columns)) == [
        None,
        None,
    ]
    down = JudgeReward(JudgeClient("http://127.0.0.1:9", retry=RetryPolicy(1, 0.01)))
    assert down(prompts=["p"], completions=PLAIN[:1], problem_id=["sum"]) == [None]


def _train_one_step(
    tmp_path: Path, reward_funcs: list[object], conversational: bool
) -> list[dict[str, float]]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    model, tokenizer = tiny_model_and_tokenizer()
    text = "Read two integers and print their sum."
    prompt: object = [{"role": "user", "content": text}] if conversational else text
    dataset = Dataset.from_list([{"prompt": prompt, "problem_id": "sum"}] * 4)
    config = GRPOConfig(
        output_dir=str(tmp_path / "grpo"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=12,
        max_steps=1,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        bf16=False,
        save_strategy="no",
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=reward_funcs,
        args=config,
        train_dataset=dataset,
    )
    trainer.train()
    return list(trainer.state.log_history)


def test_grpo_trainer_step_with_the_judge_as_reward(service: ApiServer, tmp_path: Path) -> None:
    reward = JudgeReward(service.url)
    history = _train_one_step(tmp_path, reward.components(), conversational=False)
    logged = history[0]
    for name in ("judge_format", "judge_correctness", "judge_time"):
        value = logged[f"rewards/{name}/mean"]
        assert not math.isnan(value), logged  # NaN would mean the judge gave no reward
    assert logged["rewards/judge_correctness/mean"] == 0.0  # random weights write no program
    assert len(reward.memo._items) >= 1  # the service judged the step's completions


def test_grpo_trainer_step_with_the_async_reward_and_chat_prompts(
    service: ApiServer, tmp_path: Path
) -> None:
    reward = AsyncJudgeReward(service.url)
    history = _train_one_step(tmp_path, [reward], conversational=True)
    assert not math.isnan(history[0]["rewards/judge_reward/mean"]), history[0]
    assert len(reward.memo._items) >= 1
