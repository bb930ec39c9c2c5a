"""Whether a static estimate may decide R_time: its bucket's measured precision (see
:mod:`complexity_model.static.calibrate`, which writes :data:`TRUST_FILE`)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from complexity_model.ladder import ComplexityEstimate

TRUST_FILE = Path(__file__).resolve().parent.parent / "data" / "static_trust.json"


def trust_bucket(estimate: ComplexityEstimate) -> str:
    """The estimate's predicted class, and whether the program recurses (the analyser's two
    largest sources of error differ: loop bounds, and recurrences)."""
    shape = "recursive" if estimate.evidence.get("recursion") else "iterative"
    return f"{estimate.predicted} {shape}"


@cache
def _buckets() -> dict[str, dict[str, Any]]:
    buckets: dict[str, dict[str, Any]] = json.loads(TRUST_FILE.read_text(encoding="utf-8"))[
        "buckets"
    ]
    return buckets


def reward_trust(estimate: ComplexityEstimate) -> dict[str, Any]:
    """The bucket's figures (``pays``, ``precision``, ``support``); a bucket never measured
    does not pay."""
    bucket = trust_bucket(estimate)
    figures = _buckets().get(bucket, {"support": 0, "precision": 0.0, "pays": False})
    return {"bucket": bucket, **figures}
