"""Value specs (the shapes :mod:`._runtime` draws from) inferred from observed values.

What the tests show is kept: the range of the integers (widened with n when they are dense
for their list's length: indices, permutations, samples of a range that grows with n), the
alphabet of the strings, and a property of a list only when every list long enough to show it
has it (sorted, distinct, a permutation, a palindrome): three items sorted by chance is no
evidence, so a property needs a few items' worth of support in total.
"""

from __future__ import annotations

from typing import Any

__all__ = ["infer_value", "int_spec", "list_spec", "scales"]

# Pairs of neighbours that must all agree before a list counts as sorted (or a string as a
# palindrome): a random list of 3 is sorted one time in six.
_MIN_SUPPORT = 6
# Integers at most this many times their list's length, none negative, grow with the list.
_DENSE_FACTOR = 10


def _number(values: list[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def int_spec(values: list[int], lengths: list[int] | None = None) -> dict[str, Any]:
    """Integers drawn from the observed range; ``lengths`` (the length of the list each value
    sat in) lets the range grow with n when the values are dense for those lengths."""
    lo, hi = min(values), max(values)
    spec: dict[str, Any] = {"type": "int", "lo": lo, "hi": hi}
    if lengths and lo >= 0 and hi >= 2 and hi <= _DENSE_FACTOR * max(lengths):
        spec["per"] = max(lengths)
    return spec


def _string_spec(values: list[str]) -> dict[str, Any]:
    lengths = [len(v) for v in values]
    alphabet = "".join(sorted({c for v in values for c in v})) or "a"
    spec: dict[str, Any] = {"type": "str", "alphabet": alphabet}
    spec["len"] = "n" if scales(lengths) else {"pool": sorted(set(lengths))}
    long = [v for v in values if len(v) >= 2]
    if sum(len(v) // 2 for v in long) >= _MIN_SUPPORT and all(v == v[::-1] for v in long):
        spec["palindrome"] = True
    return spec


def scales(lengths: list[int]) -> bool:
    """A length grows with n when the tests show it at more than one value (or long)."""
    return len(set(lengths)) > 1 or (bool(lengths) and lengths[0] >= 8)


def list_spec(lists: list[list[Any]], length: Any) -> dict[str, Any]:
    """A list of ``length`` items like the observed lists' items, with their properties."""
    items = [item for one in lists for item in one]
    lengths = [len(one) for one in lists]
    spec: dict[str, Any] = {"type": "list", "len": length}
    if items and all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        spec["item"] = int_spec(items, lengths)
        for base in (0, 1):
            if all(sorted(one) == list(range(base, base + len(one))) for one in lists) and (
                sum(lengths) >= _MIN_SUPPORT
            ):
                spec["perm"] = base
        pairs = sum(max(len(one) - 1, 0) for one in lists)
        if pairs >= _MIN_SUPPORT and spec.get("perm") is None:
            if all(list(one) == sorted(one) for one in lists):
                spec["sorted"] = "asc"
            elif all(list(one) == sorted(one, reverse=True) for one in lists):
                spec["sorted"] = "desc"
            if all(len(set(one)) == len(one) for one in lists) and _unlikely_by_chance(
                lists, spec["item"]["hi"] - spec["item"]["lo"] + 1
            ):
                spec["distinct"] = True
    elif items and all(isinstance(i, str | list) for i in items):
        spec["item"] = infer_value(items, inner=True)
        # Rows as long as their list is long (a grid, a square matrix) grow with it; other
        # inner lengths (words, adjacency lists, pairs) keep the lengths the tests show.
        square = all(len(row) == len(one) for one in lists for row in one)
        if square and scales(lengths):
            spec["item"]["len"] = "n"
        elif spec["item"]["type"] in ("str", "list"):
            inner = sorted({len(row) for one in lists for row in one})
            spec["item"]["len"] = inner[0] if len(inner) == 1 else {"pool": inner}
    else:
        spec["item"] = infer_value(items, inner=True)
    return spec


def infer_value(values: list[Any], inner: bool = False) -> dict[str, Any]:
    """The spec of one argument (or one item position) from its observed values."""
    if not values:
        return {"type": "choice", "values": [0]}
    if all(isinstance(v, bool) for v in values):
        return {"type": "choice", "values": sorted(set(values))}
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        if inner or len(set(values)) == 1:
            return int_spec(values) if len(set(values)) > 1 else _fixed(values[0])
        return {"type": "size"}
    if _number(values):
        return {"type": "float", "lo": min(values), "hi": max(values)}
    if all(isinstance(v, str) for v in values):
        return _string_spec(values)
    if all(isinstance(v, list) for v in values):
        lengths = [len(v) for v in values]
        return list_spec(values, _list_length(values, lengths, inner))
    if all(isinstance(v, dict) for v in values):
        lengths = [len(v) for v in values]
        keys = [key for one in values for key in one]
        return {
            "type": "dict",
            "len": "n" if scales(lengths) else {"pool": sorted(set(lengths))},
            "key": infer_value(keys, inner=True),
            "value": infer_value([x for one in values for x in one.values()], inner=True),
        }
    return {"type": "choice", "values": _plain(values)}


def _list_length(values: list[list[Any]], lengths: list[int], inner: bool) -> Any:
    if not inner:
        return "n" if scales(lengths) else {"pool": sorted(set(lengths))}
    if len(set(lengths)) == 1 and lengths[0] <= 4:
        return lengths[0]  # pairs, triples: a fixed shape, not a size
    return "n" if scales(lengths) else {"pool": sorted(set(lengths))}


def _unlikely_by_chance(lists: list[list[Any]], span: int) -> bool:
    """Whether lists drawn from ``span`` values would rarely be all distinct by chance
    (the birthday bound: the chance is about exp(-k^2 / 2 span) per list of k)."""
    return sum(len(one) ** 2 for one in lists) / (2 * max(span, 1)) > 3


def _fixed(value: int) -> dict[str, Any]:
    return {"type": "int", "lo": value, "hi": value}


def _plain(values: list[Any]) -> list[Any]:
    unique: list[Any] = []
    for v in values:
        if v not in unique:
            unique.append(v)
    return unique
