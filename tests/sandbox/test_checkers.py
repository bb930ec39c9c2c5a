"""Unit tests of the output checkers (the module the agent runs inside every sandbox)."""

from __future__ import annotations

import math

import pytest

from judge_service.sandbox.agent import checkers


@pytest.mark.parametrize(
    ("kind", "actual", "expected", "accepted"),
    [
        ("exact", b"3\n", b"3\n", True),
        ("exact", b"3 \n", b"3\n", False),
        ("tokens", b"  1   2\n\n3 ", b"1 2 3", True),
        ("tokens", b"1 2", b"1 2 3", False),
        ("tokens", b"1 2 3 4", b"1 2 3", False),
        ("case_insensitive", b"YES", b"yes", True),
        ("case_insensitive", b"YES", b"no", False),
        ("float", b"0.3333333", b"0.33333333", True),
        ("float", b"0.334", b"0.333", False),
        ("float", b"1e9", b"1000000001", True),  # within relative 1e-6
        ("float", b"abc 1.0", b"abc 1.0000001", True),
        ("float", b"abd 1.0", b"abc 1.0", False),
        ("float", b"nan", b"nan", True),
        ("float", b"inf", b"1e308", False),
    ],
)
def test_builtin_checkers(kind: str, actual: bytes, expected: bytes, accepted: bool) -> None:
    ok, message = checkers.check_output(kind, actual, expected, {})
    assert ok is accepted
    assert (message == "") is accepted


def test_float_tolerance_options() -> None:
    assert checkers.check_float(b"1.01", b"1.0", abs_tol=0.02, rel_tol=0)[0]
    assert not checkers.check_float(b"1.03", b"1.0", abs_tol=0.02, rel_tol=0)[0]
    assert checkers.check_float(b"105", b"100", abs_tol=0, rel_tol=0.05)[0]


def test_messages_say_where_output_differs() -> None:
    assert checkers.check_tokens(b"1 2 4", b"1 2 3")[1] == "token 3: expected '3', got '4'"
    assert checkers.check_tokens(b"1", b"1 2")[1] == "expected 2 tokens, got 1"
    assert "byte 1" in checkers.check_exact(b"ab", b"ac")[1]


def test_invalid_utf8_and_nul_bytes_do_not_break_checking() -> None:
    ok, message = checkers.check_tokens(b"\xff\x00", b"x")
    assert not ok and "\ufffd" in message


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown checker"):
        checkers.check_output("fuzzy", b"", b"", {})


@pytest.mark.parametrize(
    ("got", "want", "equal"),
    [
        ([1, 2], [1, 2], True),
        ([1, 2], [2, 1], False),
        ({"a": 0.1 + 0.2}, {"a": 0.3}, True),
        (1, 1.0, True),
        (True, 1, False),
        (None, None, True),
        ("a", "a", True),
        ([[1.0000001]], [[1.0]], True),
        ([1], [1, 1], False),
        ({"a": 1}, {"b": 1}, False),
        (math.inf, math.inf, True),
        # An expected integer takes only that integer: no float tolerance, no bools.
        (1.0, 1, False),
        (1000000000.0, 1000000007, False),
        ([1, 2.0000001], [1, 2], False),
        ({"n": 1.0}, {"n": 1}, False),
        (1, True, False),
        (10**400, 1.0, False),
    ],
)
def test_json_values_equal(got: object, want: object, equal: bool) -> None:
    assert checkers.json_values_equal(got, want) is equal


def test_json_values_equal_float_checker_compares_integers_with_tolerance() -> None:
    assert checkers.json_values_equal(1000000000.0, 1000000001, numbers_as_floats=True)
    assert not checkers.json_values_equal(1000000000.0, 1000000007, 0, 0, numbers_as_floats=True)
    assert not checkers.json_values_equal(True, 1, numbers_as_floats=True)
