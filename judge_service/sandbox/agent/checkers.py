"""Output checkers: compare a program's output with the expected one.

Standard library only: this module is sent into every sandbox as part of the agent, so that
expected outputs never leave the sandbox's judging process, and it is imported on the host by
the unit tests. Every checker takes bytes and returns ``(accepted, message)``.
"""

from __future__ import annotations

import codecs
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
    """SandboxFusion's stdio comparison (CommonOJDataset), rule for rule: the output as text
    (output that is not UTF-8 never passes: SandboxFusion reads it as a decode error), both
    sides stripped as ``str.strip`` does (Unicode whitespace included) and split at "\\n", as
    many lines on each side, and each pair equal once lower-cased and stripped, or both
    lower-cased lines numbers (``float``) within ``rel_tol`` of the expected one (relative,
    with a floor of 1e-10 on the divisor)."""
    if not _is_utf8(actual):
        return False, "the output is not valid UTF-8"

    def same(got: bytes, want: bytes) -> bool:
        return _same_line(got, want, rel_tol)

    got = streams.Items(actual, lines=True, **_text_bounds(actual))
    want = streams.Items(expected, lines=True, **_text_bounds(expected))
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
    got_text = got.decode("utf-8", "replace").lower()
    want_text = want.decode("utf-8", "replace").lower()
    if got_text.strip() == want_text.strip():
        return True
    # float() of the lower-cased line as text: it reads Unicode digits and spaces, bytes do not.
    got_number, want_number = _text_float(got_text), _text_float(want_text)
    if got_number is None or want_number is None:
        return False
    try:
        return abs(got_number - want_number) / max(abs(want_number), 1e-10) < rel_tol
    except (OverflowError, ValueError, ZeroDivisionError):
        return False


def _text_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` decodes as UTF-8, a chunk at a time (no copy of a large output)."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(data), streams.CHUNK_BYTES):
            decoder.decode(data[start : start + streams.CHUNK_BYTES])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _text_bounds(data: bytes) -> dict[str, int]:
    """Bounds of ``data`` stripped as ``data.decode().strip()`` strips it: ASCII whitespace
    with the separators \\x1c-\\x1f, and Unicode's spaces (U+00A0, U+3000, ...).

    Beyond ASCII, the bytes that may belong to a space are stripped first at C speed (every
    byte of such a space is one of them); what that took off, from the character boundary
    before it, is decoded and stripped as text (other characters use those bytes too)."""
    if data.isascii():
        end = len(data.rstrip(_ASCII_TEXT_SPACE))
        return {"start": min(len(data) - len(data.lstrip(_ASCII_TEXT_SPACE)), end), "end": end}
    # Where the candidate bytes stop is the first byte of a character that is not a space.
    first = len(data) - len(data.lstrip(_SPACE_BYTES))
    head = data[:first].decode("utf-8", "surrogateescape").lstrip()
    start = first - len(head.encode("utf-8", "surrogateescape"))
    last = len(data.rstrip(_SPACE_BYTES))
    if last and data[last - 1] >= 0x80:  # a lead byte: its character is cut, take it whole
        last -= 1
    last = max(last, start)
    tail = data[last:].decode("utf-8", "surrogateescape").rstrip()
    end = last + len(tail.encode("utf-8", "surrogateescape"))
    return {"start": min(start, end), "end": end}


# What str.strip() removes, as UTF-8: ASCII's whitespace and the four separators, and every
# byte of the encodings of Unicode's other spaces (U+0085, U+00A0, U+1680, U+2000-U+200A,
# U+2028, U+2029, U+202F, U+205F, U+3000).
_ASCII_TEXT_SPACE = bytes(c for c in range(128) if chr(c).isspace())
_SPACE_BYTES = bytes(
    sorted(
        {byte for c in range(0x80, 0x3001) if chr(c).isspace() for byte in chr(c).encode()}
        | set(_ASCII_TEXT_SPACE)
    )
)


def _first_difference(actual: bytes, expected: bytes) -> str:
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        if got != want:
            return f"byte {index}: expected {bytes([want])!r}, got {bytes([got])!r}"
    return f"expected {len(expected)} bytes, got {len(actual)}"
