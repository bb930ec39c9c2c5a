"""What each integer read from a stdin line becomes in a derived input of size n.

A count (an integer some later row, string or block count reads) grows to n, except one that
counts blocks holding something that grows themselves: those stay at the fewest the tests
show (usually one test case, then of size n). An integer that is never more than an earlier
growing count keeps one of its observed ratios to it (``k <= n``). When nothing in the input
grows, the integers that vary across the tests are the size (the input is n itself).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from complexity_model.derive._values import int_spec

__all__ = ["assign_roles"]


def _walk(nodes: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for node in nodes:
        yield node
        if node["node"] == "repeat":
            yield from _walk(node["body"])


def _ref(node: dict[str, Any]) -> str | None:
    if node["node"] == "repeat":
        return str(node["ref"])
    if node["node"] in ("row", "str"):
        length = node["value"].get("len")
        if isinstance(length, dict) and "ref" in length:
            return str(length["ref"])
    return None


def _free(node: dict[str, Any]) -> bool:
    """A row or string whose length grows without a count."""
    return node["node"] in ("row", "str") and node["value"].get("len") == "n"


def _own(repeat: dict[str, Any]) -> bool:
    """Whether a block holds a count read inside it, or a length no count gives."""
    inside = {
        field["id"]
        for node in _walk(repeat["body"])
        if node["node"] == "line"
        for field in node["fields"]
    }
    return any(_ref(node) in inside or _free(node) for node in _walk(repeat["body"]))


def assign_roles(spec: dict[str, Any]) -> dict[str, Any] | None:
    nodes = spec["nodes"]
    counted = {ref for node in _walk(nodes) if (ref := _ref(node))}
    # Counts of blocks that hold a count or a free length of their own stay small (T test
    # cases); blocks whose lengths an outer count gives (the rows of an n x m grid) grow.
    blocks = {node["ref"] for node in _walk(nodes) if node["node"] == "repeat" and _own(node)}
    fields = [
        field
        for node in _walk(nodes)
        if node["node"] == "line"
        for field in node["fields"]
        if "values" in field
    ]
    # An integer that bounds later integers (vertices for edges, n for k <= n) is a size too.
    bounds = {bound for field in fields if (bound := _bound(field)) is not None}
    growing = (counted | bounds) - blocks
    anything_grows = bool(growing) or any(_free(node) for node in _walk(nodes))
    top = {id(field) for node in nodes if node["node"] == "line" for field in node["fields"]}
    for field in fields:
        _role(field, counted, blocks, growing, anything_grows)
        if field.get("role") == "below" and id(field) in top:
            # Read once per input (k of a window): one ratio at every n, or each size would
            # draw its own and the time would not grow as one curve. Per query, they vary.
            ratios = field["ratios"]
            field["ratios"] = [ratios[(len(ratios) - 1) // 2]]
    for field in fields:
        field.pop("scope", None)
        field.pop("values", None)
    if not anything_grows and not any(
        field.get("role") == "count"
        for node in _walk(nodes)
        if node["node"] == "line"
        for field in node["fields"]
    ):
        return None  # nothing grows: no size to time at
    return spec


def _bound(field: dict[str, Any]) -> str | None:
    """The latest earlier integer that every value of the field stays within, if any."""
    values = field["values"]
    for ref, bounds in reversed(field.get("scope", ())):
        if ref == field["id"] or max(bounds, default=0) < 2:
            continue
        if all(0 <= v <= b for v, b in zip(values, bounds, strict=True)):
            return str(ref)
    return None


def _floor(field: dict[str, Any]) -> str | None:
    """The latest earlier integer that the field is never below (l then r), if any."""
    values = field["values"]
    for ref, lows in reversed(field.get("scope", ())):
        if ref != field["id"] and all(v >= low for v, low in zip(values, lows, strict=True)):
            return str(ref) if len(set(lows)) > 1 else None
    return None


def _role(
    field: dict[str, Any],
    counted: set[str],
    blocks: set[str],
    growing: set[str],
    anything_grows: bool,
) -> None:
    values: list[int] = field["values"]
    fid = field["id"]
    if fid in blocks:
        field.update(role="fixed", value=max(1, min(values)))
        return
    if fid in growing:
        field["role"] = "count"
        return
    if not anything_grows:
        if len(set(values)) > 1:
            field["role"] = "count"
        else:
            field.update(role="fixed", value=values[0])
        return
    for ref, bounds in reversed(field.get("scope", ())):
        if (
            ref in growing
            and ref != fid
            and all(0 <= v <= b for v, b in zip(values, bounds, strict=True))
        ):
            ratios = sorted({round(v / b, 3) for v, b in zip(values, bounds, strict=True) if b})
            field.update(role="below", ref=ref, ratios=ratios or [1.0], min=min(values))
            floor = _floor(field)
            if floor is not None:
                field["floor"] = floor  # l <= r: the order the tests show is kept
            return
    field["value"] = int_spec(values)
