"""Prometheus metrics of the service (one registry per app, so tests can build many apps)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.submissions = Counter(
            "judge_submissions_total",
            "Judged submissions by verdict and language.",
            ["verdict", "language"],
            registry=self.registry,
        )
        self.tests = Counter(
            "judge_tests_total",
            "Test runs by verdict and language.",
            ["verdict", "language"],
            registry=self.registry,
        )
        self.cache_hits = Counter(
            "judge_cache_hits_total",
            "Submissions answered from the result cache.",
            registry=self.registry,
        )
        self.sandbox_jobs = Counter(
            "judge_sandbox_jobs_total",
            "Submissions sent to a sandbox to run.",
            registry=self.registry,
        )
        self.system_errors = Counter(
            "judge_system_errors_total",
            "Submissions the infrastructure failed to judge.",
            registry=self.registry,
        )
        self.batch_latency = Histogram(
            "judge_batch_latency_seconds",
            "Time to answer one batch.",
            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
            registry=self.registry,
        )
        self.batch_size = Histogram(
            "judge_batch_size",
            "Submissions per batch.",
            buckets=(1, 8, 64, 256, 1024, 4096),
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "judge_queue_depth",
            "Tasks waiting in the broker's queue (-1: unknown).",
            registry=self.registry,
        )
        self.pool_occupancy = Gauge(
            "judge_sandbox_pool",
            "Sandboxes of this process by language and state.",
            ["language", "state"],
            registry=self.registry,
        )
