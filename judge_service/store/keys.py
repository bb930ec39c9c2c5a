"""Content addressing: the normalised code hash and the result-cache key."""

from __future__ import annotations

import hashlib
import json


def normalise_code(code: str) -> str:
    """CRLF/CR to LF, trailing whitespace off every line, no leading or trailing blank lines."""
    lines = [line.rstrip() for line in code.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def code_hash(code: str) -> str:
    """sha256 (hex) of the normalised code."""
    return hashlib.sha256(normalise_code(code).encode("utf-8", "surrogatepass")).hexdigest()


def cache_key(problem_id: str, version: int, language: str, code: str) -> str:
    """sha256 (hex) of (problem_id, problem_version, language, normalised code hash)."""
    canonical = json.dumps([problem_id, version, language, code_hash(code)], ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
