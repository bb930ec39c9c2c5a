"""ORM tables of the store. The schema itself is created by the Alembic migrations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from judge_service.store.types import SafeJSON, SafeText, UTCDateTime, utcnow

JOB_STATUSES = ("queued", "running", "done", "failed")
RESULT_STATUSES = ("ok", "error", "system_error")

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigIntId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class ProblemRow(Base):
    __tablename__ = "problems"

    id: Mapped[str] = mapped_column(SafeText(), primary_key=True)
    latest_version: Mapped[int] = mapped_column(Integer())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    versions: Mapped[list[ProblemVersionRow]] = relationship(
        back_populates="problem", cascade="all, delete-orphan", passive_deletes=True
    )


class ProblemVersionRow(Base):
    __tablename__ = "problem_versions"
    __table_args__ = (UniqueConstraint("problem_id", "content_hash"),)

    problem_id: Mapped[str] = mapped_column(
        SafeText(), ForeignKey("problems.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer(), primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    body: Mapped[dict[str, Any]] = mapped_column(SafeJSON())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    problem: Mapped[ProblemRow] = relationship(back_populates="versions")


class BatchJobRow(Base):
    __tablename__ = "batch_jobs"
    __table_args__ = (
        CheckConstraint(f"status IN {JOB_STATUSES!r}", name="status"),
        CheckConstraint("completed >= 0", name="completed"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    total: Mapped[int] = mapped_column(Integer())
    completed: Mapped[int] = mapped_column(Integer(), default=0)
    error: Mapped[str | None] = mapped_column(SafeText())
    options: Mapped[dict[str, Any]] = mapped_column(SafeJSON())
    request: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON())
    """The submitted batch, so that another API process can resume the job if its own dies."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)


class SubmissionRow(Base):
    __tablename__ = "submissions"
    __table_args__ = (
        # Makes re-delivered job results idempotent; NULL job ids (sync batches) never clash.
        UniqueConstraint("job_id", "position"),
        Index("ix_submissions_problem", "problem_id", "problem_version"),
    )

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    job_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("batch_jobs.id", ondelete="CASCADE")
    )
    position: Mapped[int] = mapped_column(Integer())
    client_id: Mapped[str | None] = mapped_column(SafeText())
    problem_id: Mapped[str | None] = mapped_column(SafeText())
    problem_version: Mapped[int | None] = mapped_column(Integer())
    language: Mapped[str | None] = mapped_column(SafeText())
    code_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)

    result: Mapped[ResultRow | None] = relationship(
        back_populates="submission", cascade="all, delete-orphan", passive_deletes=True
    )


class ResultRow(Base):
    __tablename__ = "results"
    __table_args__ = (CheckConstraint(f"status IN {RESULT_STATUSES!r}", name="status"),)

    submission_id: Mapped[int] = mapped_column(
        BigIntId, ForeignKey("submissions.id", ondelete="CASCADE"), primary_key=True
    )
    status: Mapped[str] = mapped_column(String(16))
    verdict: Mapped[str | None] = mapped_column(String(8))
    pass_rate: Mapped[float | None] = mapped_column(Float())
    reward: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON())
    complexity: Mapped[dict[str, Any] | None] = mapped_column(SafeJSON())
    tests: Mapped[list[dict[str, Any]]] = mapped_column(SafeJSON())
    compile_output: Mapped[str | None] = mapped_column(SafeText())
    error: Mapped[str | None] = mapped_column(SafeText())
    cached: Mapped[bool] = mapped_column(Boolean(), default=False)
    load_dependent: Mapped[bool] = mapped_column(Boolean(), default=False, server_default=false())
    truncated: Mapped[bool] = mapped_column(Boolean(), default=False, server_default=false())

    submission: Mapped[SubmissionRow] = relationship(back_populates="result")


class ResultCacheRow(Base):
    __tablename__ = "result_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(SafeJSON())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow)
    hits: Mapped[int] = mapped_column(Integer(), default=0)
