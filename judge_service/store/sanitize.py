"""The one place where values are made storable: PostgreSQL rejects NUL in text and JSON."""

from __future__ import annotations

from typing import Any, overload

NUL = "\x00"
REPLACEMENT = "\ufffd"


@overload
def sanitize(value: str) -> str: ...
@overload
def sanitize(value: None) -> None: ...
@overload
def sanitize(value: Any) -> Any: ...
def sanitize(value: Any) -> Any:
    """Replace NUL with U+FFFD in a string, or in every string (keys too) of a JSON value."""
    if isinstance(value, str):
        return value.replace(NUL, REPLACEMENT) if NUL in value else value
    if isinstance(value, dict):
        return {sanitize(key): sanitize(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [sanitize(item) for item in value]
    return value
