"""Reward functions for TRL's ``GRPOTrainer(reward_funcs=[...])``.

TRL calls each with ``prompts``, ``completions``, ``completion_ids`` and every dataset column
as keyword lists; these read the problem from a ``problem_id`` column (problems stored with
``client.problems.upsert``) or an inline ``problem`` column, and the language from a
``language`` column or the default. ``None`` marks a sample the judge failed on; TRL skips it.

    reward = JudgeReward("http://judge:8000")
    GRPOTrainer(..., reward_funcs=[reward])                 # the total reward
    GRPOTrainer(..., reward_funcs=reward.components())      # format, correctness, time: each
                                                            # logged, the service asked once
    GRPOTrainer(..., reward_funcs=[AsyncJudgeReward(...)])  # awaited on TRL's event loop
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Literal

from rl_client._rewarding import Component, ResultMemo, completion_text, problem_fields, value_of
from rl_client.aclient import AsyncJudgeClient
from rl_client.client import JudgeClient
from rl_client.errors import JudgeUnavailable
from rl_client.types import JudgeOptions, Result

__all__ = ["AsyncJudgeReward", "JudgeReward"]

logger = logging.getLogger("rl_client")


class _Reward:
    def __init__(
        self,
        *,
        component: Component,
        language: str,
        options: JudgeOptions | None,
        on_error: Literal["raise", "none"],
        name: str | None,
        memo: ResultMemo | None,
    ) -> None:
        self.component: Component = component
        self.language = language
        self.options = options
        self.on_error: Literal["raise", "none"] = on_error
        self.memo = memo or ResultMemo()
        # TRL names a callable by its __name__ in its logs.
        self.__name__ = name or ("judge_reward" if component == "total" else f"judge_{component}")

    def _submissions(
        self, completions: Sequence[Any], columns: dict[str, Any]
    ) -> list[dict[str, Any]]:
        ids, problems = columns.get("problem_id"), columns.get("problem")
        languages = columns.get("language")
        items = []
        for index, completion in enumerate(completions):
            item = {
                **problem_fields(
                    ids[index] if ids is not None else None,
                    problems[index] if problems is not None else None,
                ),
                "language": (languages[index] if languages is not None else None) or self.language,
                "completion": completion_text(completion),
            }
            items.append(item)
        return items

    def _missing(self, items: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
        keys = [ResultMemo.key(item) for item in items]
        wanted = {
            key: item for key, item in zip(keys, items, strict=True) if self.memo.get(key) is None
        }
        return keys, list(wanted.values())

    def _values(
        self, keys: list[str], fetched: list[Result] | None, asked: list[dict[str, Any]]
    ) -> list[float | None]:
        results: dict[str, Result] = {}
        if fetched is not None:
            for item, result in zip(asked, fetched, strict=True):
                key = ResultMemo.key(item)
                results[key] = result
                self.memo.put(key, result)
        values: list[float | None] = []
        for key in keys:
            found = results.get(key) or self.memo.get(key)
            values.append(None if found is None else value_of(found, self.component, self.on_error))
        return values


class JudgeReward(_Reward):
    """A synchronous TRL reward function backed by the judge service."""

    def __init__(
        self,
        client: JudgeClient | str = "http://127.0.0.1:8000",
        *,
        component: Component = "total",
        language: str = "python",
        options: JudgeOptions | None = None,
        on_error: Literal["raise", "none"] = "raise",
        name: str | None = None,
        memo: ResultMemo | None = None,
    ) -> None:
        super().__init__(
            component=component,
            language=language,
            options=options,
            on_error=on_error,
            name=name,
            memo=memo,
        )
        self.client = JudgeClient(client) if isinstance(client, str) else client

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Any = None,
        **columns: Any,
    ) -> list[float | None]:
        keys, asked = self._missing(self._submissions(completions, columns))
        fetched: list[Result] | None = None
        if asked:
            try:
                fetched = self.client.judge(asked, self.options)
            except JudgeUnavailable as error:
                logger.warning("judge unavailable, rewards None for this batch: %s", error)
        return self._values(keys, fetched, asked)

    def components(self) -> list[JudgeReward]:
        """One reward function per component (format, correctness, time), sharing this one's
        client and results: TRL logs each, and their sum is the total reward."""
        return [
            JudgeReward(
                self.client,
                component=part,
                language=self.language,
                options=self.options,
                on_error=self.on_error,
                memo=self.memo,
            )
            for part in ("format", "correctness", "time")
        ]


class AsyncJudgeReward(_Reward):
    """:class:`JudgeReward` as a coroutine function (TRL awaits it beside its other async
    reward functions)."""

    def __init__(
        self,
        client: AsyncJudgeClient | str = "http://127.0.0.1:8000",
        *,
        component: Component = "total",
        language: str = "python",
        options: JudgeOptions | None = None,
        on_error: Literal["raise", "none"] = "raise",
        name: str | None = None,
        memo: ResultMemo | None = None,
    ) -> None:
        super().__init__(
            component=component,
            language=language,
            options=options,
            on_error=on_error,
            name=name,
            memo=memo,
        )
        self.client = AsyncJudgeClient(client) if isinstance(client, str) else client

    async def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        completion_ids: Any = None,
        **columns: Any,
    ) -> list[float | None]:
        items = self._submissions(completions, columns)
        # Component functions run concurrently under TRL: the first to hold the lock asks the
        # service, the others find its results in the memo.
        async with self.memo.async_lock():
            keys, asked = self._missing(items)
            fetched: list[Result] | None = None
            if asked:
                try:
                    fetched = await self.client.judge(asked, self.options)
                except JudgeUnavailable as error:
                    logger.warning("judge unavailable, rewards None for this batch: %s", error)
            return self._values(keys, fetched, asked)

    def components(self) -> list[AsyncJudgeReward]:
        """Per-component functions sharing this one's client and results."""
        return [
            AsyncJudgeReward(
                self.client,
                component=part,
                language=self.language,
                options=self.options,
                on_error=self.on_error,
                memo=self.memo,
            )
            for part in ("format", "correctness", "time")
        ]
