"""What the complexity judges read of a problem.

The judges never judge a problem's tests or see its time limit: the static analyser reads its
mode and entry point; the empirical judge also runs its input generator (or one derived from
the tests' inputs, :mod:`complexity_model.derive`, when the problem has none), times its
reference solution, compares answers the way its checker does and names its optimal class
when a candidate grows as the reference does. The service adapts its own problem to this type
(``judge_service.complexity``); the benchmark and the plot command build one directly. A JSON
problem as the service takes it parses as one (the fields read here; the rest is ignored).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge_service.sandbox.models import Checker, TestMode

__all__ = ["ComplexityProblem", "ReferenceSolution"]


class ReferenceSolution(BaseModel):
    model_config = ConfigDict(frozen=True)

    language: str
    code: str


class ComplexityProblem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str = Field("", description="For reports and plot titles.")
    mode: TestMode = TestMode.STDIN
    entry_point: str | None = Field(None, description="Function name or Solution.method.")
    input_generator: str | None = Field(
        None, description="Python code defining generate(n) -> an input of size n."
    )
    tests: list[dict[str, Any] | str] = Field(
        default_factory=list,
        description="Only their inputs (stdin) or arguments (function) are read: what a "
        "derived input generator grows.",
    )
    reference: ReferenceSolution | None = Field(None, description="The optimal solution.")
    optimal_complexity: str | None = Field(None, description='For example "O(n log n)".')
    checker: Checker = Field(
        default_factory=Checker,
        description="A custom checker may accept several answers, so answers are not compared; "
        "a case-insensitive one compares them case-folded.",
    )
    memory_limit_mb: int = Field(256, ge=8, description="Timing runs get at least 512 MiB.")

    def content_hash(self) -> str:
        """Identifies what a measurement of the reference depends on: a problem whose hash
        is unchanged reuses it."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()
