"""Output checkers: compare a program's output with the expected one.

Standard library only: this module is sent into every sandbox as part of the agent, so that
expected outputs never leave the sandbox's judging process, and it is imported on the host by
the unit tests. Every checker takes bytes and returns ``(accepted, message)``.
"""

from __future__ import annotations

import json
import math
from typing import Any

CHECKER_KINDS = ("exact", "tokens", "float", "case_insensitive", "custom")


def check_exact(actual: bytes, expected: bytes) -> tuple[bool, str]:
    if actual == expected:
        return True, ""
    return False, _first_difference(actual, expected)


def check_tokens(actual: bytes, expected: bytes) -> tuple[bool, str]:
    return _compare_tokens(actual.split(), expected.split(), _same_token)


def check_case_insensitive(actual: bytes, expected: bytes) -> tuple[bool, str]:
    return _compare_tokens(actual.lower().split(), expected.lower().split(), _same_token)


def check_float(
    actual: bytes, expected: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6
) -> tuple[bool, str]:
    def same(got: bytes, want: bytes) -> bool:
        if got == want:
            return True
        got_number, want_number = _as_float(got), _as_float(want)
        if got_number is None or want_number is None:
            return False
        return numbers_close(got_number, want_number, abs_tol, rel_tol)

    return _compare_tokens(actual.split(), expected.split(), same)


def numbers_close(got: float, want: float, abs_tol: float, rel_tol: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= max(abs_tol, rel_tol * abs(want))


def check_output(
    kind: str, actual: bytes, expected: bytes, options: dict[str, Any]
) -> tuple[bool, str]:
    """Dispatch on a built-in checker kind (``custom`` is run by the agent, not here)."""
    if kind == "exact":
        return check_exact(actual, expected)
    if kind == "tokens":
        return check_tokens(actual, expected)
    if kind == "case_insensitive":
        return check_case_insensitive(actual, expected)
    if kind == "float":
        return check_float(
            actual,
            expected,
            float(options.get("abs_tol", 1e-6)),
            float(options.get("rel_tol", 1e-6)),
        )
    raise ValueError(f"unknown checker kind {kind!r}")


def json_values_equal(
    got: Any,
    want: Any,
    abs_tol: float = 1e-6,
    rel_tol: float = 1e-6,
    *,
    numbers_as_floats: bool = False,
) -> bool:
    """Compare two decoded JSON values as strictly as their types are declared.

    Booleans equal only booleans; an expected integer needs the same integer (``1.0`` or
    ``1000000000.0`` for ``1000000007`` is wrong); tolerance applies only where the expected
    value is a float (where an integer answer is a number like any other, since JavaScript
    writes ``2.0`` as ``2``) or where ``numbers_as_floats`` (the float checker) says so.
    """
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, float) or numbers_as_floats:
            try:
                return numbers_close(float(got), float(want), abs_tol, rel_tol)
            except OverflowError:  # an integer beyond any float
                return False
        return isinstance(got, int) and got == want
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(
            json_values_equal(g, w, abs_tol, rel_tol, numbers_as_floats=numbers_as_floats)
            for g, w in zip(got, want, strict=True)
        )
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(
            json_values_equal(
                got[key], want[key], abs_tol, rel_tol, numbers_as_floats=numbers_as_floats
            )
            for key in want
        )
    return type(got) is type(want) and bool(got == want)


def short_json(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _as_float(token: bytes) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


def _same_token(got: bytes, want: bytes) -> bool:
    return got == want


def _compare_tokens(
    got_tokens: list[bytes], want_tokens: list[bytes], same: Any
) -> tuple[bool, str]:
    for index, (got, want) in enumerate(zip(got_tokens, want_tokens, strict=False)):
        if not same(got, want):
            return False, f"token {index + 1}: expected {_show(want)}, got {_show(got)}"
    if len(got_tokens) != len(want_tokens):
        return False, f"expected {len(want_tokens)} tokens, got {len(got_tokens)}"
    return True, ""


def _first_difference(actual: bytes, expected: bytes) -> str:
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        if got != want:
            return f"byte {index}: expected {bytes([want])!r}, got {bytes([got])!r}"
    return f"expected {len(expected)} bytes, got {len(actual)}"


def _show(token: bytes, limit: int = 40) -> str:
    text = token.decode("utf-8", "replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")
