"""Content addressing: the code hash and the result-cache key, both of the exact code.

No normalisation: whitespace changes what programs do (a backslash followed by spaces is a
SyntaxError, trailing spaces inside a multi-line string are output, a leading blank line moves
every line number), so a key that ignored it would let one user's result answer for another's
different program.
"""

from __future__ import annotations

import hashlib
import json

# Part of every cache key, so that no entry stored under an older key scheme (one that
# normalised whitespace, and so may hold another program's result) is ever found again.
_KEY_SCHEME = "exact-code/2"


def code_hash(code: str) -> str:
    """sha256 (hex) of the code as submitted."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(problem_id: str, version: int, language: str, code: str) -> str:
    """sha256 (hex) of (problem_id, problem_version, language, code hash)."""
    canonical = json.dumps(
        [_KEY_SCHEME, problem_id, version, language, code_hash(code)], ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
