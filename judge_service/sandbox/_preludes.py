"""Precompiled preludes: common sets of C++ standard headers the C++ image precompiled, given
to a program that includes all of them at its top.

C++20's standard headers cost a HumanEval-style program most of its compile (HumanEval-X's
CPP/3, with ``<stdio.h>``, ``<vector>`` and ``<assert.h>``, is 27,457 lines preprocessed;
parsing is about four fifths of its compile). A precompiled header is used only when it comes
first and holds exactly what the program would have parsed, so a prelude is given (``g++
-include /opt/judge/pch/vector+string.hpp``, whose ``.gch`` sits beside it) only when

- the program's leading block (what comes before its first line of code: blank lines,
  comments and ``#include <...>`` lines, nothing else) includes every header of the prelude,
  so the program sees no declaration it did not ask for (a prelude holding ``<string>``,
  given to a program that includes only ``<vector>``, could make its own ``string`` ambiguous);
- that block includes standard headers only (another header may rely on declarations a
  standard one after it makes);
- and it does not include ``<bits/stdc++.h>``, whose own precompiled header, taken only when
  it comes first, does more.

Standard headers may be included in any order to the same effect ([using.headers]), and the
block's own ``#include`` lines then find their include guards set, so the program compiles as
it would have; a ``#define``, ``#pragma`` or conditional before an include ends the block (it
could change what the header declares), as does a comment continued by a backslash (with
only whitespace after it, too).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

PRELUDE_DIR = "/opt/judge/pch"
# The preludes the C++ image builds for the cpp language (gnu++20): the headers HumanEval-
# style programs and contest code include most (HumanEval-X's 164 prompts: <vector> in 89,
# <string> in 77, <algorithm> in 32), each 20-40 MB precompiled.
CPP_PRELUDES: tuple[tuple[str, ...], ...] = (
    ("vector",),
    ("string",),
    ("vector", "string"),
    ("vector", "algorithm"),
    ("string", "algorithm"),
    ("vector", "string", "algorithm"),
    ("iostream",),
    ("iostream", "vector"),
    ("iostream", "vector", "algorithm"),
)
_INCLUDE = re.compile(r"#[ \t]*include[ \t]*<([A-Za-z0-9_./+-]+)>[ \t]*")
# GCC splices a line ending in a backslash that only whitespace follows, too.
_SPLICED = re.compile(r"\\[ \t\f\v]*$")
# The C library's headers as C++ has them ([support.c.headers]). Only standard headers may be
# included in any order to the same effect: another header listed first may rely on what a
# standard one it does not include declares (<linux/sysctl.h> before <vector> is CE alone).
_C_HEADERS = frozenset(
    f"{name}.h"
    for name in (
        "assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp"
        " signal stdalign stdarg stdatomic stdbool stddef stdint stdio stdlib string tgmath"
        " time uchar wchar wctype"
    ).split()
)
# A whole-header precompiled header of its own (sandbox_images/cpp/Dockerfile).
_OWN_PCH = "bits/stdc++.h"


def prelude_path(headers: Iterable[str]) -> str:
    return f"{PRELUDE_DIR}/{'+'.join(headers)}.hpp"


def leading_includes(code: str) -> list[str]:
    """The headers the program's leading block includes, in order (see the module's text)."""
    headers: list[str] = []
    in_comment = False
    for line in code.split("\n"):
        text = line.rstrip("\r")
        if _SPLICED.search(text):  # a spliced line: a comment or directive goes on below
            break
        if in_comment:
            end = text.find("*/")
            if end < 0:
                continue
            in_comment = False
            text = text[end + 2 :]
        text = _without_closed_comments(text).split("//", 1)[0].strip()
        if text.startswith("/*"):
            in_comment = True
            continue
        if not text:
            continue
        include = _INCLUDE.fullmatch(text)
        if include is None:
            break
        headers.append(include[1])
    return headers


def chosen_prelude(code: str, preludes: tuple[tuple[str, ...], ...]) -> tuple[str, ...] | None:
    """The largest prelude whose every header the program's leading block includes."""
    if not preludes:
        return None
    included = set(leading_includes(code))
    if _OWN_PCH in included or not all(map(_standard, included)):
        return None
    fitting = [prelude for prelude in preludes if included.issuperset(prelude)]
    return max(fitting, key=len, default=None)


def _without_closed_comments(text: str) -> str:
    """``text`` without the ``/* ... */`` comments that close on it; an unclosed one and what
    follows it stay (the caller reads it as a comment going on to the next lines)."""
    while True:
        start = text.find("/*")
        if start < 0:
            return text
        end = text.find("*/", start + 2)
        if end < 0:
            return text
        text = text[:start] + " " + text[end + 2 :]


def _standard(header: str) -> bool:
    """A C++ library header (<vector>, <cstdio>: no directory, no extension) or a C one."""
    return header in _C_HEADERS or ("/" not in header and "." not in header)
