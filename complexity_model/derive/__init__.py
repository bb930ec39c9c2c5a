"""Input generators derived from a problem's own tests, for problems without one.

:func:`derive_spec` infers the structure of the tests' inputs (stdin texts: :mod:`._stdin`;
function arguments: :mod:`._function`) and what grows with n; :func:`generator_source` turns
the spec into the source of a ``generate(n)`` like an author's (:mod:`._runtime` interprets
it), so the empirical judge times with it unchanged. :mod:`.judge` validates a derived
generator with the problem's reference before any candidate is timed on it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from complexity_model.derive._function import function_spec
from complexity_model.derive._stdin import stdin_spec

__all__ = ["derive_spec", "generator_source"]

_RUNTIME = Path(__file__).with_name("_runtime.py")


def derive_spec(mode: str, tests: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The spec of inputs like the tests' (stdin: ``input``; function: ``args``), None when
    their structure is not understood or nothing in them grows."""
    if mode == "stdin":
        inputs = [str(test["input"]) for test in tests if isinstance(test.get("input"), str)]
        return stdin_spec(inputs) if inputs else None
    if mode == "function":
        calls = [list(test["args"]) for test in tests if isinstance(test.get("args"), list)]
        return function_spec(calls) if calls else None
    return None


def generator_source(spec: dict[str, Any]) -> str:
    """A self-contained ``generate(n)``: the spec as data, then the interpreter."""
    runtime = _RUNTIME.read_text(encoding="utf-8")
    head, _, body = runtime.partition("SPEC: dict[str, Any] = {}\n")
    data = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    return f"{head}SPEC: dict[str, Any] = json.loads({data!r})\n{body}".replace(
        "import random\n", "import json\nimport random\n", 1
    )
