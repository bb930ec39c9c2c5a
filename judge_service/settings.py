"""One settings object for the whole service; every field can be set as ``JUDGE_<NAME>``.

The engine's fields (sandboxes, limits, images, compile cache) are
:class:`~judge_service.sandbox.config.SandboxConfig`'s, which ``Settings`` extends: the
variable names stay ``JUDGE_<NAME>``, and a ``Settings`` is what the service hands the engine.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from judge_service.reward import RewardConfig
from judge_service.sandbox.config import SandboxConfig

# A data directory of its own, git-ignored; created on first use (see api/app.py).
DEFAULT_DATA_DIR = Path("data")
DEFAULT_DATABASE_URL = f"sqlite:///./{DEFAULT_DATA_DIR}/judge.db"


class Settings(SandboxConfig):
    model_config = SettingsConfigDict(
        env_prefix="JUDGE_", env_file=".env", extra="ignore", env_nested_delimiter="__"
    )

    database_url: str = Field(
        DEFAULT_DATABASE_URL,
        description="SQLAlchemy URL of the store, e.g. postgresql+psycopg://user@host/db.",
    )
    broker_url: str | None = Field(
        None,
        description="Celery broker (redis://... or amqp://...). Unset: judge in-process, no queue.",
    )
    result_backend: str | None = Field(
        None, description="Celery result backend; defaults to the broker when it is Redis."
    )
    queue_name: str = Field("judge", description="Celery queue the judge tasks go to.")
    chunk_size: int = Field(
        8, ge=1, description="Submissions per task: a batch fans out in chunks of this size."
    )
    task_visibility_timeout_s: int = Field(
        300,
        ge=5,
        description="Redis broker: a task a dead worker held is redelivered after this long.",
    )
    batch_timeout_s: float = Field(
        3600.0, gt=0, description="Longest a synchronous batch may wait for its results."
    )
    broker_outage_s: float = Field(
        300.0,
        ge=0,
        description="How long a queued job waits out an unreachable broker; the chunks it may "
        "have lost are sent again when it is back, and what is still unjudged after this long "
        "ends as system_error (a retry of the job judges it). Synchronous requests answer 503.",
    )
    store_outage_s: float = Field(
        60.0,
        ge=0,
        description="How long a queued job waits out an unreachable database, its writes made "
        "again when it answers; past that the job stops and resumes when it is stale "
        "(job_stale_after_s). Synchronous requests answer 503.",
    )
    worker_concurrency: int = Field(2, ge=1, description="Chunks one worker judges at once.")
    job_heartbeat_s: float = Field(
        10.0, gt=0, description="How often the API process marks a queued job it runs alive."
    )
    job_stale_after_s: float = Field(
        120.0,
        gt=0,
        description="A queued job with no heartbeat for this long belongs to a dead API process: "
        "the next poll of it or the next sweep (every job_stale_after_s) resumes it in a live "
        "one; must exceed twice job_heartbeat_s.",
    )
    api_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated; when set, requests need 'Authorization: Bearer <key>'.",
    )
    max_batch: int = Field(4096, ge=1, description="Most submissions in one request.")
    max_body_bytes: int = Field(256 << 20, ge=1024, description="Largest request body.")
    judge_test_suites: bool = Field(
        False,
        description="Judge (rewards, /v1/judge and /v1/submissions) in the test-suite languages "
        "(pytest, junit, jest, gtest, go_test, rust_test, D_ut): their verdict is the exit "
        "status of a process that runs the candidate's code, so a program that exits 0 before "
        "its tests run is AC. Off: refused there; /run_code and /submit run them as "
        "SandboxFusion does. Turn on only for data no policy is optimised against.",
    )
    inline_problems_mb: int = Field(
        256,
        ge=0,
        description="Memory for the inline problems an API process keeps, so that clients name a "
        "problem they sent before by its problem_hash instead of sending it again (0: none kept).",
    )
    max_completion_chars: int = Field(
        1 << 20,
        ge=1,
        description="Longest completion (or OpenRLHF query or prompt) code is extracted from; a "
        "longer one is an error for its item, or HTTP 413 for /submit and /openrlhf/reward.",
    )
    complexity_empirical: bool = Field(
        True,
        description="Time candidates at growing input sizes in the sandbox when the problem has "
        "an input_generator (the ensemble's first choice; up to ~3 s per candidate).",
    )
    complexity_model_url: str | None = Field(
        None,
        description="OpenAI-compatible endpoint of a served complexity model, e.g. "
        "http://gpu-host:8000/v1 (vllm serve). Unset: no served model, static analysis decides.",
    )
    complexity_model_name: str | None = Field(
        None,
        description="Model name the endpoint serves (vllm serve's model path or "
        "--served-model-name); needed when complexity_model_url is set.",
    )
    complexity_model_api_key: str | None = Field(
        None, description="Bearer key for the served complexity model, if it wants one."
    )
    complexity_model_timeout_s: float = Field(
        30.0, gt=0, description="Deadline of one served-model request (it is retried)."
    )
    reward: RewardConfig = Field(
        default_factory=RewardConfig,
        description="Reward weights and code extraction (JUDGE_REWARD__TIME_WEIGHT=0.5, ...).",
    )

    @model_validator(mode="after")
    def _stale_jobs_outlive_heartbeats(self) -> Settings:
        if self.job_stale_after_s <= 2 * self.job_heartbeat_s:
            raise ValueError(
                f"JUDGE_JOB_STALE_AFTER_S ({self.job_stale_after_s}) must exceed twice "
                f"JUDGE_JOB_HEARTBEAT_S ({self.job_heartbeat_s}), or live jobs read as dead"
            )
        return self

    @model_validator(mode="after")
    def _served_model_needs_a_name(self) -> Settings:
        if self.complexity_model_url and not self.complexity_model_name:
            raise ValueError(
                "JUDGE_COMPLEXITY_MODEL_URL is set but JUDGE_COMPLEXITY_MODEL_NAME is not: set it "
                "to the model the endpoint serves (see GET <url>/models)"
            )
        return self

    @field_validator("api_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [key.strip() for key in value.split(",") if key.strip()]
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
