"""Typed results of ``POST /v1/judge``, mirroring the service's wire format.

They are plain dataclasses so that the client needs nothing but httpx; :meth:`Result.from_wire`
reads one result object as the service sends it and keeps unknown keys out (a newer service
may add fields).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "LADDER",
    "Complexity",
    "JudgeOptions",
    "Result",
    "Reward",
    "TestResult",
    "class_rank",
]

Status = Literal["ok", "error", "system_error"]

# The service's time classes, best first (its complexity judge answers one of these or
# "unknown"); the filters compare classes by their index.
LADDER: tuple[str, ...] = ("O(1)", "O(log n)", "O(n)", "O(n log n)", "O(n^2)", "O(n^3)", "O(2^n)")


def class_rank(name: str | None) -> int | None:
    """The class's index on :data:`LADDER`, or None for "unknown", None or anything else."""
    try:
        return LADDER.index(name) if name is not None else None
    except ValueError:
        return None


@dataclass(frozen=True)
class JudgeOptions:
    """``options`` of a judge request: see the service's ``JudgeOptions``."""

    stop_on_first_failure: bool = False
    complexity: Literal["auto", "off", "required"] = "auto"

    def to_wire(self) -> dict[str, Any]:
        return {"stop_on_first_failure": self.stop_on_first_failure, "complexity": self.complexity}


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest class

    verdict: str
    time_ms: float
    memory_kb: int
    limit: str | None = None

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> TestResult:
        return cls(
            data["verdict"], float(data["time_ms"]), int(data["memory_kb"]), data.get("limit")
        )


@dataclass(frozen=True)
class Reward:
    format: float
    correctness: float
    time: float
    total: float

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Reward:
        return cls(
            float(data["format"]),
            float(data["correctness"]),
            float(data["time"]),
            float(data["total"]),
        )


@dataclass(frozen=True)
class Complexity:
    predicted: str
    reference: str | None
    method: str
    confidence: float
    decided_by: str | None = None
    signals: list[dict[str, Any]] = field(default_factory=list)
    # Why the class may not pay R_time (a static guess below the bar); then it meets nothing.
    time_reward_abstained: str | None = None

    @property
    def meets_reference(self) -> bool:
        """The predicted class is known, trusted for R_time, and no worse than the problem's
        optimal class."""
        if self.time_reward_abstained:
            return False
        predicted, reference = class_rank(self.predicted), class_rank(self.reference)
        return predicted is not None and reference is not None and predicted <= reference

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Complexity:
        return cls(
            predicted=str(data["predicted"]),
            reference=data.get("reference"),
            method=str(data["method"]),
            confidence=float(data["confidence"]),
            decided_by=data.get("decided_by"),
            signals=list(data.get("signals") or []),
            time_reward_abstained=data.get("time_reward_abstained"),
        )


@dataclass(frozen=True)
class Result:
    """One submission's result. ``status``: ``ok`` (judged), ``error`` (the item was invalid:
    ``error`` says why) or ``system_error`` (the judge failed: no verdict and no reward)."""

    id: str | None
    status: Status
    error: str | None = None
    verdict: str | None = None
    pass_rate: float | None = None
    tests: list[TestResult] = field(default_factory=list)
    compile_output: str | None = None
    truncated: bool = False
    reward: Reward | None = None
    complexity: Complexity | None = None
    cached: bool = False
    load_dependent: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def accepted(self) -> bool:
        """Judged, and every test passed."""
        return self.status == "ok" and self.verdict == "AC"

    @property
    def score(self) -> float | None:
        """The total reward, or None when there is none (a system error, an invalid item):
        a trainer skips such a sample rather than learning from a made-up 0."""
        return self.reward.total if self.status == "ok" and self.reward is not None else None

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Result:
        reward, complexity = data.get("reward"), data.get("complexity")
        pass_rate = data.get("pass_rate")
        return cls(
            id=data.get("id"),
            status=data["status"],
            error=data.get("error"),
            verdict=data.get("verdict"),
            pass_rate=float(pass_rate) if pass_rate is not None else None,
            tests=[TestResult.from_wire(test) for test in data.get("tests") or []],
            compile_output=data.get("compile_output"),
            truncated=bool(data.get("truncated", False)),
            reward=Reward.from_wire(reward) if reward else None,
            complexity=Complexity.from_wire(complexity) if complexity else None,
            cached=bool(data.get("cached", False)),
            load_dependent=bool(data.get("load_dependent", False)),
        )

    @classmethod
    def failed(cls, id: str | None, message: str) -> Result:
        """A system error made on the client's side (the service never answered)."""
        return cls(id=id, status="system_error", error=message)
