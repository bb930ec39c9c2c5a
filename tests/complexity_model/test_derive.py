"""Input generators derived from a problem's tests: structure, growth, properties, validation."""

from __future__ import annotations

import random
from typing import Any

import pytest

from complexity_model.derive import derive_spec, generator_source
from complexity_model.derive.judge import DerivingJudge, derive_problem
from complexity_model.empirical import Measurement, Point, choose_class
from complexity_model.ladder import ComplexityEstimate
from complexity_model.problem import ComplexityProblem, ReferenceSolution


def _generate(spec: dict[str, Any], n: int, seed: int = 0) -> Any:
    namespace: dict[str, Any] = {}
    exec(generator_source(spec), namespace)
    random.seed(seed)
    return namespace["generate"](n)


def _stdin(*inputs: str) -> dict[str, Any]:
    spec = derive_spec("stdin", [{"input": text, "output": ""} for text in inputs])
    assert spec is not None
    return spec


def _lines(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_a_count_then_that_many_items_grows_to_n() -> None:
    spec = _stdin("3\n5 1 4\n", "5\n9 2 6 5 3\n", "1\n7\n")
    lines = _lines(_generate(spec, 40))
    assert lines[0] == ["40"] and len(lines[1]) == 40 and len(lines) == 2
    # Values no larger than a few times their list's length grow with it (9 at length 5).
    assert all(1 <= int(x) <= 1 + 8 * 40 // 5 for x in lines[1])
    wide = _stdin("3\n500000 1 4\n", "5\n999999999 2 6 5 3\n")
    assert all(1 <= int(x) <= 999999999 for x in _lines(_generate(wide, 40))[1])
    negative = _stdin("3\n-5 1 4\n", "5\n9 -2 6 5 3\n")
    assert all(-5 <= int(x) <= 9 for x in _lines(_generate(negative, 400))[1])


def test_several_test_cases_become_one_case_of_size_n() -> None:
    spec = _stdin("2\n3\n1 2 3\n2\n5 5\n", "1\n4\n4 3 2 1\n", "3\n1\n9\n2\n1 1\n3\n2 2 2\n")
    assert [node["node"] for node in spec["nodes"]] == ["line", "repeat"]
    lines = _lines(_generate(spec, 30))
    assert lines[0] == ["1"] and lines[1] == ["30"] and len(lines[2]) == 30 and len(lines) == 3


def test_a_grid_of_characters_grows_both_ways_with_its_alphabet() -> None:
    spec = _stdin("2 3\n#.#\n..#\n", "3 2\n..\n#.\n##\n", "1 4\n.#..\n")
    lines = _generate(spec, 12).split("\n")
    assert lines[0] == "12 12"
    rows = [line for line in lines[1:] if line]
    assert len(rows) == 12 and all(len(row) == 12 and set(row) <= {"#", "."} for row in rows)


def test_edges_stay_within_the_vertex_count() -> None:
    spec = _stdin(
        "4 3\n1 2\n2 3\n3 4\n",
        "5 4\n1 5\n2 5\n3 1\n4 2\n",
        "3 3\n1 2\n2 3\n1 3\n",
        "6 2\n6 1\n5 4\n",
    )
    lines = _lines(_generate(spec, 200))
    n, m = map(int, lines[0])
    assert (n, m) == (200, 200) and len(lines) == 1 + m
    assert all(1 <= int(v) <= n for line in lines[1:] for v in line)
    assert any(int(v) > 10 for line in lines[1:] for v in line)  # widened with n


def test_a_bound_below_a_count_keeps_its_ratio() -> None:
    spec = _stdin("6 3\n1 2 3 4 5 6\n", "8 8\n8 7 6 5 4 3 2 1\n", "5 1\n3 3 3 3 3\n")
    # Read once per input: one ratio (the median seen) at every n, so times grow as one curve.
    for seed in range(5):
        n, k = map(int, _lines(_generate(spec, 1000, seed))[0])
        assert (n, k) == (1000, 500)
    window = _stdin("6 3\n1 5 2 8 1 1\n", "5 2\n4 4 1 9 9\n", "4 4\n1 2 3 4\n")
    for n in (1, 2, 3):  # the smallest k seen is 2, yet k <= n holds
        first = _lines(_generate(window, n))[0]
        assert int(first[1]) <= int(first[0]) == n


def test_a_string_grows_and_stays_a_palindrome_when_every_test_is_one() -> None:
    spec = _stdin("abba\n", "racecar\n", "noon\n", "level\n")
    text = _generate(spec, 101).strip()
    assert len(text) == 101 and text == text[::-1] and set(text) <= set("abcelnorv")
    plain = _stdin("abc\n", "hello\n", "zz\n")
    assert "palindrome" not in plain["nodes"][0]["value"]


def test_an_input_that_is_n_itself_grows() -> None:
    spec = _stdin("5\n", "12\n", "7\n")
    assert _generate(spec, 4096) == "4096\n"


def test_nothing_that_grows_is_no_generator() -> None:
    assert derive_spec("stdin", [{"input": "3 4\n"}, {"input": "3 4\n"}]) is None
    assert derive_spec("function", [{"args": ["abc", 1]}, {"args": ["abc", 1]}]) is None
    assert derive_spec("assert", [{"code": "assert f(1) == 2"}]) is None


def _function(*calls: list[Any]) -> dict[str, Any]:
    spec = derive_spec("function", [{"args": args, "expected": None} for args in calls])
    assert spec is not None
    return spec


def test_a_sorted_list_and_a_target_above_it_keep_their_relation() -> None:
    spec = _function([[1, 4, 9, 12], 20], [[0, 2, 3, 5, 8, 13, 21], 30], [[2, 3, 7], 9])
    xs, target = _generate(spec, 500)
    assert len(xs) == 500 and xs == sorted(xs) and target > max(xs)


def test_permutations_square_matrices_and_words_keep_their_shape() -> None:
    perm = _function([[2, 0, 1]], [[3, 1, 0, 4, 2]], [[0, 1]], [[1, 0, 3, 2]])
    (xs,) = _generate(perm, 300)
    assert sorted(xs) == list(range(300))
    matrix = _function([[[1, 2], [3, 4]]], [[[1, 0, 2], [0, 1, 2], [5, 5, 5]]])
    (rows,) = _generate(matrix, 20)
    assert len(rows) == 20 and all(len(row) == 20 for row in rows)
    words = _function([["cat", "dog", "bird"]], [["a", "bb"]], [["hello", "x", "yy", "zzz"]])
    (items,) = _generate(words, 100)
    assert len(items) == 100 and max(len(w) for w in items) <= 5


def test_an_integer_alone_is_the_size_and_beside_a_list_an_index_or_length() -> None:
    assert _generate(_function([3], [10], [7]), 999) == [999]
    spec = _function([[5, 1, 4], 3], [[9, 9, 9, 9, 2], 5], [[1], 1])
    xs, length = _generate(spec, 64)
    assert len(xs) == 64 and length == 64
    spec = _function([[5, 1, 4], 1], [[9, 9, 9, 9, 2], 0], [[1, 7], 1], [[3, 3, 3], 2])
    xs, index = _generate(spec, 64)
    assert 0 <= index < 64


def test_dicts_grow_with_distinct_keys() -> None:
    spec = _function([{"a": 1, "b": 2}], [{"x": 3}], [{"p": 1, "q": 1, "r": 5}])
    (mapping,) = _generate(spec, 50)
    assert len(mapping) == 50 and all(isinstance(v, int) for v in mapping.values())


def test_the_source_is_deterministic_under_the_drivers_seed() -> None:
    spec = _stdin("3\n5 1 4\n", "5\n9 2 6 5 3\n")
    assert _generate(spec, 77, seed=77) == _generate(spec, 77, seed=77)
    assert _generate(spec, 77, seed=77) != _generate(spec, 77, seed=78)


class _Reference:
    """An empirical judge whose reference crashes on the first input drawn at n = 8."""

    def __init__(self, fail_sizes: list[int]) -> None:
        self.fail_sizes = fail_sizes
        self.reason = "RE"
        self.generators: list[str] = []

    def reference(self, problem: ComplexityProblem, answers_only: bool = False) -> Measurement:
        self.generators.append(problem.input_generator or "")
        points = [Point(n, 1e-6 * n) for n in range(1, 9)]
        measured = Measurement(points, choose_class(points))
        if self.fail_sizes:
            return measured.failed(f"the program failed: at n = {self.fail_sizes.pop(0)}: RE")
        if self.reason != "RE":
            return measured.failed(f"the program failed: at n = 9: {self.reason}")
        return measured

    def estimate(
        self, code: str, language: str, problem: ComplexityProblem | None = None
    ) -> ComplexityEstimate:
        assert problem is not None and problem.input_generator
        return ComplexityEstimate("O(n)", 0.9, "empirical", {"sizes": [1, 2]})


def _problem(**changes: Any) -> ComplexityProblem:
    fields: dict[str, Any] = {
        "id": "p",
        "tests": [{"input": "3\n1 2 3\n", "output": "6"}, {"input": "2\n5 5\n", "output": "10"}],
        "reference": ReferenceSolution(language="python", code="print(1)"),
    }
    return ComplexityProblem(**{**fields, **changes})


def test_an_input_the_reference_refuses_is_drawn_again_and_said() -> None:
    fake = _Reference([8])
    derived = derive_problem(_problem(), fake)  # type: ignore[arg-type]
    assert derived.problem is not None and derived.discarded == [8]
    assert '"reseed":{"8":1}' in (derived.problem.input_generator or "")
    assert len(fake.generators) == 2
    refused = derive_problem(_problem(), _Reference([8, 8]))  # type: ignore[arg-type]
    assert refused.problem is None and "refused" in refused.reason
    slow = _Reference([])
    slow.reason = "the run gave no result in 2.5 s of wall time"
    timed_out = derive_problem(_problem(), slow)  # type: ignore[arg-type]
    assert timed_out.problem is not None and timed_out.discarded == []
    assert "wall time" in timed_out.reason


def test_the_judge_shows_the_derived_generator_and_an_authors_still_wins() -> None:
    judge = DerivingJudge(_Reference([]))  # type: ignore[arg-type]
    estimate = judge.estimate("print(1)", "python", _problem())
    generator = estimate.evidence["generator"]
    assert generator["derived"] is True and "def generate(" in generator["source"]
    assert generator["spec"]["mode"] == "stdin"
    authored = judge.estimate("print(1)", "python", _problem(input_generator="def generate(n): 1"))
    assert "generator" not in authored.evidence
    bare = judge.estimate("x", "python", _problem(tests=[{"input": "1 2\n"}, {"input": "1 2\n"}]))
    assert bare.predicted == "unknown" and "grows" in bare.evidence["reason"]


@pytest.mark.parametrize("mode", ["stdin", "function"])
def test_a_problem_without_tests_gets_no_generator(mode: str) -> None:
    assert derive_spec(mode, []) is None


def test_queries_keep_their_order_within_the_array() -> None:
    spec = _stdin(
        "5 3\n1 2 3 4 5\n1 3\n2 5\n4 4\n",
        "4 2\n9 9 9 9\n1 4\n2 3\n",
        "6 4\n1 1 1 1 1 1\n3 6\n1 1\n2 4\n5 6\n",
    )
    for seed in range(5):
        lines = _lines(_generate(spec, 300, seed))
        n, q = map(int, lines[0])
        assert (n, q, len(lines[1]), len(lines)) == (300, 300, 300, 302)
        assert all(1 <= int(lo) <= int(hi) <= n for lo, hi in lines[2:])
