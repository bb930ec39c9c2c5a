"""Alembic environment. The database is, in order: ``config.attributes["connection"]`` (an open
connection, as ``db.upgrade`` passes), ``config.attributes["database_url"]``, the ini's
``sqlalchemy.url``, ``JUDGE_DATABASE_URL``, and ``sqlite:///./judge.db``."""

from __future__ import annotations

import os
from logging.config import fileConfig
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection
from sqlalchemy.pool import NullPool

from judge_service.store.db import create_engine_for, normalise_url
from judge_service.store.models import Base
from judge_service.store.types import SafeJSON, SafeText, UTCDateTime

DEFAULT_URL = "sqlite:///./judge.db"

config = context.config
target_metadata = Base.metadata

if config.config_file_name is not None:
    # Only when run from the alembic CLI with an ini; programmatic runs keep the app's logging.
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    url = (
        config.attributes.get("database_url")
        or config.get_main_option("sqlalchemy.url")
        or os.environ.get("JUDGE_DATABASE_URL")
        or DEFAULT_URL
    )
    return normalise_url(str(url)).render_as_string(hide_password=False)


# Autogenerate writes the store's column types as plain SQLAlchemy types, so revisions never
# import application code.
_RENDERED_TYPES = {
    SafeText: "sa.Text()",
    SafeJSON: (
        'sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")'
    ),
    UTCDateTime: "sa.DateTime(timezone=True)",
}


def render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    if type_ == "type" and type(obj) in _RENDERED_TYPES:
        if isinstance(obj, SafeJSON):
            autogen_context.imports.add("from sqlalchemy.dialects import postgresql")
        return _RENDERED_TYPES[type(obj)]
    return False


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=render_item,
    )


def run_migrations_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine_for(database_url(), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
