"""Whether a later call's arguments show an earlier call's expected value.

A planned test hands the program a call only once it has committed the answers that call could
reveal (:func:`judge_service.sandbox._assert_plan._release_after`). The runner hands the calls
over one at a time; handing them all at once is the same only when no later argument tells the
program an earlier answer. Equality alone missed the forms a program can read just as well:
``[1, 2]`` expected and ``(1, 2)`` passed later, a set or a permutation of it (a ``sorted``
check), ``12345`` inside ``"id-12345"``, a float within the check's tolerance, or a one- or
two-character string inside a longer one; each let a wrong program pass. This errs on the side
of waiting: a false match costs a hand-over per answer, a missed one a reward.
"""

from __future__ import annotations

import math
from typing import Any

_MAX_DEPTH = 100
_MAX_SPELLED_ITEMS = 64


def reveals(value: Any, wanted: Any, tolerance: Any = None) -> bool:
    """Whether ``value`` holds ``wanted`` equal up to container type and order, a number
    within ``tolerance`` (or a relative 1e-9) of it, or its text inside a string."""
    return _reveals(value, wanted, _canon(wanted), _spellings(wanted), tolerance, 0)


def _reveals(
    value: Any, wanted: Any, canon: Any, spellings: list[str], tolerance: Any, depth: int
) -> bool:
    if depth > _MAX_DEPTH:
        return True  # too deep to look through: assume the worst
    if _near(value, wanted, tolerance):
        return True
    if isinstance(value, str):
        if isinstance(wanted, (list, tuple, set, frozenset)):
            return bool(spellings) and all(text in value for text in spellings)
        return any(text in value for text in spellings)
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        return False
    if _sized_alike(value, wanted) and _canon(value) == canon:
        return True
    return any(_reveals(item, wanted, canon, spellings, tolerance, depth + 1) for item in items)


def _near(value: Any, wanted: Any, tolerance: Any) -> bool:
    if _is_number(value) and _is_number(wanted):
        try:
            slack = max(float(tolerance or 0.0), 1e-9 * max(1.0, abs(float(wanted))))
            return bool(abs(value - wanted) <= slack)
        except (OverflowError, ValueError, TypeError):
            return bool(value == wanted)
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return False  # compared as containers, type and order aside
    try:
        return type(value) is type(wanted) and bool(value == wanted)
    except Exception:
        return True  # an equality that raises: assume the worst


def _sized_alike(value: Any, wanted: Any) -> bool:
    collections = (list, tuple, set, frozenset, dict)
    if not isinstance(wanted, collections):
        return False
    return isinstance(value, dict) == isinstance(wanted, dict) and len(value) == len(wanted)


def _canon(value: Any) -> Any:
    """``value`` with containers as sorted tuples of their items' forms (type and order
    forgotten) and numbers as floats, so that alike values compare equal."""
    if isinstance(value, bool) or value is None:
        return ("v", repr(value))
    if _is_number(value):
        try:
            return ("n", float(value))
        except OverflowError:
            return ("i", str(value))
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, dict):
        return ("d", tuple(sorted((_canon(k), _canon(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple, set, frozenset)):
        try:
            return ("c", tuple(sorted(_canon(item) for item in value)))
        except TypeError:
            return ("c", tuple(_canon(item) for item in value))
    return ("x", repr(value))


def _spellings(wanted: Any) -> list[str]:
    """How ``wanted`` could be written inside a string (a container: its items')."""
    if isinstance(wanted, bool) or wanted is None:
        return []
    if isinstance(wanted, str):
        return [wanted] if wanted else []
    if isinstance(wanted, int):
        return [str(abs(wanted))]
    if isinstance(wanted, float):
        if not math.isfinite(wanted):
            return []
        texts = {repr(abs(wanted)), f"{abs(wanted):g}"}
        if wanted.is_integer():
            texts.add(str(int(abs(wanted))))
        return sorted(texts)
    if isinstance(wanted, (list, tuple, set, frozenset)) and 0 < len(wanted) <= _MAX_SPELLED_ITEMS:
        spelled = [_spellings(item) for item in wanted]
        if all(len(texts) == 1 for texts in spelled):
            return [texts[0] for texts in spelled]
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
