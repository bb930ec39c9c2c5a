"""complexity_model sits on the engine: it loads no module of the service above it."""

from __future__ import annotations

from pathlib import Path

import complexity_model
from tests.sandbox.test_layering import loaded_after_importing, modules_of, outside


def service_modules(loaded: set[str]) -> set[str]:
    return outside(
        {name for name in loaded if name.startswith("judge_service")}, "judge_service.sandbox"
    )


def test_importing_complexity_model_loads_no_service_module() -> None:
    loaded = loaded_after_importing(["complexity_model"])
    assert "complexity_model" in loaded
    assert service_modules(loaded) == set()


def test_no_module_of_complexity_model_loads_a_service_module() -> None:
    package = modules_of(Path(complexity_model.__file__).parent)
    assert {"complexity_model.empirical.judge", "complexity_model.cli"} <= set(package)
    loaded = loaded_after_importing(package)
    assert set(package) <= loaded
    assert "judge_service.sandbox.pool" in loaded  # the plot command judges in the engine
    assert service_modules(loaded) == set()
    assert not any(name.startswith("rl_client") for name in loaded)
