"""Stored results keep two flags: the verdict depended on host load (a wall clock decided it),
and program output in it was cut to the reply's cap.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-04 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    false = sa.false()
    op.add_column(
        "results",
        sa.Column("load_dependent", sa.Boolean(), nullable=False, server_default=false),
    )
    op.add_column(
        "results", sa.Column("truncated", sa.Boolean(), nullable=False, server_default=false)
    )


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("truncated")
        batch.drop_column("load_dependent")
