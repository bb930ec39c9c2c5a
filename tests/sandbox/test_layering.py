"""The engine is a layer of its own: importing any of it loads nothing else of the project."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import judge_service.sandbox

ROOT = Path(__file__).resolve().parents[2]


def modules_of(package: Path) -> list[str]:
    """Every module under ``package``, by name (a namespace package's too: the agent's)."""
    names = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def loaded_after_importing(modules: list[str]) -> set[str]:
    """The project's modules a fresh interpreter holds after importing ``modules``."""
    program = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('judge_service', 'complexity_model', 'rl_client'))))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(json.loads(completed.stdout))


def outside(loaded: set[str], allowed: str) -> set[str]:
    return {
        name
        for name in loaded
        if name != allowed.split(".")[0] and not (name == allowed or name.startswith(allowed + "."))
    }


def test_importing_the_engine_loads_no_other_module_of_the_project() -> None:
    loaded = loaded_after_importing(["judge_service.sandbox"])
    assert "judge_service.sandbox.models" in loaded  # the import did happen
    assert outside(loaded, "judge_service.sandbox") == set()


def test_no_module_of_the_engine_loads_another_module_of_the_project() -> None:
    engine = modules_of(Path(judge_service.sandbox.__file__).parent)
    assert "judge_service.sandbox.pool" in engine
    assert "judge_service.sandbox.agent.wire" in engine
    loaded = loaded_after_importing(engine)
    assert set(engine) <= loaded
    assert outside(loaded, "judge_service.sandbox") == set()
