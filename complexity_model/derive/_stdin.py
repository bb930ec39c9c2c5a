"""Stdin mode: the structure of a problem's inputs from its tests' input texts.

An input is read as lines of whitespace-separated tokens and explained, line by line, by the
cheapest sequence of nodes that parses every test (so one explanation must hold for all):

- ``line``: a fixed number of tokens; its non-negative integers may be counts for later lines;
- ``row``: a line of as many tokens as an earlier count says (``n`` then ``a_1 .. a_n``), or of
  a length that varies without one; ``str``: one token, a string (its length may be a count);
- ``repeat``: as many blocks as an earlier count says, each parsed by the same nodes (``T``
  test cases, ``n`` lines of edges, a grid of ``n`` rows of ``m`` characters).

A count grows to n unless it counts blocks that hold something growing themselves (T test
cases: one case of size n); other integers keep the ratio to a count they never exceed
(``k <= n``), or grow to n when nothing else does (the input is n itself).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from complexity_model.derive._roles import assign_roles
from complexity_model.derive._values import infer_value, list_spec, scales

__all__ = ["stdin_spec"]

Lines = list[list[str]]
Scope = tuple[tuple[str, tuple[int, ...]], ...]
"""Counts read so far: (field id, its value in each stream)."""
_Parse = tuple[float, list[dict[str, Any]]]
_FREE_COST = 3  # a length no count explains is less of an explanation
_MAX_STATES = 4000


def _int(token: str) -> int | None:
    body = token[1:] if token[:1] == "-" else token
    return int(token) if body.isdigit() and len(body) <= 18 else None


def _typed(tokens: list[str]) -> list[Any]:
    ints = [_int(t) for t in tokens]
    if all(v is not None for v in ints):
        return ints
    try:
        return [float(t) for t in tokens]
    except ValueError:
        return tokens


class _Parser:
    def __init__(self) -> None:
        self.ids = itertools.count()
        self.states = 0

    def seq(self, streams: list[Lines], pos: tuple[int, ...], scope: Scope) -> _Parse:
        """(cost, nodes) of the cheapest parse of every stream from ``pos`` to its end."""
        memo: dict[tuple[tuple[int, ...], Scope], _Parse] = {}
        return self._seq(streams, pos, scope, memo)

    def _seq(
        self,
        streams: list[Lines],
        pos: tuple[int, ...],
        scope: Scope,
        memo: dict[tuple[tuple[int, ...], Scope], _Parse],
    ) -> _Parse:
        key = (pos, scope)
        if key in memo:
            return memo[key]
        memo[key] = (float("inf"), [])  # a cycle is no parse
        ended = [p == len(s) for p, s in zip(pos, streams, strict=True)]
        best: _Parse = (float("inf"), [])
        if all(ended):
            best = (0.0, [])
        elif not any(ended) and self.states < _MAX_STATES:
            self.states += 1
            for cost, node, after, grown in self._candidates(streams, pos, scope):
                rest_cost, rest = self._seq(streams, after, grown, memo)
                if cost + rest_cost < best[0]:
                    best = (cost + rest_cost, [node, *rest])
        memo[key] = best
        return best

    def _candidates(
        self, streams: list[Lines], pos: tuple[int, ...], scope: Scope
    ) -> Iterator[tuple[float, dict[str, Any], tuple[int, ...], Scope]]:
        lines = [s[p] for s, p in zip(streams, pos, strict=True)]
        step = tuple(p + 1 for p in pos)
        words = all(len(line) == 1 and _int(line[0]) is None for line in lines)
        for fid, values in reversed(scope):
            if words and all(len(line[0]) == v for line, v in zip(lines, values, strict=True)):
                spec = infer_value([line[0] for line in lines], inner=True)
                yield 1, {"node": "str", "value": {**spec, "len": {"ref": fid}}}, step, scope
            if all(len(line) == v for line, v in zip(lines, values, strict=True)) and any(values):
                spec = list_spec([_typed(line) for line in lines], {"ref": fid})
                yield 1, {"node": "row", "value": spec}, step, scope
        for fid, values in reversed(scope):
            if any(values):
                yield from self._repeats(streams, pos, scope, fid, values)
        widths = {len(line) for line in lines}
        if len(widths) == 1 and not _growing_words(lines):
            yield self._line(lines, step, scope)
        if words:
            spec = infer_value([line[0] for line in lines], inner=True)
            spec["len"] = "n" if scales([len(line[0]) for line in lines]) else spec["len"]
            yield _FREE_COST - 1, {"node": "str", "value": spec}, step, scope
        if len(widths) > 1:
            spec = list_spec([_typed(line) for line in lines], "n")
            yield _FREE_COST, {"node": "row", "value": spec}, step, scope

    def _line(
        self, lines: Lines, step: tuple[int, ...], scope: Scope
    ) -> tuple[float, dict[str, Any], tuple[int, ...], Scope]:
        fields = []
        grown = scope
        for column in zip(*lines, strict=True):
            fid = f"f{next(self.ids)}"
            ints = [_int(token) for token in column]
            if all(v is not None for v in ints):
                values = [int(v) for v in ints if v is not None]
                field: dict[str, Any] = {"id": fid, "values": values, "scope": grown}
                if min(values) >= 0:
                    grown = (*grown, (fid, tuple(values)))
            else:
                field = {"id": fid, "value": infer_value(list(_typed(list(column))), inner=True)}
            fields.append(field)
        return 1, {"node": "line", "fields": fields}, step, grown

    def _repeats(
        self, streams: list[Lines], pos: tuple[int, ...], scope: Scope, fid: str, values: Any
    ) -> Iterator[tuple[float, dict[str, Any], tuple[int, ...], Scope]]:
        for split in (("fixed", 1), ("fixed", 2), ("fixed", 3), ("led", 0), ("led", 1)):
            blocks: list[Lines] = []
            owners: list[int] = []
            after = []
            for index, (stream, start, count) in enumerate(zip(streams, pos, values, strict=True)):
                cut = _split(stream, start, count, split)
                if cut is None:
                    break
                blocks.extend(cut[0])
                owners.extend([index] * len(cut[0]))
                after.append(cut[1])
            else:
                if not blocks:
                    continue
                inner = tuple((f, tuple(v[o] for o in owners)) for f, v in scope)
                cost, body = self.seq(blocks, (0,) * len(blocks), inner)
                if cost < float("inf"):
                    node = {"node": "repeat", "ref": fid, "body": body}
                    yield 1 + cost, node, tuple(after), scope


def _growing_words(lines: Lines) -> bool:
    """Whether a column of words changes length across the tests (a string that grows)."""
    for column in zip(*lines, strict=True):
        if any(_int(token) is None for token in column) and scales([len(t) for t in column]):
            return True
    return False


def _split(
    stream: Lines, start: int, count: int, split: tuple[str, int]
) -> tuple[list[Lines], int] | None:
    """``count`` blocks from ``start``: of a fixed number of lines, or each a header line and
    as many lines as the header's token at the given place says."""
    blocks, at = [], start
    for _ in range(count):
        if split[0] == "fixed":
            size = split[1]
        else:
            if at >= len(stream) or len(stream[at]) <= split[1]:
                return None
            value = _int(stream[at][split[1]])
            if value is None or value < 0:
                return None
            size = 1 + value
        if at + size > len(stream):
            return None
        blocks.append(stream[at : at + size])
        at += size
    return blocks, at


def stdin_spec(inputs: list[str]) -> dict[str, Any] | None:
    """The spec of the inputs, None when no structure explains them all."""
    streams = [[line.split() for line in text.splitlines() if line.strip()] for text in inputs]
    streams = [s for s in streams if s]
    if not streams:
        return None
    parser = _Parser()
    cost, nodes = parser.seq(streams, (0,) * len(streams), ())
    if cost == float("inf"):
        return None
    return assign_roles({"mode": "stdin", "nodes": nodes})
