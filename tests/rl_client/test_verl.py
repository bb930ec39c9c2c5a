"""verl's custom reward function, called as verl's reward managers call it, against the live
service: the naive/prime form (one sample, positional or keyword) and the batch form."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rl_client import verl
from tests.api._cluster import ApiServer
from tests.rl_client.conftest import SUM_OK, SUM_PROBLEM, SUM_WRONG, fenced

pytestmark = pytest.mark.integration


def test_compute_score_single_sample_forms(service: ApiServer) -> None:
    kwargs = {"judge_url": service.url}  # verl passes custom_reward_function.reward_kwargs
    # The prime manager passes the four positionally; the naive one by keyword.
    good = verl.compute_score("code", fenced(SUM_OK), "sum", None, **kwargs)
    wrong = verl.compute_score(
        data_source="code",
        solution_str=fenced(SUM_WRONG),
        ground_truth="sum",
        extra_info={"index": 3},
        **kwargs,
    )
    inline = verl.compute_score(
        "code",
        fenced(SUM_OK),
        json.dumps({"problem": {**SUM_PROBLEM, "id": "sum-verl"}, "language": "python"}),
        **kwargs,
    )
    assert good is not None and good["score"] >= 1.0 and good["accepted"] == 1.0
    assert good["pass_rate"] == 1.0 and good["time"] == 0.0  # a static guess pays no R_time
    assert wrong is not None and wrong["score"] == 0.0 and wrong["accepted"] == 0.0
    assert inline is not None and inline["score"] == good["score"]


def test_compute_score_batch_sends_one_request_per_batch(
    service: ApiServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    solutions = [fenced(SUM_OK if i % 2 else SUM_WRONG) for i in range(10)]
    client = verl._client(service.url, None)
    paths: list[str] = []
    original = client.request

    def counting(method: str, path: str, body: object = None) -> object:
        paths.append(path)
        return original(method, path, body)

    monkeypatch.setattr(client, "request", counting)
    # The batch manager passes numpy object arrays of the non-tensor batch.
    scores = verl.compute_score_batch(
        data_sources=np.array(["code"] * 10, dtype=object),
        solution_strs=np.array(solutions, dtype=object),
        ground_truths=np.array(["sum"] * 10, dtype=object),
        extra_infos=np.array([{"language": "python"}] * 10, dtype=object),
        judge_url=service.url,
    )
    assert paths == ["/v1/judge"]
    assert [s["accepted"] for s in scores if s is not None] == [float(i % 2) for i in range(10)]


def test_a_system_error_is_none_unless_a_substitute_is_given(broken_service: ApiServer) -> None:
    url = broken_service.url
    assert verl.compute_score("code", fenced(SUM_OK), "sum", judge_url=url) is None
    assert verl.compute_score_batch(
        ["code"] * 2, [fenced(SUM_OK)] * 2, ["sum"] * 2, judge_url=url
    ) == [None, None]
    substituted = verl.compute_score(
        "code", fenced(SUM_OK), "sum", judge_url=url, system_error_score=0.0
    )
    assert substituted is not None and substituted["score"] == 0.0
