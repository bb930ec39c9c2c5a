"""Engines, sessions and schema migration (Alembic, run programmatically).

Driver errors leave the store as its own (:func:`store_errors`): ``StoreUnavailable`` when the
database cannot be reached or dropped the connection, ``StoreError`` for any other failure of
a read or a write. No SQLAlchemy exception escapes, so callers (the API's 503) need not know
SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from judge_service.exceptions import StoreError, StoreUnavailable

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
SQLITE_BUSY_TIMEOUT_S = 30.0
# Of a driver's reason, what a message keeps (psycopg's spans lines, with hints).
_REASON_CHARS = 300


def normalise_url(url: str | URL) -> URL:
    """Parse a database URL; plain ``postgresql://``/``postgres://`` URLs get psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _is_memory_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def create_engine_for(url: str | URL, **kwargs: Any) -> Engine:
    """An engine for ``url``: SQLite gets WAL, foreign keys and a busy timeout; PostgreSQL gets
    pre-ping so a restarted server costs one failed checkout, not a failed request."""
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect_args: dict[str, Any] = {"timeout": SQLITE_BUSY_TIMEOUT_S}
        if _is_memory_sqlite(parsed):
            # One shared connection, or every checkout would see its own empty database.
            connect_args["check_same_thread"] = False
            kwargs.setdefault("poolclass", StaticPool)
        kwargs["connect_args"] = {**connect_args, **kwargs.get("connect_args", {})}
        engine = create_engine(parsed, **kwargs)
        event.listen(engine, "connect", _sqlite_on_connect)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(parsed, **kwargs)


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded values usable after commit (short sessions, plain data out)."""
    return sessionmaker(bind=engine, expire_on_commit=False)


@contextmanager
def store_errors() -> Iterator[None]:
    """SQLAlchemy's errors as the store's: ``StoreUnavailable`` for a lost or unreachable
    database, ``StoreError`` for any other; the message is the driver's reason."""
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        raise StoreUnavailable(f"database unavailable: {_reason(exc)}") from exc
    except DBAPIError as exc:
        if exc.connection_invalidated:
            raise StoreUnavailable(f"database connection lost: {_reason(exc)}") from exc
        raise StoreError(f"database error: {_reason(exc)}") from exc
    except SQLAlchemyError as exc:
        raise StoreError(f"database error: {_reason(exc)}") from exc


def _reason(exc: SQLAlchemyError) -> str:
    reason = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    return " ".join(str(reason).split())[:_REASON_CHARS]


@contextmanager
def session_scope(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """One transaction: committed on success, rolled back on error; a driver error raises
    ``StoreError`` (``StoreUnavailable`` for a lost or unreachable database)."""
    with store_errors(), sessions.begin() as session:
        yield session


def alembic_config(url: str | URL | None = None) -> Config:
    """An Alembic config for the packaged migrations; no alembic.ini needed."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    if url is not None:
        # Passed as an attribute, not an ini option: ConfigParser would interpolate "%".
        config.attributes["database_url"] = normalise_url(url).render_as_string(hide_password=False)
    return config


def upgrade(url: str | URL | Engine, revision: str = "head") -> None:
    """Migrate the database to ``revision`` (a no-op when it is already there)."""
    config = alembic_config()
    engine = url if isinstance(url, Engine) else create_engine_for(url)
    try:
        with store_errors(), engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        if not isinstance(url, Engine):
            engine.dispose()


def current_revision(url: str | URL | Engine) -> str | None:
    """The revision the database is at (None for an unmigrated database)."""
    engine = url if isinstance(url, Engine) else create_engine_for(url)
    try:
        with store_errors(), engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        if not isinstance(url, Engine):
            engine.dispose()
