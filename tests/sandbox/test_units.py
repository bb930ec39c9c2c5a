"""Unit tests of the engine's own logic that need no Docker: cache, languages, wire format."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace
from typing import cast

import docker
import docker.errors
import pytest

from judge_service.sandbox import _bundle, _jobs
from judge_service.sandbox._spec import scala_main_object, stack_limit_bytes
from judge_service.sandbox.cache import Artifact, CompileCache, CompiledProgram, compile_key
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxUnavailable
from judge_service.sandbox.languages import LANGUAGES, java_class_name
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.validation import validate_job


def _program(size: int) -> CompiledProgram:
    return CompiledProgram(True, "", 1.0, (Artifact("main", 0o755, b"x" * size),))


def test_compile_cache_hits_and_evicts_least_recent_by_bytes() -> None:
    cache = CompileCache(max_bytes=250)
    cache.put("a", _program(100))
    cache.put("b", _program(100))
    assert cache.get("a") is not None  # a is now the most recent
    cache.put("c", _program(100))  # over budget: evicts b
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert (cache.hits, cache.misses) == (3, 1)
    cache.put("huge", _program(1000))  # larger than the whole cache: not stored
    assert cache.get("huge") is None


def test_compile_key_depends_on_every_part() -> None:
    build = {"argv": ["g++", "-O2"], "limits": {"cpu_ms": 1000}}
    files = {"a.h": b"#define A 1", "b.h": b""}
    base = compile_key("sha256:1", "cpp", build, "int main(){}", files)
    assert base == compile_key(
        "sha256:1",
        "cpp",
        dict(reversed(build.items())),
        "int main(){}",
        {"b.h": b"", "a.h": b"#define A 1"},
    )
    others = [
        compile_key("sha256:2", "cpp", build, "int main(){}", files),
        compile_key("sha256:1", "c", build, "int main(){}", files),
        compile_key("sha256:1", "cpp", {**build, "argv": ["g++", "-O0"]}, "int main(){}", files),
        compile_key("sha256:1", "cpp", {**build, "limits": {"cpu_ms": 9}}, "int main(){}", files),
        compile_key("sha256:1", "cpp", build, "int main(){ }", files),
        compile_key("sha256:1", "cpp", build, "int main(){}", {**files, "a.h": b"#define A 2"}),
        compile_key("sha256:1", "cpp", build, "int main(){}", {"a.h": b"#define A 1"}),
        compile_key("sha256:1", "cpp", build, "int main(){}", {"b.h": b"#define A 1", "a.h": b""}),
        # Boundaries between parts are unambiguous: bytes moved from a name to a content.
        compile_key("sha256:1", "cpp", build, "int main(){}", {"a.h#": b"define A 1", "b.h": b""}),
    ]
    assert len({base, *others}) == len(others) + 1


def test_the_compile_spec_the_agent_gets_is_the_one_in_the_key() -> None:
    job = Job(
        language="c",
        code="int main(){}",
        tests=[{"input": "", "output": ""}],
        limits={"compile_time_limit_ms": 3000},
    )
    spec = validate_job(job, SandboxConfig())
    header, _, _ = _jobs.agent_header(job, spec, SandboxConfig(), None)
    assert header["compile"] == _jobs.compile_spec(job, spec, SandboxConfig())
    assert header["compile"]["limits"]["cpu_ms"] == 3000


def test_a_compilation_whose_artifacts_did_not_all_come_back_is_not_cached() -> None:
    compiled = {"ok": True, "output": "", "cpu_ms": 1.0, "exit_code": 0}
    whole = {"compile": compiled, "artifacts": [{"name": "main", "mode": 0o755, "size": 3}]}
    program = _jobs.compiled_program(whole, b"ELF")
    assert program is not None and program.artifacts == (Artifact("main", 0o755, b"ELF"),)
    missing = {**whole, "artifacts": [*whole["artifacts"], {"name": "B.class", "error": "x"}]}
    assert _jobs.compiled_program(missing, b"ELF") is None


class _Images:
    """A fake Docker client's images and containers: the tag moves when ``rebuild`` says."""

    def __init__(self) -> None:
        self.tagged = "sha256:first"
        self.started: list[str] = []

    def get(self, name: str) -> SimpleNamespace:
        return SimpleNamespace(id=self.tagged)

    def create(self, image: str, **_: object) -> None:
        self.started.append(image)
        raise docker.errors.APIError("no container in a unit test")


