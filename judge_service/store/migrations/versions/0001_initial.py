"""Initial schema: problems and their versions, batch jobs, submissions, results, result cache.

Revision ID: 0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JOB_STATUSES = "('queued', 'running', 'done', 'failed')"
RESULT_STATUSES = "('ok', 'error', 'system_error')"


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON(none_as_null=True).with_variant(
        postgresql.JSONB(none_as_null=True), "postgresql"
    )


def _timestamp() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def _big_id() -> sa.types.TypeEngine[int]:
    # SQLite only auto-increments an INTEGER PRIMARY KEY.
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "problems",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("latest_version", sa.Integer(), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.Column("updated_at", _timestamp(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_problems"),
    )
    op.create_table(
        "problem_versions",
        sa.Column("problem_id", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("body", _json(), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.ForeignKeyConstraint(
            ["problem_id"],
            ["problems.id"],
            name="fk_problem_versions_problem_id_problems",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("problem_id", "version", name="pk_problem_versions"),
        sa.UniqueConstraint(
            "problem_id", "content_hash", name="uq_problem_versions_problem_id_content_hash"
        ),
    )
    op.create_table(
        "batch_jobs",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("completed", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("options", _json(), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.Column("updated_at", _timestamp(), nullable=False),
        sa.CheckConstraint(f"status IN {JOB_STATUSES}", name="ck_batch_jobs_status"),
        sa.CheckConstraint("completed >= 0", name="ck_batch_jobs_completed"),
        sa.PrimaryKeyConstraint("id", name="pk_batch_jobs"),
    )
    op.create_table(
        "submissions",
        sa.Column("id", _big_id(), autoincrement=True, nullable=False),
        sa.Column("job_id", sa.String(36), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("client_id", sa.Text(), nullable=True),
        sa.Column("problem_id", sa.Text(), nullable=True),
        sa.Column("problem_version", sa.Integer(), nullable=True),
        sa.Column("language", sa.Text(), nullable=True),
        sa.Column("code_hash", sa.String(64), nullable=True),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["batch_jobs.id"],
            name="fk_submissions_job_id_batch_jobs",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_submissions"),
        sa.UniqueConstraint("job_id", "position", name="uq_submissions_job_id_position"),
    )
    op.create_index(
        "ix_submissions_problem", "submissions", ["problem_id", "problem_version"], unique=False
    )
    op.create_table(
        "results",
        sa.Column("submission_id", _big_id(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=True),
        sa.Column("pass_rate", sa.Float(), nullable=True),
        sa.Column("reward", _json(), nullable=True),
        sa.Column("complexity", _json(), nullable=True),
        sa.Column("tests", _json(), nullable=False),
        sa.Column("compile_output", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("cached", sa.Boolean(), nullable=False),
        sa.CheckConstraint(f"status IN {RESULT_STATUSES}", name="ck_results_status"),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name="fk_results_submission_id_submissions",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("submission_id", name="pk_results"),
    )
    op.create_table(
        "result_cache",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("result", _json(), nullable=False),
        sa.Column("created_at", _timestamp(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_result_cache"),
    )


def downgrade() -> None:
    op.drop_table("result_cache")
    op.drop_table("results")
    op.drop_index("ix_submissions_problem", table_name="submissions")
    op.drop_table("submissions")
    op.drop_table("batch_jobs")
    op.drop_table("problem_versions")
    op.drop_table("problems")
