"""Rollouts from vLLM on the same GPU, its weights reloaded from the policy after each update.

Untested here: no machine this was written on had vLLM. The weight copy uses vLLM's in-process
engine (``llm_engine.model_executor.driver_worker.model_runner.model.load_weights``), which
moves between vLLM versions; when it is missing this raises rather than sample a stale
policy."""

from __future__ import annotations

import importlib.util
from typing import Any

from rl_client._local_model import LocalPolicy, Prompt
from rl_client.grpo.rollout import Group

__all__ = ["VllmRollout", "vllm_available"]


def vllm_available() -> bool:
    if importlib.util.find_spec("vllm") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


class VllmRollout:
    def __init__(self, policy: LocalPolicy, model_dir: str, max_new_tokens: int) -> None:
        from vllm import LLM

        self.policy, self.max_new_tokens = policy, max_new_tokens
        self.llm: Any = LLM(model=model_dir, gpu_memory_utilization=0.3)

    def sample(self, prompt: Prompt, n: int, temperature: float, top_p: float) -> Group:
        from vllm import SamplingParams, TokensPrompt

        ids = self.policy.prompt_ids(prompt)
        params = SamplingParams(
            n=n, temperature=temperature, top_p=top_p, max_tokens=self.max_new_tokens
        )
        (output,) = self.llm.generate([TokensPrompt(prompt_token_ids=ids)], params, use_tqdm=False)
        rows, texts = [], []
        for choice in output.outputs:
            tokens = [int(t) for t in choice.token_ids]
            rows.append(tokens)
            stop = tokens[:-1] if tokens and tokens[-1] in self.policy.stop_ids else tokens
            texts.append(self.policy.tokenizer.decode(stop, skip_special_tokens=True))
        return Group(ids, rows, texts)

    def sync_weights(self) -> None:
        engine = self.llm.llm_engine
        try:
            model = engine.model_executor.driver_worker.model_runner.model
        except AttributeError as error:
            raise RuntimeError(
                "this vLLM version hides its model from the process; use "
                "rollout_backend=transformers"
            ) from error
        model.load_weights(self.policy.model.state_dict().items())
