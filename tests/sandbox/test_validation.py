"""Jobs the judge must refuse before running anything, each with a message saying why."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import InvalidJobError
from judge_service.sandbox.models import Job
from judge_service.sandbox.validation import validate_job

SETTINGS = SandboxConfig(sandboxes_per_language=1)
HELLO = "print('hi')\n"
STDIN_TEST = {"input": "", "output": "hi"}


def _job(**fields: Any) -> Job:
    values: dict[str, Any] = {"language": "python", "code": HELLO, "tests": [STDIN_TEST]}
    values.update(fields)
    return Job(**values)


def _rejected(job: Job, settings: SandboxConfig = SETTINGS) -> str:
    with pytest.raises(InvalidJobError) as caught:
        validate_job(job, settings)
    return str(caught.value)


def test_a_valid_job_passes_and_returns_its_language() -> None:
    assert validate_job(_job(), SETTINGS).name == "python"
    assert validate_job(_job(language="cpp", code="int main(){}"), SETTINGS).compiled


def test_unknown_language() -> None:
    message = _rejected(_job(language="cobol"))
    assert "unknown language 'cobol'" in message
    assert "python" in message and "rust" in message  # lists the choices


def test_language_names_are_exact() -> None:
    assert "unknown language" in _rejected(_job(language="Python"))
    assert "unknown language" in _rejected(_job(language="c++"))


@pytest.mark.parametrize("code", ["", "   ", "\n\t \n"], ids=["empty", "spaces", "whitespace"])
def test_empty_or_whitespace_code(code: str) -> None:
    assert "code is empty" in _rejected(_job(code=code))


def test_source_over_the_default_cap() -> None:
    assert SandboxConfig().max_source_bytes == 1 << 20
    big = "#" * (1 << 20) + "\nprint('hi')\n"
    message = _rejected(_job(code=big), SandboxConfig())
    assert f"code is {len(big)} bytes" in message
    assert str(1 << 20) in message
    # Exactly at the cap is fine; the size is counted in UTF-8 bytes, not characters.
    at_cap = "#" * ((1 << 20) - 1) + "\n"
    validate_job(_job(code=at_cap), SandboxConfig())
    wide = "# " + "\u00e9" * (600 * 1024) + "\n"  # 600 Ki characters, 1.2 MiB
    assert "bytes; the limit is" in _rejected(_job(code=wide), SandboxConfig())


def test_too_many_tests() -> None:
    settings = SandboxConfig(sandboxes_per_language=1, max_tests=3)
    message = _rejected(_job(tests=[STDIN_TEST] * 4), settings)
    assert "4 tests" in message and "limit is 3" in message


def test_empty_tests_list_is_malformed() -> None:
    with pytest.raises(ValidationError, match="tests"):
        Job(language="python", code=HELLO, tests=[])


def test_stdin_test_without_expected_output() -> None:
    job = _job(tests=[STDIN_TEST, {"input": "1\n"}])
    assert "test 1 has no expected 'output'" in _rejected(job)


def test_function_test_without_expected() -> None:
    job = _job(
        mode="function",
        entry_point="f",
        code="def f(x):\n    return x\n",
        tests=[{"args": [1], "expected": 1}, {"args": [2]}],
    )
    message = _rejected(job)
    assert "test 1" in message and "'expected'" in message


def test_function_test_with_expected_none_is_valid() -> None:
    job = _job(mode="function", entry_point="f", tests=[{"args": [1], "expected": None}])
    validate_job(job, SETTINGS)


def test_function_test_without_args() -> None:
    job = _job(mode="function", entry_point="f", tests=[{"expected": 1}])
    assert "'args'" in _rejected(job)


@pytest.mark.parametrize("code", [None, "", "  \n"], ids=["missing", "empty", "blank"])
def test_assert_test_without_code(code: str | None) -> None:
    test = {} if code is None else {"code": code}
    job = _job(mode="assert", entry_point="f", tests=[test])
    assert "test 0 needs the test 'code' in assert mode" in _rejected(job)


@pytest.mark.parametrize("mode", ["function", "assert"])
@pytest.mark.parametrize("entry_point", [None, ""], ids=["none", "empty"])
def test_missing_entry_point(mode: str, entry_point: str | None) -> None:
    test = {"args": [], "expected": 1} if mode == "function" else {"code": "def check(c): pass"}
    job = _job(mode=mode, entry_point=entry_point, tests=[test])
    assert f"{mode} mode needs an entry_point" in _rejected(job)


@pytest.mark.parametrize("language", ["cpp", "c", "java", "go", "rust"])
def test_function_mode_not_supported_by_the_language(language: str) -> None:
    test = {"args": [], "expected": 1}
    job = _job(
        language=language, code="int main() {}", mode="function", entry_point="f", tests=[test]
    )
    message = _rejected(job)
    assert message == "function mode is supported for javascript, python, typescript"


@pytest.mark.parametrize("language", ["go", "d", "haskell", "go_test", "pytest"])
def test_assert_mode_not_supported_by_the_language(language: str) -> None:
    """Assert mode: the harness languages and those that append the test (MultiPL-E's way)."""
    job = _job(language=language, code="x", mode="assert", entry_point="f", tests=[{"code": "x"}])
    message = _rejected(job)
    assert message.startswith("assert mode is supported for c, cpp, ")
    assert "rust" in message and "python" in message and language + "," not in message


def test_time_limit_over_the_maximum() -> None:
    settings = SandboxConfig(sandboxes_per_language=1)
    job = _job(limits={"time_limit_ms": settings.max_time_limit_ms + 1})
    message = _rejected(job, settings)
    assert f"time_limit_ms {settings.max_time_limit_ms + 1}" in message
    assert f"maximum {settings.max_time_limit_ms}" in message


def test_memory_limit_over_the_maximum() -> None:
    settings = SandboxConfig(sandboxes_per_language=1)
    message = _rejected(_job(limits={"memory_limit_mb": 100_000}), settings)
    assert "memory_limit_mb 100000 exceeds the maximum" in message


def test_memory_ceiling_leaves_room_for_runtime_overhead() -> None:
    # In a 2048 MiB sandbox, 1800 MiB fits Python's programs but not the JVM's, which
    # reserves memory of its own above the heap limit.
    settings = SandboxConfig(
        sandboxes_per_language=1, sandbox_memory_mb=2048, max_memory_limit_mb=4096
    )
    job = _job(limits={"memory_limit_mb": 1800})
    validate_job(job, settings)
    java = _job(
        language="java",
        code="class A { public static void main(String[] a) {} }",
        limits={"memory_limit_mb": 1800},
    )
    assert "memory_limit_mb 1800 exceeds the maximum" in _rejected(java, settings)


def test_output_limit_over_the_maximum() -> None:
    settings = SandboxConfig(sandboxes_per_language=1, max_output_limit_kb=1024)
    message = _rejected(_job(limits={"output_limit_kb": 2048}), settings)
    assert "output_limit_kb 2048 exceeds the maximum 1024" in message


def test_compile_memory_over_the_sandbox() -> None:
    job = _job(language="cpp", code="int main(){}", limits={"compile_memory_limit_mb": 100_000})
    assert "compile_memory_limit_mb" in _rejected(job)


@pytest.mark.parametrize(
    "field",
    ["time_limit_ms", "wall_time_limit_ms", "memory_limit_mb", "output_limit_kb"],
)
@pytest.mark.parametrize("value", [0, -1, -1000])
def test_zero_or_negative_limits_are_malformed(field: str, value: int) -> None:
    with pytest.raises(ValidationError, match=field):
        _job(limits={field: value})


def test_tiny_memory_limit_is_malformed() -> None:
    with pytest.raises(ValidationError, match="memory_limit_mb"):
        _job(limits={"memory_limit_mb": 4})


def test_wall_limit_below_the_cpu_limit() -> None:
    job = _job(limits={"time_limit_ms": 2000, "wall_time_limit_ms": 1000})
    assert "wall_time_limit_ms must be at least time_limit_ms" in _rejected(job)
    validate_job(_job(limits={"time_limit_ms": 2000, "wall_time_limit_ms": 2000}), SETTINGS)


def test_wall_limit_over_the_maximum() -> None:
    settings = SandboxConfig(sandboxes_per_language=1)
    job = _job(limits={"wall_time_limit_ms": 4 * settings.max_time_limit_ms + 1})
    assert "wall_time_limit_ms exceeds" in _rejected(job, settings)


@pytest.mark.parametrize(
    "name",
    ["../x", "/etc/x", "a/../../x", "..", ".", "", "./", "/work/x"],
)
@pytest.mark.parametrize("field", ["files", "fetch_files"])
def test_unsafe_file_names(name: str, field: str) -> None:
    value: Any = {name: b"data"} if field == "files" else [name]
    message = _rejected(_job(**{field: value}))
    assert f"file name {name!r} must be a relative path inside /work" in message


@pytest.mark.parametrize("name", ["data.txt", "sub/dir/x.bin", "a/../b.txt", "./y"])
def test_safe_file_names(name: str) -> None:
    validate_job(_job(files={name: b"1"}, fetch_files=[name]), SETTINGS)


def test_files_over_the_total_cap() -> None:
    files = {"a.bin": b"\0" * (20 << 20), "b.bin": b"\0" * (20 << 20)}
    assert "files exceed" in _rejected(_job(files=files))


def test_custom_checker_needs_code() -> None:
    with pytest.raises(ValidationError, match="custom checker needs its Python source"):
        _job(checker={"kind": "custom"})


def test_unknown_fields_are_malformed() -> None:
    with pytest.raises(ValidationError, match="timeout"):
        _job(timeout=5)
    with pytest.raises(ValidationError):
        _job(tests=[{"input": "", "output": "", "expected_output": "x"}])


@pytest.mark.integration
def test_a_bad_job_runs_nothing(pool) -> None:
    before_jobs, before_tests = pool.stats.jobs, pool.stats.tests
    before_started = pool.stats.sandboxes_started
    bad_jobs = [
        _job(language="cobol"),
        _job(code="   "),
        _job(tests=[{"input": "1"}]),
        _job(
            language="cpp",
            code="int main(){}",
            mode="function",
            entry_point="f",
            tests=[{"args": [], "expected": 1}],
        ),
        _job(limits={"time_limit_ms": 10**9}),
        _job(files={"../escape": b"x"}),
    ]
    for job in bad_jobs:
        with pytest.raises(InvalidJobError):
            pool.judge(job)
    assert pool.stats.jobs == before_jobs
    assert pool.stats.tests == before_tests
    assert pool.stats.sandboxes_started == before_started
    assert pool.judge(_job()).verdict == "AC"  # the pool still works afterwards
    assert pool.stats.jobs == before_jobs + 1


@pytest.mark.parametrize("language", ["go_test", "rust_test", "pytest", "gtest", "d_ut"])
def test_a_test_suite_needs_no_expected_output(language: str) -> None:
    """A suite's verdict is its exit status; a plain program's test still needs its output."""
    assert validate_job(_job(language=language, tests=[{"input": ""}]), SETTINGS).name == language
    assert "has no expected 'output'" in _rejected(_job(language="go", tests=[{"input": ""}]))
