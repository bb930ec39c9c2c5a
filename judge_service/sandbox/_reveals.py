"""Whether a later call's arguments show an earlier call's expected value.

A planned test hands the program a call only once it has committed the answers that call could
reveal (:func:`judge_service.sandbox._assert_plan._release_after`). The runner hands the calls
over one at a time; handing them all at once is the same only when no later argument tells the
program an earlier answer. Equality alone missed the forms a program can read just as well:
``[1, 2]`` expected and ``(1, 2)`` passed later, a set or a permutation of it (a ``sorted``
check), ``12345`` inside ``"id-12345"``, a float within the check's tolerance, or a one- or
two-character string inside a longer one; each let a wrong program pass. So did, later: a dict
as its list of pairs (and back), a string as its characters or words, bytes as text (and
back), a number for its text (``42`` after ``== '42'``), and a container written out in a
string when one of its items had more than one spelling (``[1.5, 2.0]`` in ``"1.5 2.0"``,
``[[1, 2], [3]]`` or a dict as printed). This errs on the side of waiting: a false match costs
a hand-over per answer, a missed one a reward.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

_MAX_DEPTH = 100
_MAX_SPELLED_ITEMS = 64
# Characters a substring search costs as much as one value looked at (about a microsecond).
_CHARACTERS_PER_STEP = 256
_COLLECTIONS = (list, tuple, set, frozenset, dict)


class TooCostly(Exception):
    """The search ran out of its :class:`Budget` (the caller must assume the worst)."""


class Budget:
    """Steps (values looked at, about a microsecond each) a caller allows its searches in all:
    a test's every check against every later call is quadratic, and 100 calls of lists nested
    95 deep took the host 34 s to plan."""

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self, steps: int = 1) -> None:
        self.left -= steps
        if self.left < 0:
            raise TooCostly


def reveals(value: Any, wanted: Any, tolerance: Any = None, budget: Budget | None = None) -> bool:
    """Whether ``value`` holds ``wanted`` equal up to container type and order (a dict being
    its pairs, bytes their text), a number within ``tolerance`` (or a relative 1e-9) of it, its
    text inside a string, or a string's characters in a container of strings. Raises
    :class:`TooCostly` once ``budget`` is spent."""
    budget = budget or Budget(1 << 62)
    wanted = _as_text(wanted)
    canon = _canon(wanted, budget)
    return _reveals(value, wanted, canon, _spellings(wanted), tolerance, 0, budget)


def _reveals(
    value: Any,
    wanted: Any,
    canon: Any,
    spellings: list[list[str]],
    tolerance: Any,
    depth: int,
    budget: Budget,
) -> bool:
    budget.spend()
    if depth > _MAX_DEPTH:
        return True  # too deep to look through: assume the worst
    value = _as_text(value)
    if _near(value, wanted, tolerance):
        return True
    if _is_number(value) and isinstance(wanted, str):
        # '42' expected and 42 passed later: the text of the number
        return wanted.lstrip("+") in (str(value), *_scalar_spellings(value))
    if isinstance(value, str):
        budget.spend(sum(map(len, spellings)) * (len(value) // _CHARACTERS_PER_STEP))
        return bool(spellings) and all(any(text in value for text in texts) for texts in spellings)
    if isinstance(value, dict):
        items: list[Any] = [*value.keys(), *value.values()]
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
    else:
        return False
    if _sized_alike(value, wanted) and _canon(value, budget) == canon:
        return True
    if isinstance(wanted, str) and _spelled_by_items(wanted, items, budget):
        return True
    return any(
        _reveals(item, wanted, canon, spellings, tolerance, depth + 1, budget) for item in items
    )


def _as_text(value: Any) -> Any:
    """Bytes as the text they spell (a program reads one as easily as the other)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    return value


def _spelled_by_items(wanted: str, items: list[Any], budget: Budget) -> bool:
    """Whether strings among ``items`` hold every character of ``wanted`` (but its spaces):
    ``['h', 'e', 'l', 'l', 'o']`` or ``['hello', 'world']`` for ``'hello world'``."""
    texts = [_as_text(item) for item in items]
    texts = [text for text in texts if isinstance(text, str)]
    if len(wanted) < 2 or not texts:
        return False
    budget.spend(1 + (len(wanted) + sum(map(len, texts))) // _CHARACTERS_PER_STEP)
    needed = Counter(char for char in wanted if not char.isspace())
    return bool(needed) and needed <= Counter("".join(texts))


def _near(value: Any, wanted: Any, tolerance: Any) -> bool:
    if _is_number(value) and _is_number(wanted):
        try:
            slack = max(float(tolerance or 0.0), 1e-9 * max(1.0, abs(float(wanted))))
            return bool(abs(value - wanted) <= slack)
        except (OverflowError, ValueError, TypeError):
            return bool(value == wanted)
    if isinstance(value, _COLLECTIONS):
        return False  # compared as containers, type and order aside
    try:
        return type(value) is type(wanted) and bool(value == wanted)
    except Exception:
        return True  # an equality that raises: assume the worst


def _sized_alike(value: Any, wanted: Any) -> bool:
    """Containers of one size (a dict is as long as its list of pairs)."""
    return isinstance(wanted, _COLLECTIONS) and len(value) == len(wanted)


def _canon(value: Any, budget: Budget) -> Any:
    """``value`` with containers as sorted tuples of their items' forms (type and order
    forgotten; a dict is its pairs, each a container of key and value), bytes as text and
    numbers as floats, so that alike values compare equal."""
    budget.spend()
    value = _as_text(value)
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
        pairs = [_sorted_form([_canon(k, budget), _canon(v, budget)]) for k, v in value.items()]
        return _sorted_form(pairs)
    if isinstance(value, (list, tuple, set, frozenset)):
        return _sorted_form([_canon(item, budget) for item in value])
    return ("x", repr(value))


def _sorted_form(forms: list[Any]) -> Any:
    try:
        return ("c", tuple(sorted(forms)))
    except TypeError:
        return ("c", tuple(forms))


def _spellings(wanted: Any) -> list[list[str]]:
    """How ``wanted`` could be written inside a string: for each of its scalars (a container's
    items, a dict's keys and values, at most 64 of them) the texts that would show it; ``[]``
    when no text would."""
    leaves: list[Any] = []
    if not _leaves(wanted, leaves, 0):
        return []
    spelled = [_scalar_spellings(leaf) for leaf in leaves]
    return [texts for texts in spelled if texts]


def _leaves(value: Any, into: list[Any], depth: int) -> bool:
    """Appends ``value``'s scalars to ``into``; False past the limits."""
    if depth > _MAX_DEPTH or len(into) > _MAX_SPELLED_ITEMS:
        return False
    if isinstance(value, dict):
        return all(_leaves(item, into, depth + 1) for pair in value.items() for item in pair)
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(_leaves(item, into, depth + 1) for item in value)
    into.append(value)
    return len(into) <= _MAX_SPELLED_ITEMS


def _scalar_spellings(wanted: Any) -> list[str]:
    """The texts that would show a scalar inside a string."""
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
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
