"""Batch jobs keep their request, so that a job whose API process died can be resumed.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    json = sa.JSON(none_as_null=True).with_variant(
        postgresql.JSONB(none_as_null=True), "postgresql"
    )
    op.add_column("batch_jobs", sa.Column("request", json, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("batch_jobs") as batch:
        batch.drop_column("request")
