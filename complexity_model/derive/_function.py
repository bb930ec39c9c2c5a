"""Function mode: the spec of a problem's arguments from its tests' JSON arguments.

Each argument position is inferred from its values across the tests (:func:`._values.
infer_value`). A list, string or dict whose length varies grows to n. An integer argument is
a size (n itself) when nothing else grows; beside a list that grows, it keeps the relation
every test shows: its length, an index into it, one of its items, a value above all of them
(a target that is never found) or a value in the observed range.
"""

from __future__ import annotations

from typing import Any

from complexity_model.derive._values import infer_value, int_spec

__all__ = ["function_spec"]


def function_spec(calls: list[list[Any]]) -> dict[str, Any] | None:
    """None when the tests' argument lists differ in length (defaults, overloads)."""
    if not calls or len({len(args) for args in calls}) != 1:
        return None
    width = len(calls[0])
    specs = [infer_value([args[i] for args in calls]) for i in range(width)]
    grows = [i for i, spec in enumerate(specs) if _grows(spec)]
    for i, spec in enumerate(specs):
        if spec["type"] != "size" or not grows:
            continue
        values = [args[i] for args in calls]
        specs[i] = _relation(values, [[args[j] for args in calls] for j in grows], grows)
    if not any(_grows(spec) or spec["type"] == "size" for spec in specs):
        return None  # nothing in the input can grow: no size to time at
    return {"mode": "function", "args": specs}


def _grows(spec: dict[str, Any]) -> bool:
    return spec["type"] in ("list", "str", "dict") and spec.get("len") == "n"


def _relation(values: list[int], containers: list[list[Any]], positions: list[int]) -> Any:
    """How an integer relates to a growing argument, the first relation every test shows."""
    for position, lists in zip(positions, containers, strict=True):
        if not all(isinstance(one, list) for one in lists):
            continue
        flat = [[x for x in one if isinstance(x, int) and not isinstance(x, bool)] for one in lists]
        if all(v == len(one) for v, one in zip(values, lists, strict=True)):
            return {"type": "len_of", "arg": position}
        if all(items and v > max(items) for v, items in zip(values, flat, strict=True)):
            gaps = sorted({v - max(items) for v, items in zip(values, flat, strict=True)})
            return {"type": "above", "arg": position, "gaps": gaps}
        if all(v in items for v, items in zip(values, flat, strict=True)):
            return {"type": "member", "arg": position}
        if all(0 <= v < len(one) for v, one in zip(values, lists, strict=True)):
            return {"type": "index", "arg": position}
    lengths = [len(one) for one in containers[0] if isinstance(one, list | str | dict)]
    return int_spec(values, lengths or None)
