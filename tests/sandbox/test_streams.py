"""Batched tokens and lines: the same answers as splitting at once, at any chunk size."""

from __future__ import annotations

import random

import pytest

from judge_service.sandbox.agent import checkers, streams

SAMPLES = [
    b"",
    b"   \n\t ",
    b"1 2 3",
    b"  a\tbb\n\nccc  \r\n dddd \x0b e\x0c",
    b"x" * 50 + b" " + b"y" * 7,
    b"line one\n\nline three  \n",
    b"\n\n1\n2\n\n",
]


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("data", SAMPLES)
def test_items_match_split_at_any_chunk_size(
    monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int
) -> None:
    monkeypatch.setattr(streams, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(streams, "BATCH", 2)
    tokens = streams.Items(data, lines=False)
    assert tokens.take(10**6) == data.split()
    start, end = streams.stripped_range(data)
    lines = streams.Items(data, lines=True, start=start, end=end)
    assert lines.take(10**6) == data.strip().split(b"\n")


def test_random_outputs_compare_like_the_plain_algorithm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "CHUNK_BYTES", 5)
    monkeypatch.setattr(streams, "BATCH", 3)
    rng = random.Random(7)
    for _ in range(300):
        want = b" ".join(rng.choice([b"1", b"22", b"a"]) for _ in range(rng.randint(0, 12)))
        got = bytearray(want)
        if got and rng.random() < 0.5:
            got[rng.randrange(len(got))] = ord(rng.choice("1 a\n"))
        accepted, _ = checkers.check_tokens(bytes(got), want)
        assert accepted is (bytes(got).split() == want.split())


def test_counts_and_first_difference_are_reported() -> None:
    assert checkers.check_tokens(b"1 2 3 4", b"1 2 3") == (False, "expected 3 tokens, got 4")
    assert checkers.check_tokens(b"1 2", b"1 2 3") == (False, "expected 3 tokens, got 2")
    accepted, message = checkers.check_lines(b"a\nb\nc", b"a\nX\nc")
    assert not accepted and message.startswith("line 2:")


def test_a_difference_at_the_end_of_a_huge_output_is_found() -> None:
    expected = b"1\n" * 30_000_000
    actual = expected[:-2] + b"2\n"
    for check in (checkers.check_tokens, checkers.check_lines):
        accepted, message = check(actual, expected)
        assert not accepted and "30000000" in message