def test_sandboxes_run_the_image_the_compile_key_names_even_after_a_rebuild() -> None:
    fake = _Images()
    client = SimpleNamespace(images=fake, containers=fake)
    pool = SandboxPool(SandboxConfig(), client=cast(docker.DockerClient, client))
    with pytest.raises(SandboxUnavailable):
        pool.judge(Job(language="c", code="int main(){}", tests=[{"input": "", "output": ""}]))
    fake.tagged = "sha256:rebuilt"
    with pytest.raises(SandboxUnavailable):
        pool.judge(Job(language="c", code="int main(){}", tests=[{"input": "", "output": ""}]))
    assert fake.started == ["sha256:first", "sha256:first"]


def test_java_file_is_named_after_the_public_or_main_class() -> None:
    assert java_class_name("public class Solver { public static void main(String[] a){} }") == (
        "Solver"
    )
    code = "class Helper {}\nclass App { public static void main(String[] a) {} }"
    assert java_class_name(code) == "App"
    assert java_class_name("int x;") == "Main"
    assert LANGUAGES["java"].source_file("public final class Q {}") == "Q.java"


def test_java_runs_with_assertions_enabled() -> None:
    argv = LANGUAGES["java"].main_argv("public class Q {}", 256)
    assert "-ea" in argv[: argv.index("Q")]


def test_agent_header_uses_cached_artifacts_instead_of_compiling() -> None:
    job = Job(language="cpp", code="int main(){}", tests=[{"input": "", "output": ""}])
    spec = validate_job(job, SandboxConfig())
    fresh, blob, _ = _jobs.agent_header(job, spec, SandboxConfig(), None)
    assert fresh["compile"]["argv"][0] == "/usr/bin/g++" and blob == b""
    cached = CompiledProgram(True, "", 5.0, (Artifact("main", 0o755, b"ELF"),))
    header, blob, _ = _jobs.agent_header(job, spec, SandboxConfig(), cached)
    assert "compile" not in header
    assert header["blob_files"] == [{"name": "main", "size": 3, "mode": 0o755}] and blob == b"ELF"


@pytest.mark.parametrize("memory_mb", [8, 16, 64, 256, 1024])
def test_stack_limit_leaves_room_below_the_memory_limit(memory_mb: int) -> None:
    # A stack as large as the memory limit made a C stack overflow read as MLE, by a race
    # with the RSS watcher; the margin makes it a SIGSEGV (RE).
    stack = stack_limit_bytes(memory_mb)
    assert stack >= 8 << 20
    if memory_mb > 16:
        assert (memory_mb << 20) - stack >= max(memory_mb << 17, 8 << 20)
    job = Job(
        language="c",
        code="int main(){}",
        tests=[{"input": "", "output": ""}],
        limits={"memory_limit_mb": memory_mb},
    )
    header, _, _ = _jobs.agent_header(
        job, validate_job(job, SandboxConfig()), SandboxConfig(), None
    )
    assert header["limits"]["stack_bytes"] == stack


def test_job_result_reports_first_failure_and_pass_rate() -> None:
    job = Job(language="python", code="x", tests=[{"input": "", "output": ""}] * 4)
    test = {"time_ms": 1.0, "wall_ms": 1.0, "memory_kb": 10}
    reply = {"tests": [{"verdict": v, **test} for v in ("AC", "TLE", "WA", "AC")]}
    result = _jobs.job_result(job, reply, b"", None)
    assert result.verdict is Verdict.TLE and result.passed == 2 and result.pass_rate == 0.5


def test_checker_failure_is_a_system_error_not_a_wrong_answer() -> None:
    job = Job(language="python", code="x", tests=[{"input": "", "output": ""}])
    reply = {
        "tests": [
            {
                "verdict": "SE",
                "time_ms": 1,
                "wall_ms": 1,
                "memory_kb": 1,
                "message": "checker failed",
            }
        ]
    }
    result = _jobs.job_result(job, reply, b"", None)
    assert result.verdict is Verdict.SE and result.system_error == "checker failed"
    assert JobResult.system_failure(3, "down").pass_rate == 0.0


