"""The body of every derived input generator: ``generate(n)`` interprets ``SPEC``.

Sent as source (:func:`complexity_model.derive.generator_source` puts the inferred spec in
front of it), so it uses the standard library only and runs wherever the timing driver runs
the author's generators. The driver seeds ``random`` with its secret and n; a size whose input
the reference refused is listed in ``SPEC["reseed"]`` and drawn from another seed.

A value spec is a dict with ``type``: ``int`` (``lo``..``hi``, ``hi`` widened to ``lo + (hi -
lo) * n / per`` when ``per`` is set: values that grow with the size), ``size`` (n itself),
``choice`` (one of ``values``), ``float``, ``str`` (``alphabet``, ``len``, ``palindrome``),
``list`` (``len``, ``item``, ``sorted``, ``distinct``, ``perm``), ``dict`` and, as function
arguments, ``above`` / ``member`` / ``index`` / ``len_of`` (relations to a list argument). A
length is ``"n"``, an integer, ``{"ref": field}`` (a count read earlier on a stdin line) or
``{"pool": [observed lengths]}``.
"""

from __future__ import annotations

import random
from typing import Any

SPEC: dict[str, Any] = {}


def _length(spec: Any, n: int, env: dict[str, int]) -> int:
    if spec == "n":
        return n
    if isinstance(spec, int):
        return spec
    if "ref" in spec:
        return int(env[spec["ref"]])
    return int(random.choice(spec["pool"]))


def _int(spec: dict[str, Any], n: int) -> int:
    lo, hi = spec["lo"], spec["hi"]
    if spec.get("per"):
        hi = max(hi, lo + (hi - lo) * n // spec["per"])
    return random.randint(lo, hi)


def value(spec: dict[str, Any], n: int, env: dict[str, int]) -> Any:
    kind = spec["type"]
    if kind == "size":
        return n
    if kind == "int":
        return _int(spec, n)
    if kind == "choice":
        return random.choice(spec["values"])
    if kind == "float":
        return round(random.uniform(spec["lo"], spec["hi"]), spec.get("digits", 6))
    if kind == "str":
        return _string(spec, _length(spec["len"], n, env))
    if kind == "dict":
        size = _length(spec["len"], n, env)
        keys = _distinct(spec["key"], size, n, env)
        return {key: value(spec["value"], n, env) for key in keys}
    return _list(spec, _length(spec["len"], n, env), n, env)


def _string(spec: dict[str, Any], size: int) -> str:
    alphabet = spec["alphabet"]
    if spec.get("palindrome"):
        half = "".join(random.choice(alphabet) for _ in range(size // 2))
        middle = random.choice(alphabet) if size % 2 else ""
        return half + middle + half[::-1]
    return "".join(random.choice(alphabet) for _ in range(size))


def _distinct(spec: dict[str, Any], size: int, n: int, env: dict[str, int]) -> list[Any]:
    if spec["type"] == "int":
        lo, hi = spec["lo"], spec["hi"]
        if spec.get("per"):
            hi = max(hi, lo + (hi - lo) * n // spec["per"])
        hi = max(hi, lo + 2 * size)  # room for that many distinct values
        return random.sample(range(lo, hi + 1), size)
    seen: dict[Any, None] = {}
    tries = 0
    while len(seen) < size:
        item = value(spec, n, env)
        tries += 1
        if tries > 4 * size + 100:  # a small alphabet: make the items longer
            item = f"{item}{len(seen)}" if isinstance(item, str) else len(seen)
        seen[item] = None
    return list(seen)


def _list(spec: dict[str, Any], size: int, n: int, env: dict[str, int]) -> list[Any]:
    item = spec["item"]
    if spec.get("perm") is not None:
        items: list[Any] = list(range(spec["perm"], spec["perm"] + size))
        random.shuffle(items)
    elif spec.get("distinct"):
        items = _distinct(item, size, n, env)
    else:
        items = [value(item, n, env) for _ in range(size)]
    if spec.get("sorted"):
        items.sort(reverse=spec["sorted"] == "desc")
    return items


def _token(item: Any) -> str:
    return " ".join(map(str, item)) if isinstance(item, list) else str(item)


def _stdin(nodes: list[dict[str, Any]], n: int, env: dict[str, int], out: list[str]) -> None:
    for node in nodes:
        kind = node["node"]
        if kind == "line":
            tokens = []
            for field in node["fields"]:
                made = _field(field, n, env)
                env[field["id"]] = made
                tokens.append(str(made))
            out.append(" ".join(tokens))
        elif kind == "repeat":
            for _ in range(int(env[node["ref"]])):
                _stdin(node["body"], n, env, out)
        else:  # a row of tokens or a string
            out.append(_token(value(node["value"], n, env)))


def _field(field: dict[str, Any], n: int, env: dict[str, int]) -> Any:
    role = field.get("role")
    if role == "count":
        return n
    if role == "fixed":
        return field["value"]
    if role == "below":  # bounded by an earlier count, as the tests show
        bound = int(env[field["ref"]])
        # The bound wins over the smallest value seen: k <= n holds at every n, even n = 1.
        made = min(bound, max(field.get("min", 1), round(bound * random.choice(field["ratios"]))))
        floor = int(env.get(field.get("floor", ""), made))
        return made if made >= floor else random.randint(floor, max(floor, bound))
    return value(field["value"], n, env)


def _function(n: int) -> list[Any]:
    args: list[Any] = []
    for spec in SPEC["args"]:
        kind = spec["type"]
        if kind in ("above", "member", "index", "len_of"):
            target = args[spec["arg"]]
            flat = [x for x in target if isinstance(x, int)] or [0]
            if kind == "above":
                args.append(max(flat) + random.choice(spec["gaps"]))
            elif kind == "member":
                args.append(random.choice(flat))
            elif kind == "index":
                args.append(random.randrange(max(len(target), 1)))
            else:
                args.append(len(target))
        else:
            args.append(value(spec, n, {}))
    return args


def generate(n: int) -> Any:
    salt = SPEC.get("reseed", {}).get(str(n))
    if salt is not None:
        # From the driver's seeding (the judge's secret and n), so no more guessable than it.
        random.seed(random.getrandbits(64) * 1_000_003 + int(salt))
    if SPEC["mode"] == "function":
        return _function(n)
    out: list[str] = []
    _stdin(SPEC["nodes"], n, {}, out)
    return "\n".join(out) + "\n"
