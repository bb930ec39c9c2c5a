"""Plain data across the trust boundary: conversion, wire form and bounded decoding."""

from __future__ import annotations

import sys
from collections import Counter, OrderedDict, namedtuple

import pytest

from judge_service.sandbox.agent import plain


class LyingInt(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__

    def __index__(self) -> int:
        return 99


class LyingList(list[int]):
    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter([1, 2, 3])

    def __eq__(self, other: object) -> bool:
        return True


class ClaimsToBeInt:
    __class__ = property(lambda self: int)  # type: ignore[assignment]


def test_subclasses_become_their_builtin_value_through_the_builtin_methods() -> None:
    value = plain.to_plain(LyingInt(5))
    assert type(value) is int and value == 5 and value != 6
    items = plain.to_plain(LyingList([7]))
    assert type(items) is list and items == [7]
    assert plain.to_plain(Counter("aab")) == {"a": 2, "b": 1}
    assert type(plain.to_plain(OrderedDict(a=1))) is dict
    point = namedtuple("point", "x y")(1, 2)
    assert type(plain.to_plain(point)) is tuple


@pytest.mark.parametrize(
    "value",
    [ClaimsToBeInt(), object(), lambda: 1, (x for x in ()), [1, [2, object()]]],
    ids=["class-property", "object", "function", "generator", "nested"],
)
def test_values_that_are_not_plain_data_are_refused(value: object) -> None:
    with pytest.raises(plain.NotPlainData):
        plain.to_plain(value)


def test_round_trip_keeps_tuples_sets_dicts_with_any_keys_and_bytes() -> None:
    value = {
        (1, "a"): [1.5, None, True, {2, 3}, frozenset({4})],
        "s": b"\x00\xff",
        "big": 7**9000,
    }
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert plain.decode(plain.encode(value)) == value
    finally:
        sys.set_int_max_str_digits(previous)


@pytest.mark.parametrize(
    "data",
    [b'{"a": 1}', b'{"tuple": 1}', b'{"dict": [[1]]}', b'{"set": [[1]]}', b"[1,", b"\xff"],
    ids=["untagged-object", "tuple-not-list", "bad-pair", "unhashable", "truncated", "not-utf8"],
)
def test_malformed_messages_are_decode_errors(data: bytes) -> None:
    with pytest.raises(plain.DecodeError):
        plain.decode(data)


def test_deep_nesting_is_refused_even_with_a_raised_recursion_limit() -> None:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(100000)  # as the agent runs
    try:
        with pytest.raises(plain.DecodeError, match="deeper"):
            plain.loads_bounded(b"[" * 300000 + b"]" * 300000)
        assert sys.getrecursionlimit() == 100000
        assert plain.loads_bounded(b"[" * 500 + b"]" * 500) is not None
    finally:
        sys.setrecursionlimit(previous)


def test_oversized_messages_are_refused() -> None:
    with pytest.raises(plain.DecodeError, match="exceeds"):
        plain.decode(b"[" + b"1," * 100 + b"1]", max_bytes=50)
