"""Alembic environment of the store (``env.py``, ``versions/``); run via ``db.upgrade``."""
