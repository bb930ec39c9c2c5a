"""What the service accepts as JSON from a client, in any field.

Python's ``json`` reads more than JSON, and a client can write what nothing downstream can
take: a lone surrogate (``"\\ud800"`` decodes to a ``str`` that UTF-8, SQLite and PostgreSQL
refuse), ``NaN`` and ``Infinity`` (or ``1e999``, which overflows to it: not JSON, so neither
PostgreSQL nor a JSON reply can hold it), nesting deep enough to break serialisation (pydantic
stops at 255 levels, ``json`` at the interpreter's recursion limit) and integers of more digits
than Python converts. Every value is checked here before it is judged or stored; a value that
fails is rejected, never repaired, and the reason names where in the value it failed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeGuard

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "is_text", "loads", "printable", "problem"]

MAX_DEPTH = 128
MAX_INT_DIGITS = 4300  # Python's own limit on converting an int from or to text
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_REASON = "holds a lone surrogate, which is not Unicode text"
_NUMBERS = frozenset({int, float, bool})
_SHOWN = 40  # characters of a key, and
_SHOWN_PARTS = 8  # parts of a path, that an error message shows


def is_text(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a string without lone surrogates (so UTF-8 can encode it)."""
    return isinstance(value, str) and (value.isascii() or _SURROGATE.search(value) is None)


def printable(text: str) -> str:
    """``text`` with lone surrogates written as ``\\udXXX`` escapes, for error messages."""
    return text if is_text(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")


def problem(value: Any) -> str | None:
    """Why ``value`` (decoded JSON) cannot be accepted, with the path to the culprit; None if it
    can. Iterative, so a value nested past the recursion limit is reported, not raised."""
    pending: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if not isinstance(item, dict | list | tuple):
            reason = _scalar_problem(item)
            if reason is not None:
                return _at(path, reason)
            continue
        if item and len(path) >= MAX_DEPTH:
            return _at(path, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            bad_key = next((key for key in item if isinstance(key, str) and not is_text(key)), None)
            if bad_key is not None:
                return _at(path, f"the key {bad_key[:_SHOWN]!r} {_SURROGATE_REASON}")
            children: Any = item.items()
        elif _plain(item):
            continue
        else:
            children = enumerate(item)
        for key, child in children:
            if isinstance(child, str) and child.isascii():
                continue  # the commonest value, kept cheap
            if isinstance(child, str | float | dict | list | tuple):
                pending.append((child, (*path, key)))
    return None


def loads(text: str, *, strict: bool = True) -> Any:
    """``text`` decoded as JSON that :func:`problem` accepts; ValueError saying why not.
    ``strict=False`` lets strings hold raw control characters (newlines), as
    ``json.loads(strict=False)`` does."""
    try:
        value = json.loads(text, strict=strict, parse_constant=_constant, parse_int=_integer)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:  # JSONDecodeError, and the hooks' own
        raise ValueError(f"not valid JSON: {error}") from None
    reason = problem(value)
    if reason is not None:
        raise ValueError(reason)
    return value


def _scalar_problem(value: Any) -> str | None:
    if isinstance(value, str):
        found = None if value.isascii() else _SURROGATE.search(value)
        if found is not None:
            return f"{_SURROGATE_REASON} (U+{ord(found[0]):04X} at index {found.start()})"
    elif isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    return None


def _plain(values: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``values`` are all integers and finite floats, or all ASCII strings: the bulk of
    most test data, checked without a Python step per element."""
    kinds = set(map(type, values))
    if kinds <= _NUMBERS:
        return float not in kinds or all(map(math.isfinite, values))
    return kinds == {str} and all(map(str.isascii, values))


def _at(path: tuple[str | int, ...], reason: str) -> str:
    if not path:
        return reason
    parts = [str(part)[:_SHOWN] for part in path[:_SHOWN_PARTS]]
    more = ".…" if len(path) > _SHOWN_PARTS else ""
    return f"{'.'.join(parts)}{more}: {reason}"


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _integer(literal: str) -> int:
    digits = len(literal) - literal.startswith("-")
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(literal)
