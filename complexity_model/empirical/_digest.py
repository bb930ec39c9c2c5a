"""Digests of a program's answers, to catch a wrong answer on the generated inputs.

The timing runs see inputs that no test covers; a candidate whose answer there differs from
the reference's is not measured (its class would describe a wrong program). Answers are
compared by a short digest of a normal form, not in full (an answer can be megabytes): tokens
of printed output, with numbers that are not integers written to 6 significant digits (the
float checker's tolerance, approximately) and case folded when the checker ignores case; a
function's return value (and its arguments after the call, for in-place answers) as canonical
JSON. A digest is None when there is nothing to compare.

This module is stdlib-only and self-contained: :mod:`._driver` embeds its source in the
program that runs in the sandbox, so the sandbox and the host compute the same digests.
"""

import hashlib
import json
import re

_INTEGER = re.compile(r"[+-]?\d+")


def _token(token: str, fold_case: bool) -> str:
    if _INTEGER.fullmatch(token):
        return str(int(token))
    try:
        return format(float(token), ".6g")
    except ValueError:
        return token.lower() if fold_case else token


def digest_text(text: str, fold_case: bool = False) -> str:
    """The digest of printed output, token by token."""
    tokens = " ".join(_token(token, fold_case) for token in text.split())
    return hashlib.sha1(tokens.encode("utf-8", "replace")).hexdigest()[:16]


def _canonical(value: object, depth: int = 0) -> object:
    """The builtin types' own methods read a value, never a subclass's: an answer is what the
    call stored in it, not what its methods compute when read (a list whose ``__iter__``
    computed the right items only when the digest read them would hide work from the clock,
    which is read before the timed calls' answer is digested)."""
    if depth > 50:
        return repr(value)
    if isinstance(value, bool) or value is None or isinstance(value, int | str):
        return value  # json writes an int or str subclass from its stored value
    if isinstance(value, float):
        return float.__format__(value, ".6g")
    if isinstance(value, list):
        return [_canonical(item, depth + 1) for item in list.__iter__(value)]
    if isinstance(value, tuple):
        return [_canonical(item, depth + 1) for item in tuple.__iter__(value)]
    if isinstance(value, dict):
        pairs = dict.items(value)
        items = [[_canonical(k, depth + 1), _canonical(v, depth + 1)] for k, v in pairs]
        return sorted(items, key=repr)
    if isinstance(value, set | frozenset):
        members = set.__iter__(value) if isinstance(value, set) else frozenset.__iter__(value)
        return sorted((_canonical(item, depth + 1) for item in members), key=repr)
    return repr(value)


def digest_value(value: object) -> str:
    """The digest of a returned value (lists and tuples alike, floats to 6 digits)."""
    text = json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]
