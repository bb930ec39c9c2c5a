"""Persistence: problems and their versions, batch jobs, results, the result cache.

``Store(url)`` is the API; ``upgrade(url)`` migrates a database (SQLite or PostgreSQL).
"""

from judge_service.store.db import create_engine_for, make_session_factory, upgrade
from judge_service.store.keys import cache_key, code_hash
from judge_service.store.repository import Store
from judge_service.store.sanitize import sanitize

__all__ = [
    "Store",
    "cache_key",
    "code_hash",
    "create_engine_for",
    "make_session_factory",
    "sanitize",
    "upgrade",
]
