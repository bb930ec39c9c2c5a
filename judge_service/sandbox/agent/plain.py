"""Plain data across the trust boundary: what a candidate's process may hand to the judge.

In assert mode the candidate runs in a process of its own and the test code calls it through
a pipe (see ``zygote``); in function mode its return value goes to the agent. Either way the
receiving side only ever holds values it decoded itself from bytes, so every value it compares
is an exact builtin (``int``, ``float``, ``str``, ``list``, ``tuple``, ``dict``, ``set``...)
whose ``==`` the candidate cannot have touched.

Wire form: JSON, with containers JSON lacks tagged as one-key objects (``{"tuple": [...]}``,
``{"set": [...]}``, ``{"frozenset": [...]}``, ``{"dict": [[key, value], ...]}``,
``{"bytes": "latin-1 text"}``), so that every JSON object on the wire is a tag. An integer
past Python's default 4300-digit limit on decimal conversion travels in hexadecimal
(``{"int": "-1f..."}``): the agent decodes with that limit (decimal parsing is superlinear,
and the program chooses the digits), and hexadecimal converts in linear time, unlimited.

Standard library only: this module is sent into the sandboxes with the agent and the zygote.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

MAX_DEPTH = 1000
# A message this short nests at most this deep (two bytes a level), well within this limit.
SHALLOW_BYTES = 400
SHALLOW_LIMIT = 1000
_TAGS = ("tuple", "set", "frozenset", "dict", "bytes", "int")
# Integers this wide have at most 4214 decimal digits: within the default conversion limit.
DECIMAL_BITS = 14000


class NotPlainData(TypeError):
    """A value that is not plain data (a custom object, a function, a generator...)."""


class DecodeError(ValueError):
    """Bytes that are not a plain-data message: malformed, too deep, or too large."""


def to_wire(value: Any, depth: int = 0) -> Any:
    """``value`` as its wire tree (JSON values, containers JSON lacks tagged), read through the
    builtin types' own methods.

    A subclass of a builtin (``class A(int)`` with ``__eq__`` always true, a ``Counter``, a
    namedtuple, a numpy scalar) travels as its builtin value, so none of its overridden
    methods survives; anything else raises :class:`NotPlainData`.
    """
    # type(), not isinstance(): an object can claim any class through a __class__ property.
    kind = type(value)
    if kind is str or kind is float or kind is bool or value is None:
        return value
    if kind is int:
        return value if value.bit_length() <= DECIMAL_BITS else {"int": format(value, "x")}
    if depth >= MAX_DEPTH:
        raise NotPlainData(f"nested deeper than {MAX_DEPTH} levels")
    deeper = depth + 1
    if issubclass(kind, int):
        return to_wire(int.__index__(value), deeper)
    if issubclass(kind, float):
        return float.__float__(value)
    if issubclass(kind, str):
        return str.__str__(value)
    if issubclass(kind, (bytes, bytearray)):
        return {"bytes": bytes(memoryview(value)).decode("latin-1")}
    if issubclass(kind, list):
        return [to_wire(item, deeper) for item in list.__iter__(value)]
    if issubclass(kind, tuple):
        return {"tuple": [to_wire(item, deeper) for item in tuple.__iter__(value)]}
    if issubclass(kind, dict):
        pairs = dict.items(value).__iter__()
        return {"dict": [[to_wire(key, deeper), to_wire(item, deeper)] for key, item in pairs]}
    if issubclass(kind, frozenset):
        return {"frozenset": [to_wire(item, deeper) for item in frozenset.__iter__(value)]}
    if issubclass(kind, set):
        return {"set": [to_wire(item, deeper) for item in set.__iter__(value)]}
    if kind.__module__.partition(".")[0] == "numpy" and hasattr(value, "tolist"):
        return to_wire(value.tolist(), deeper)
    raise NotPlainData(f"a {kind.__qualname__} is not plain data")


def encode(value: Any) -> bytes:
    """The wire form of ``value``; :class:`NotPlainData` when it is not plain data."""
    return _ENCODER.encode(to_wire(value)).encode()


def to_plain(value: Any) -> Any:
    """``value`` rebuilt from exact builtin types (see :func:`to_wire`)."""
    return decode(encode(value))


def decode(data: bytes, max_bytes: int = 64 << 20) -> Any:
    """A plain value from its wire form; raises :class:`DecodeError` for anything else."""
    if len(data) > max_bytes:
        raise DecodeError(f"message of {len(data)} bytes exceeds {max_bytes}")
    try:
        if len(data) <= SHALLOW_BYTES and sys.getrecursionlimit() >= SHALLOW_LIMIT:
            # Fewer bytes than the recursion limit has room for levels: no guard needed.
            return _DECODER.decode(data.decode() if isinstance(data, bytes) else data)
        return loads_bounded(data, object_pairs_hook=_untag)
    except DecodeError:
        raise
    except (ValueError, TypeError, RecursionError) as error:
        raise DecodeError(str(error)[:200]) from None


def loads_bounded(data: bytes | str, **options: Any) -> Any:
    """``json.loads`` that raises :class:`DecodeError` past :data:`MAX_DEPTH` levels.

    The C decoder recurses once per level, guarded only by the recursion limit; a process that
    raised its limit (the agent does) would overflow its C stack on a 300,000-deep array.
    """
    with _recursion_headroom(MAX_DEPTH + 100):
        try:
            return json.loads(data, **options)
        except RecursionError:
            raise DecodeError(f"nested deeper than {MAX_DEPTH} levels") from None


@contextmanager
def _recursion_headroom(levels: int) -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(_current_depth() + levels)
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _current_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back  # type: ignore[assignment]
    return depth


# json.dumps and json.loads build an encoder or decoder per call when given options.
_ENCODER = json.JSONEncoder(allow_nan=True, separators=(",", ":"))


def _untag(pairs: list[tuple[str, Any]]) -> Any:
    if len(pairs) != 1 or pairs[0][0] not in _TAGS:
        raise DecodeError("a JSON object that is not a tagged container")
    tag, items = pairs[0]
    if tag == "int":
        if not isinstance(items, str):
            raise DecodeError("int must be a hexadecimal string")
        try:
            return int(items, 16)
        except ValueError:
            raise DecodeError("int must be a hexadecimal string") from None
    if tag == "bytes":
        if not isinstance(items, str):
            raise DecodeError("bytes must be a string")
        return items.encode("latin-1")
    if not isinstance(items, list):
        raise DecodeError(f"{tag} must hold a list")
    if tag == "tuple":
        return tuple(items)
    if tag == "dict":
        if not all(isinstance(pair, list) and len(pair) == 2 for pair in items):
            raise DecodeError("dict must hold [key, value] pairs")
        return {key: item for key, item in items}
    return frozenset(items) if tag == "frozenset" else set(items)


_DECODER = json.JSONDecoder(object_pairs_hook=_untag)
