"""InlineProblems: bounded by bytes, least recently used out first; problem_hash's contract."""

from __future__ import annotations

import hashlib

from judge_service._inline_problems import InlineProblems, problem_hash
from judge_service.schemas import Problem


def _problem(name: str) -> Problem:
    return Problem.model_validate({"id": name, "tests": [{"input": "", "output": name}]})


def test_the_hash_is_sha256_of_sorted_compact_ascii_json() -> None:
    raw = {"tests": [{"output": "é", "input": ""}], "id": "p"}
    expected = '{"id":"p","tests":[{"input":"","output":"\\u00e9"}]}'
    assert problem_hash(raw) == (hashlib.sha256(expected.encode()).hexdigest(), len(expected))
    assert problem_hash({"id": "p", "x": 1})[0] != problem_hash({"id": "p", "x": 1.0})[0]  # type: ignore[index]


def test_json_too_deep_to_serialise_has_no_hash() -> None:
    deep: list[object] = []
    for _ in range(100_000):
        deep = [deep]
    assert problem_hash({"id": "p", "tests": deep}) is None


def test_the_least_recently_used_problem_goes_first() -> None:
    kept = InlineProblems(max_bytes=100)
    for name in "abc":
        kept.put(name, _problem(name), "v" + name, 40)
    assert kept.get("a") is None and len(kept) == 2
    assert kept.get("b") == (_problem("b"), "vb")  # b is now the most recent
    kept.put("d", _problem("d"), "vd", 40)
    assert kept.get("c") is None and kept.get("b") is not None and kept.get("d") is not None


def test_a_problem_larger_than_the_bound_is_not_kept() -> None:
    kept = InlineProblems(max_bytes=100)
    kept.put("a", _problem("a"), "va", 60)
    kept.put("big", _problem("big"), "vbig", 101)
    assert kept.get("big") is None and kept.get("a") is not None


def test_putting_a_key_again_does_not_count_it_twice() -> None:
    kept = InlineProblems(max_bytes=100)
    for _ in range(5):
        kept.put("a", _problem("a"), "va", 60)
    kept.put("b", _problem("b"), "vb", 40)
    assert kept.get("a") is not None and kept.get("b") is not None


def test_expand_inlines_known_names_once_and_leaves_the_rest() -> None:
    kept = InlineProblems(max_bytes=1 << 20)
    kept.put("h", _problem("a"), "va", 10)
    items = [{"problem_hash": "h", "code": "1"}, {"problem_hash": "h"}, {"problem_hash": "x"}, 7]
    first, second, unknown, other = kept.expand(items)
    assert first == {"code": "1", "problem": _problem("a").model_dump(mode="json")}
    assert second["problem"] is first["problem"]  # one copy however often named
    assert unknown == {"problem_hash": "x"} and other == 7
