"""Output checkers: compare a program's output with the expected one.

Standard library only: this module is sent into every sandbox as part of the agent, so that
expected outputs never leave the sandbox's judging process, and it is imported on the host by
the unit tests. Every checker takes bytes and returns ``(accepted, message)``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from judge_service.sandbox.agent import streams

CHECKER_KINDS = ("exact", "tokens", "float", "case_insensitive", "lines", "custom")


def check_exact(actual: bytes, expected: bytes) -> tuple[bool, str]:
    if actual == expected:
        return True, ""
    return False, _first_difference(actual, expected)


def check_tokens(actual: bytes, expected: bytes) -> tuple[bool, str]:
    return _compare_tokens(actual, expected, None)


def check_case_insensitive(actual: bytes, expected: bytes) -> tuple[bool, str]:
    return _compare_tokens(actual.lower(), expected.lower(), None)


def check_lines(actual: bytes, expected: bytes, rel_tol: float = 1e-5) -> tuple[bool, str]:
    """SandboxFusion's stdio comparison: both outputs stripped and split into lines, as many
    lines on each side, each pair equal once lower-cased and stripped, or both numbers within
    ``rel_tol`` of the expected one (relative, with a floor of 1e-10 on the divisor)."""

    def same(got: bytes, want: bytes) -> bool:
        return _same_line(got, want, rel_tol)

    got = streams.Items(actual, lines=True, **_bounds(actual))
    want = streams.Items(expected, lines=True, **_bounds(expected))
    return streams.compare(got, want, same, "line")


def check_float(
    actual: bytes, expected: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6
) -> tuple[bool, str]:
    def same(got: bytes, want: bytes) -> bool:
        got_number, want_number = _as_float(got), _as_float(want)
        if got_number is None or want_number is None:
            return False
        return numbers_close(got_number, want_number, abs_tol, rel_tol)

    return _compare_tokens(actual, expected, same)


def numbers_close(got: float, want: float, abs_tol: float, rel_tol: float) -> bool:
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= max(abs_tol, rel_tol * abs(want))


def check_output(
    kind: str, actual: bytes, expected: bytes, options: Mapping[str, Any]
) -> tuple[bool, str]:
    """Dispatch on a built-in checker kind (``custom`` is run by the agent, not here)."""
    if kind == "exact":
        return check_exact(actual, expected)
    if kind == "tokens":
        return check_tokens(actual, expected)
    if kind == "case_insensitive":
        return check_case_insensitive(actual, expected)
    if kind == "lines":
        return check_lines(actual, expected, float(options.get("rel_tol", 1e-5)))
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
    except (ValueError, OverflowError):
        return None


def _compare_tokens(actual: bytes, expected: bytes, same: streams.Same | None) -> tuple[bool, str]:
    got, want = streams.Items(actual, lines=False), streams.Items(expected, lines=False)
    return streams.compare(got, want, same, "token")


def _bounds(data: bytes) -> dict[str, int]:
    start, end = streams.stripped_range(data)
    return {"start": start, "end": end}


def _same_line(got: bytes, want: bytes, rel_tol: float) -> bool:
    got_text = got.decode("utf-8", "replace").lower().strip()
    want_text = want.decode("utf-8", "replace").lower().strip()
    if got_text == want_text:
        return True
    got_number, want_number = _as_float(got), _as_float(want)
    if got_number is None or want_number is None:
        return False
    try:
        return abs(got_number - want_number) / max(abs(want_number), 1e-10) < rel_tol
    except (OverflowError, ValueError):
        return False


def _first_difference(actual: bytes, expected: bytes) -> str:
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        if got != want:
            return f"byte {index}: expected {bytes([want])!r}, got {bytes([got])!r}"
    return f"expected {len(expected)} bytes, got {len(actual)}"
