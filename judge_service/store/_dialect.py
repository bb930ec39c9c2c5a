"""Statements whose spelling differs between SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from judge_service.store.models import Base

T = TypeVar("T")

# Bound parameters per statement: well under SQLite's 32766 and PostgreSQL's 65535.
CHUNK = 2000


def insert_ignore(dialect_name: str, table: type[Base], index_elements: Sequence[str]) -> Insert:
    """INSERT ... ON CONFLICT (index_elements) DO NOTHING (execute it with a list of rows)."""
    if dialect_name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=index_elements)
    if dialect_name == "sqlite":
        return sqlite.insert(table).on_conflict_do_nothing(index_elements=index_elements)
    raise NotImplementedError(f"the store supports SQLite and PostgreSQL, not {dialect_name}")


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def unique(items: Sequence[T]) -> list[T]:
    """``items`` without repeats, first occurrence kept, order kept."""
    return list(dict.fromkeys(items))
