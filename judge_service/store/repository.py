"""``Store``: the service's persistence API over SQLite or PostgreSQL.

Thread-safe: one engine (its pool is shared), and every call runs in its own short session and
transaction. Values go in and come out as plain data (dicts, pydantic models); no ORM object
escapes, and no SQLAlchemy exception: a driver error surfaces as ``StoreError``
(``StoreUnavailable`` when the database cannot be reached or dropped the connection).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from types import TracebackType
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, Engine, select, text, update
from sqlalchemy.engine import URL
from sqlalchemy.orm import Session

from judge_service.schemas import Problem
from judge_service.store import keys
from judge_service.store._dialect import chunks, insert_ignore, unique
from judge_service.store.db import (
    create_engine_for,
    make_session_factory,
    session_scope,
    store_errors,
    upgrade,
)
from judge_service.store.models import (
    JOB_STATUSES,
    BatchJobRow,
    ProblemRow,
    ProblemVersionRow,
    ResultCacheRow,
    ResultRow,
    SubmissionRow,
)
from judge_service.store.results import job_dict, result_dump, submission_row
from judge_service.store.sanitize import sanitize
from judge_service.store.types import utcnow

# Fields of a SubmissionResult dump that belong to one submission, not to the cached verdict.
_NOT_CACHED = ("id", "cached")


class Store:
    def __init__(self, url: str | URL | Engine, *, migrate: bool = False) -> None:
        """``url`` is a database URL (or an engine to share); ``migrate`` runs
        ``upgrade`` to head first."""
        self._owns_engine = not isinstance(url, Engine)
        self.engine: Engine = url if isinstance(url, Engine) else create_engine_for(url)
        self._sessions = make_session_factory(self.engine)
        if migrate:
            upgrade(self.engine)

    def close(self) -> None:
        if self._owns_engine:
            self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _session(self) -> AbstractContextManager[Session]:
        return session_scope(self._sessions)

    def ping(self) -> str:
        """The database that answered (its kind and server version); ``StoreUnavailable``
        unless one does."""
        with store_errors(), self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        version = self.engine.dialect.server_version_info or ()
        return f"{self.engine.dialect.name} {'.'.join(str(part) for part in version)}".strip()

    # Problems

    def upsert_problems(self, problems: Sequence[Problem]) -> list[tuple[str, int, bool]]:
        """Store problems; per problem, in order: (id, version, created_new_version).

        A body already stored for that id keeps its version (and becomes the latest again);
        any other body becomes version max+1. Concurrent upserts of one id are serialised.
        """
        if not problems:
            return []
        prepared = [(p.id, p.content_hash(), p.model_dump(mode="json")) for p in problems]
        ids = sorted(unique([sanitize(problem_id) for problem_id, _, _ in prepared]))
        with self._session() as session:
            dialect = session.get_bind().dialect.name
            session.execute(
                insert_ignore(dialect, ProblemRow, ["id"]),
                [{"id": problem_id, "latest_version": 0} for problem_id in ids],
            )
            rows: dict[str, ProblemRow] = {}
            known: dict[str, dict[str, int]] = {problem_id: {} for problem_id in ids}
            for chunk in chunks(ids):
                # Sorted ids: every writer takes the row locks in the same order (no deadlock).
                locked = select(ProblemRow).where(ProblemRow.id.in_(chunk))
                for row in session.scalars(locked.order_by(ProblemRow.id).with_for_update()):
                    rows[row.id] = row
                stored = select(
                    ProblemVersionRow.problem_id,
                    ProblemVersionRow.content_hash,
                    ProblemVersionRow.version,
                ).where(ProblemVersionRow.problem_id.in_(chunk))
                for problem_id, content_hash, version in session.execute(stored):
                    known[problem_id][content_hash] = version
            out: list[tuple[str, int, bool]] = []
            for problem_id, content_hash, body in prepared:
                versions = known[sanitize(problem_id)]
                created = content_hash not in versions
                if created:
                    versions[content_hash] = max(versions.values(), default=0) + 1
                    session.add(
                        ProblemVersionRow(
                            problem_id=problem_id,
                            version=versions[content_hash],
                            content_hash=content_hash,
                            body=body,
                        )
                    )
                row = rows[sanitize(problem_id)]
                if row.latest_version != versions[content_hash]:
                    row.latest_version = versions[content_hash]
                out.append((problem_id, versions[content_hash], created))
        return out

    def get_problem(
        self, problem_id: str, version: int | None = None
    ) -> tuple[Problem, int] | None:
        """A problem at ``version`` (default: the latest) and that version; None if unknown."""
        stmt = select(ProblemVersionRow.body, ProblemVersionRow.version)
        if version is None:
            stmt = stmt.join(
                ProblemRow,
                (ProblemRow.id == ProblemVersionRow.problem_id)
                & (ProblemRow.latest_version == ProblemVersionRow.version),
            ).where(ProblemRow.id == problem_id)
        else:
            stmt = stmt.where(
                ProblemVersionRow.problem_id == problem_id, ProblemVersionRow.version == version
            )
        with self._session() as session:
            row = session.execute(stmt).first()
        return None if row is None else (Problem.model_validate(row.body), row.version)

    def get_problems(self, problem_ids: Sequence[str]) -> dict[str, tuple[Problem, int]]:
        """Latest versions of many problems in one query, by (sanitised) id; unknown ids absent."""
        out: dict[str, tuple[Problem, int]] = {}
        with self._session() as session:
            for chunk in chunks(unique(list(problem_ids))):
                stmt = (
                    select(ProblemRow.id, ProblemVersionRow.body, ProblemVersionRow.version)
                    .join(
                        ProblemVersionRow,
                        (ProblemRow.id == ProblemVersionRow.problem_id)
                        & (ProblemRow.latest_version == ProblemVersionRow.version),
                    )
                    .where(ProblemRow.id.in_(chunk))
                )
                for problem_id, body, version in session.execute(stmt):
                    out[problem_id] = (Problem.model_validate(body), version)
        return out

    # Result cache

    cache_key = staticmethod(keys.cache_key)
    code_hash = staticmethod(keys.code_hash)

    def get_cached(self, cache_keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Cached result dumps (without id/cached) by key, absent keys left out; counts a hit."""
        wanted = unique(list(cache_keys))
        out: dict[str, dict[str, Any]] = {}
        with self._session() as session:
            returning = session.get_bind().dialect.update_returning
            for chunk in chunks(wanted):
                bump = (
                    update(ResultCacheRow)
                    .where(ResultCacheRow.key.in_(chunk))
                    .values(hits=ResultCacheRow.hits + 1)
                    .execution_options(synchronize_session=False)
                )
                if returning:
                    found = session.execute(
                        bump.returning(ResultCacheRow.key, ResultCacheRow.result)
                    )
                else:  # SQLite before 3.35
                    session.execute(bump)
                    found = session.execute(
                        select(ResultCacheRow.key, ResultCacheRow.result).where(
                            ResultCacheRow.key.in_(chunk)
                        )
                    )
                out.update({key: result for key, result in found})
        return out

    def put_cached(self, entries: Mapping[str, Mapping[str, Any]]) -> None:
        """Cache result dumps by key; keys already cached keep their first result."""
        if not entries:
            return
        rows = [
            {"key": key, "result": {k: v for k, v in dict(result).items() if k not in _NOT_CACHED}}
            for key, result in entries.items()
        ]
        with self._session() as session:
            statement = insert_ignore(session.get_bind().dialect.name, ResultCacheRow, ["key"])
            for chunk in chunks(rows, 500):
                session.execute(statement, list(chunk))

    # Batch jobs and results

    def create_job(
        self,
        total: int,
        options: Mapping[str, Any] | None = None,
        request: Mapping[str, Any] | None = None,
    ) -> str:
        """A new queued job of ``total`` submissions; its id (a UUID string). With ``request``
        (the batch as submitted) another process can resume it: :meth:`claim_stale_jobs`."""
        if total < 0:
            raise ValueError("total must be >= 0")
        job_id = str(uuid.uuid4())
        with self._session() as session:
            session.add(
                BatchJobRow(
                    id=job_id,
                    status="queued",
                    total=total,
                    completed=0,
                    options=dict(options or {}),
                    request=dict(request) if request is not None else None,
                )
            )
        return job_id

    def mark_job(
        self, job_id: str, status: str, completed: int | None = None, error: str | None = None
    ) -> None:
        """Set a job's status (and completed count, error if given); KeyError if unknown."""
        if status not in JOB_STATUSES:
            raise ValueError(f"job status must be one of {JOB_STATUSES}, not {status!r}")
        values: dict[str, Any] = {"status": status}
        if completed is not None:
            values["completed"] = completed
        if error is not None:
            values["error"] = error
        with self._session() as session:
            done = session.execute(
                update(BatchJobRow).where(BatchJobRow.id == job_id).values(values)
            )
            if cast(CursorResult[Any], done).rowcount == 0:
                raise KeyError(job_id)

    def touch_job(self, job_id: str) -> None:
        """Refresh a job's ``updated_at``: the heartbeat of the process running it."""
        with self._session() as session:
            session.execute(
                update(BatchJobRow)
                .where(BatchJobRow.id == job_id)
                .values(status=BatchJobRow.status)
            )

    def fail_stale_job(self, job_id: str, stale_after_s: float, error: str) -> bool:
        """Mark a queued or running job that kept no request failed when nothing touched it
        for ``stale_after_s`` (its process died); True when it was marked."""
        with self._session() as session:
            done = session.execute(
                update(BatchJobRow)
                .where(
                    BatchJobRow.id == job_id,
                    *_stale(stale_after_s),
                    BatchJobRow.request.is_(None),
                )
                .values(status="failed", error=error)
            )
            return cast(CursorResult[Any], done).rowcount > 0

    def claim_stale_jobs(
        self, stale_after_s: float, job_id: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """Take over the resumable jobs (those of ``job_id`` only, if given) that nothing
        touched for ``stale_after_s``: each is marked running, which refreshes its heartbeat,
        so of several processes claiming at once exactly one gets it. (job_id, request) of
        each job claimed."""
        stale = (*_stale(stale_after_s), BatchJobRow.request.is_not(None))
        with self._session() as session:
            found = select(BatchJobRow.id, BatchJobRow.request).where(*stale)
            if job_id is not None:
                found = found.where(BatchJobRow.id == job_id)
            candidates = list(session.execute(found))
        claimed: list[tuple[str, dict[str, Any]]] = []
        for candidate_id, request in candidates:
            with self._session() as session:
                taken = session.execute(
                    update(BatchJobRow)
                    .where(BatchJobRow.id == candidate_id, *stale)
                    .values(status="running", updated_at=utcnow())
                )
            if cast(CursorResult[Any], taken).rowcount == 1:
                claimed.append((candidate_id, request))
        return claimed

    def add_results(self, job_id: str | None, items: Sequence[Mapping[str, Any]]) -> list[int]:
        """Store judged submissions with their results in one transaction; the new submission ids.

        Each item has position, client_id, problem_id, problem_version, language, code_hash and
        the SubmissionResult dump, either under ``"result"`` or flat in the item itself. For a
        job (KeyError if unknown), positions already stored are skipped (re-delivery is
        harmless) and ``completed`` grows by the number stored.
        """
        fresh = list({int(item["position"]): item for item in reversed(items)}.values())[::-1]
        job = update(BatchJobRow).where(BatchJobRow.id == job_id)
        with self._session() as session:
            if job_id is not None:
                # Touching the job row first locks it: concurrent adders for a job serialise.
                touched = session.execute(job.values(status=BatchJobRow.status))
                if cast(CursorResult[Any], touched).rowcount == 0:
                    raise KeyError(job_id)
                taken: set[int] = set()
                for chunk in chunks([int(item["position"]) for item in fresh]):
                    taken.update(
                        session.scalars(
                            select(SubmissionRow.position).where(
                                SubmissionRow.job_id == job_id, SubmissionRow.position.in_(chunk)
                            )
                        )
                    )
                fresh = [item for item in fresh if int(item["position"]) not in taken]
            rows = [submission_row(job_id, item) for item in fresh]
            session.add_all(rows)
            session.flush()
            if job_id is not None and rows:
                session.execute(job.values(completed=BatchJobRow.completed + len(rows)))
            return [row.id for row in rows]

    def get_job(self, job_id: str) -> dict[str, Any] | None:
        """job_id, status, total, completed, error, options, created_at, updated_at and results:
        the result dumps in position order once the job is done, else None. It validates as a
        ``JobStatus``."""
        with self._session() as session:
            job = session.get(BatchJobRow, job_id)
            if job is None:
                return None
            results: list[dict[str, Any]] | None = None
            if job.status == "done":
                stored = (
                    select(SubmissionRow, ResultRow)
                    .join(ResultRow, ResultRow.submission_id == SubmissionRow.id)
                    .where(SubmissionRow.job_id == job_id)
                    .order_by(SubmissionRow.position)
                )
                results = [result_dump(sub, res) for sub, res in session.execute(stored)]
            return job_dict(job, results)


def _stale(stale_after_s: float) -> tuple[ColumnElement[bool], ...]:
    """A queued or running job that nothing touched for ``stale_after_s``: its process died."""
    cutoff = utcnow() - timedelta(seconds=stale_after_s)
    return BatchJobRow.status.in_(("queued", "running")), BatchJobRow.updated_at < cutoff
