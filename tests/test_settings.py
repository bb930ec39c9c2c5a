"""The service's settings compose the engine's: same variables, same fields, one object."""

from __future__ import annotations

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.settings import Settings
from tests.sandbox.test_config import ENGINE_VARIABLES, changed_values


def test_the_service_settings_carry_every_engine_field_with_its_default() -> None:
    engine, service = SandboxConfig(), Settings()
    assert set(SandboxConfig.model_fields) <= set(Settings.model_fields)
    assert {name: getattr(service, name) for name in SandboxConfig.model_fields} == dict(engine)
    assert isinstance(service, SandboxConfig)  # what the service hands the pool


def test_the_engine_variables_configure_the_service_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    values = changed_values()
    for name, value in values.items():
        monkeypatch.setenv(f"JUDGE_{name.upper()}", str(value))
    settings = Settings()
    assert {name: getattr(settings, name) for name in values} == values
    assert {f"JUDGE_{name.upper()}" for name in values} == ENGINE_VARIABLES


def test_service_and_engine_fields_are_set_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_IMAGE_PREFIX", "site-")
    monkeypatch.setenv("JUDGE_QUEUE_NAME", "site-queue")
    monkeypatch.setenv("JUDGE_REWARD__TIME_WEIGHT", "0.5")
    settings = Settings(max_tests=7)
    assert (settings.image_prefix, settings.queue_name, settings.max_tests) == (
        "site-",
        "site-queue",
        7,
    )
    assert settings.reward.time_weight == 0.5
