from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from judge_service.store import Store, create_engine_for, upgrade
from judge_service.store.db import MIGRATIONS_DIR, alembic_config, current_revision
from judge_service.store.models import Base

TABLES = {"problems", "problem_versions", "batch_jobs", "submissions", "results", "result_cache"}
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def _tables(url: str) -> set[str]:
    engine = create_engine_for(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_one_head() -> None:
    assert HEAD == "0003"


def test_upgrade_creates_all_tables_and_second_upgrade_is_a_no_op(db_url: str) -> None:
    assert _tables(db_url) == set()
    assert current_revision(db_url) is None
    upgrade(db_url)
    assert _tables(db_url) == TABLES | {"alembic_version"}
    assert current_revision(db_url) == HEAD

    with Store(db_url) as store:
        job_id = store.create_job(1, {})
    upgrade(db_url)
    assert current_revision(db_url) == HEAD
    with Store(db_url) as store:
        job = store.get_job(job_id)
    assert job is not None and job["status"] == "queued"


def test_models_match_migrations(db_url: str) -> None:
    upgrade(db_url)
    engine = create_engine_for(db_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_up_again(db_url: str) -> None:
    upgrade(db_url)
    engine = create_engine_for(db_url)
    try:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            command.downgrade(config, "base")
        assert TABLES.isdisjoint(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    upgrade(db_url)
    assert TABLES <= _tables(db_url)


def test_alembic_cli_with_the_packaged_ini(db_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "JUDGE_DATABASE_URL": db_url}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "alembic",
            "-c",
            str(MIGRATIONS_DIR / "alembic.ini"),
            "upgrade",
            "head",
        ],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    assert current_revision(db_url) == HEAD
    engine = create_engine_for(db_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT count(*) FROM problems")).scalar_one() == 0
    finally:
        engine.dispose()
