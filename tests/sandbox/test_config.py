"""The engine's settings: every field is read from its ``JUDGE_<NAME>`` variable, as the
service's settings read it before the engine had settings of its own."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from judge_service.sandbox.config import SandboxConfig

# The variables that configured the engine when they were fields of the service's Settings
# (and those added since); deployments set them, so each must keep its name.
ENGINE_VARIABLES = {
    "JUDGE_SANDBOXES_PER_LANGUAGE",
    "JUDGE_SANDBOX_MEMORY_MB",
    "JUDGE_SANDBOX_IDLE_S",
    "JUDGE_SANDBOX_PIDS_LIMIT",
    "JUDGE_SANDBOX_WORK_MB",
    "JUDGE_SANDBOX_TMP_MB",
    "JUDGE_SANDBOX_TMPFS_INODES",
    "JUDGE_SANDBOX_MEMORY_BUDGET_MB",
    "JUDGE_SANDBOX_MEMORY_TOTAL_MB",
    "JUDGE_SANDBOX_CGROUP_PARENT",
    "JUDGE_CPU_SLOTS",
    "JUDGE_CPU_SLOTS_DIR",
    "JUDGE_HOST_CGROUP_DIR",
    "JUDGE_SANDBOX_USER",
    "JUDGE_SANDBOX_START_TIMEOUT_S",
    "JUDGE_SANDBOX_CHANNEL_DIR",
    "JUDGE_IMAGE_PREFIX",
    "JUDGE_MAX_SOURCE_BYTES",
    "JUDGE_MAX_TESTS",
    "JUDGE_MAX_TIME_LIMIT_MS",
    "JUDGE_MAX_MEMORY_LIMIT_MB",
    "JUDGE_MAX_OUTPUT_LIMIT_KB",
    "JUDGE_REPORT_BYTES",
    "JUDGE_MAX_REPLY_OUTPUT_BYTES",
    "JUDGE_WARM_COMPILERS",
    "JUDGE_COMPILE_CACHE_MB",
    "JUDGE_TEST_CACHE_MB",
    "JUDGE_APPENDED_ASSERTS",
    "JUDGE_JOB_BUDGET_FACTOR",
    "JUDGE_MAX_JOB_WALL_S",
    "JUDGE_STARVED_WALL_FACTOR",
    "JUDGE_WALL_RETRIES",
}


def changed_values() -> dict[str, object]:
    """A valid value other than the default for every field."""
    defaults = SandboxConfig()
    values: dict[str, object] = {}
    for name in SandboxConfig.model_fields:
        default = getattr(defaults, name)
        if isinstance(default, bool):
            values[name] = not default
        elif isinstance(default, int):
            values[name] = default + 1
        elif isinstance(default, float):
            values[name] = default * 2
        elif default is None and int in get_args(SandboxConfig.model_fields[name].annotation):
            values[name] = 4096
        else:
            values[name] = f"{default}-changed"
    return values


def test_the_engine_reads_every_variable_it_was_configured_by() -> None:
    assert {f"JUDGE_{name.upper()}" for name in SandboxConfig.model_fields} == ENGINE_VARIABLES


def test_every_field_is_read_from_its_judge_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    values = changed_values()
    for name, value in values.items():
        monkeypatch.setenv(f"JUDGE_{name.upper()}", str(value))
    config = SandboxConfig()
    assert {name: getattr(config, name) for name in values} == values


def test_a_dot_env_file_configures_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JUDGE_IMAGE_PREFIX", raising=False)
    (tmp_path / ".env").write_text("JUDGE_IMAGE_PREFIX=from-dot-env-\n")
    assert SandboxConfig().image_prefix == "from-dot-env-"


def test_out_of_range_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_WALL_RETRIES", "6")
    with pytest.raises(ValueError, match="wall_retries"):
        SandboxConfig()
