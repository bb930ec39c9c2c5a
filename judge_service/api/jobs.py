"""Queued batches (``POST /v1/submissions``): run them in the background, beat their heartbeat,
and resume the ones whose API process died.

A job keeps its request in the store. While an API process runs it, a heartbeat refreshes its
row; a row that nothing refreshed for ``job_stale_after_s`` belongs to a dead process, and any
API process (a poll of the job, or the sweep every ``job_stale_after_s``) claims it and runs the
batch again: the items the dead process finished come from the result cache, and results
already stored for a position are kept, so nothing is judged twice and nothing is lost.
"""

from __future__ import annotations

import asyncio
import logging

from pydantic import ValidationError

from judge_service._store_retry import ride_out
from judge_service.api.state import AppState
from judge_service.exceptions import StoreUnavailable
from judge_service.schemas import JudgeRequest

__all__ = ["resume_stale_jobs", "start_job", "sweep_stale_jobs"]

log = logging.getLogger(__name__)


def start_job(state: AppState, job_id: str, request: JudgeRequest) -> None:
    """Run the job in the background of this process."""
    task = asyncio.create_task(_run_job(state, job_id, request))
    state.background.add(task)
    task.add_done_callback(state.background.discard)


async def resume_stale_jobs(state: AppState, job_id: str | None = None) -> int:
    """Claim the stale resumable jobs (or that one) and run them here; how many were taken."""
    claimed = await asyncio.to_thread(
        state.store.claim_stale_jobs, state.settings.job_stale_after_s, job_id
    )
    for claimed_id, raw in claimed:
        try:
            request = JudgeRequest.model_validate(raw)
        except ValidationError as error:  # stored by a version that accepted other fields
            message = f"cannot resume: the stored request no longer validates: {error}"[:2000]
            await asyncio.to_thread(state.store.mark_job, claimed_id, "failed", error=message)
            continue
        log.warning("resuming job %s: the process running it stopped", claimed_id)
        start_job(state, claimed_id, request)
    return len(claimed)


async def sweep_stale_jobs(state: AppState) -> None:
    """Resume stale jobs every ``job_stale_after_s`` until cancelled."""
    while True:
        await asyncio.sleep(state.settings.job_stale_after_s)
        try:
            await resume_stale_jobs(state)
        except Exception:  # the database may be down for a while: try again next round
            log.exception("sweeping stale jobs failed")


async def _run_job(state: AppState, job_id: str, request: JudgeRequest) -> None:
    # A database outage is waited out; one longer than store_outage_s leaves the job running
    # without a heartbeat, so a live process resumes it once the database is back.
    outage_s = state.settings.store_outage_s
    await ride_out(outage_s, state.store.mark_job, job_id, "running")
    heartbeat = asyncio.create_task(_heartbeat(state, job_id))
    try:
        await state.service.judge(request.submissions, request.options, job_id=job_id)
    except StoreUnavailable:
        log.warning("job %s stopped: the database stayed unreachable; it resumes later", job_id)
        return
    except Exception as error:  # the job must end in a state a poller can see
        await ride_out(outage_s, state.store.mark_job, job_id, "failed", error=str(error))
        return
    finally:
        heartbeat.cancel()
    await ride_out(outage_s, state.store.mark_job, job_id, "done")


async def _heartbeat(state: AppState, job_id: str) -> None:
    """Keeps the job's ``updated_at`` fresh, so pollers can tell a slow job from a dead one."""
    while True:
        await asyncio.sleep(state.settings.job_heartbeat_s)
        try:
            await asyncio.to_thread(state.store.touch_job, job_id)
        except Exception:  # a missed beat is retried; the job itself goes on
            continue