def test_boot_loader_builds_packages_and_runs_main() -> None:
    """The bootstrap that ships the agent over stdin, exercised on the host interpreter."""
    modules = [
        ["pkg.helper", "VALUE = 41\n"],
        ["pkg.entry", "from pkg import helper\ndef main():\n    print(helper.VALUE + 1)\n"],
    ]
    bundle = json.dumps({"modules": modules}).encode()
    argv = _bundle.boot_argv(bundle, "pkg.entry", site=False)
    completed = subprocess.run(
        [sys.executable, *argv[1:]], input=bundle, capture_output=True, check=True
    )
    assert completed.stdout == b"42\n"


def test_the_agent_and_zygote_bundles_together_hold_every_agent_module() -> None:
    agent = [name for name, _ in json.loads(_bundle.agent_bundle())["modules"]]
    zygote = [name for name, _ in json.loads(_bundle.zygote_bundle())["modules"]]
    assert agent[-1] == _bundle.AGENT_MODULE and zygote[-1] == _bundle.ZYGOTE_MODULE
    on_disk = {
        f"judge_service.sandbox.agent.{path.stem}" for path in _bundle.AGENT_DIR.glob("*.py")
    }
    assert set(agent) | set(zygote) == on_disk
    assert len(agent) == len(set(agent)) and len(zygote) == len(set(zygote))
    # The zygote's modules are what its children run: none of the agent's (it holds the
    # expected outputs) may be among them.
    assert not set(zygote) & {_bundle.AGENT_MODULE, "judge_service.sandbox.agent.checkers"}


def test_one_language_table_names_every_language_once() -> None:
    from pathlib import Path

    from judge_service.sandbox.languages import LANGUAGES, canonical_language, language_labels

    seen: dict[str, str] = {}
    for name, spec in LANGUAGES.items():
        for label in {name, *spec.aliases}:
            assert seen.setdefault(label, name) == name, f"{label} names two languages"
            assert canonical_language(f" {label.upper()} ") == name
            assert name in language_labels(label)
        # Every language of the table has its image (a variant, its language's).
        root = Path(__file__).resolve().parents[2]
        assert (root / "sandbox_images" / spec.image_name / "Dockerfile").is_file()
    assert canonical_language("cobol") is None


@pytest.mark.parametrize("memory_mb", [16, 32, 64, 73, 256, 1024])
@pytest.mark.parametrize("language", ["javascript", "typescript", "jest"])
def test_v8_stack_limit_sits_below_the_stack_rlimit(language: str, memory_mb: int) -> None:
    spec = LANGUAGES[language]
    job = Job(
        language=language,
        code="",
        mode="function" if spec.harness_argv else "stdin",
        entry_point="f" if spec.harness_argv else None,
        tests=[{"args": []}] if spec.harness_argv else [{"input": ""}],
        limits={"memory_limit_mb": memory_mb},
    )
    argv = spec.main_argv("", memory_mb) + _jobs._run_argv(job, spec)
    sizes = {int(word.split("=")[1]) for word in argv if word.startswith("--stack-size=")}
    assert len(sizes) == 1, argv
    (stack_kb,) = sizes
    rlimit_kb = spec.stack_bytes(memory_mb) >> 10
    # Room for native frames below V8's limit, and as deep as that leaves.
    assert stack_kb == min(rlimit_kb - 2048, 65500)
    # The room is above the stack a C program gets, not taken from it: the program's own
    # frames may use all of that stack (8 MB at a 16 MB limit, not 6).
    assert stack_kb == min(stack_limit_bytes(memory_mb) >> 10, 65500)


@pytest.mark.parametrize(
    ("code", "entry"),
    [
        ("object HelloWorld { def main(args: Array[String]): Unit = println(1) }", "HelloWorld"),
        ("object Main extends App { println(1) }", "Main"),
        ("object Helper { def f = 1 }\nobject Run { def main(a: Array[String]) = () }", "Run"),
        ('object Main { def label() = "object count: "; def main(a: Array[String]) = () }', "Main"),
        ("// object Fake { def main(a: Array[String]) = () }\nobject Real extends App {}", "Real"),
        ("object Only { val x = 1 }", "Only"),
        ("class NoObject", "Main"),
    ],
)
def test_scalas_entry_is_the_object_with_a_main_whatever_its_name(code: str, entry: str) -> None:
    assert scala_main_object(code) == entry
