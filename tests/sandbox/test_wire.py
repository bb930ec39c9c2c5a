"""The host-agent wire format: both sides write the frames its types declare.

The types are static (TypedDicts, checked by mypy where a frame is a literal); these tests
catch what mypy cannot see: frames built from model dumps on the host, and the frames the
real agent in a sandbox answers with.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from judge_service.sandbox import _bundle, _jobs
from judge_service.sandbox.agent import wire
from judge_service.sandbox.cache import Artifact, CompiledProgram
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxCrashed
from judge_service.sandbox.models import Job, Limits, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.sandbox.sandbox import Sandbox
from judge_service.sandbox.validation import validate_job


def keys(frame_type: Any) -> tuple[set[str], set[str]]:
    """The required and the optional keys of a TypedDict. The wire module postpones its
    annotations, so NotRequired is read from the annotation's text."""
    annotations: dict[str, Any] = {}
    for klass in reversed(frame_type.__mro__):
        annotations.update(getattr(klass, "__annotations__", {}))
    optional = {
        name
        for name, kind in annotations.items()
        if getattr(kind, "__forward_arg__", str(kind)).startswith("NotRequired[")
    }
    if not frame_type.__total__:
        optional = set(annotations)
    return set(annotations) - optional, optional


def assert_fits(frame: Any, frame_type: Any) -> None:
    required, optional = keys(frame_type)
    assert required <= set(frame), f"{frame_type.__name__} misses {required - set(frame)}"
    assert set(frame) <= required | optional, f"{frame_type.__name__}: {set(frame)}"


JOBS = [
    Job(language="python", code="print(1)", tests=[{"input": "", "output": "1"}]),
    Job(
        language="python",
        code="def f(x): return x",
        mode="function",
        entry_point="f",
        tests=[{"args": [1], "expected": 1}, {"args": [2], "kwargs": {}, "expected": 2}],
    ),
    Job(
        language="python",
        code="def f(x): return x",
        mode="assert",
        entry_point="f",
        tests=[{"code": "assert f(1) == 1"}],
    ),
    Job(
        language="cpp",
        code="int main(){}",
        tests=[{"input": "1", "output": "1"}],
        checker={"kind": "custom", "code": "import sys; sys.exit(0)"},
        files={"data.txt": b"\x00\xff"},
        fetch_files=["out.txt"],
    ),
]


def test_a_frame_round_trips() -> None:
    frame: wire.PingFrame = {"op": "ping", "nonce": "n"}
    data = wire.encode(frame, b"\x00blob")
    header_size, blob_size = wire.sizes(data[: wire.PREFIX.size])
    body = data[wire.PREFIX.size :]
    assert wire.host_frame(body[:header_size]) == frame
    assert body[header_size:] == b"\x00blob" and blob_size == 5


@pytest.mark.parametrize("job", JOBS, ids=lambda job: f"{job.language}-{job.mode}")
def test_the_host_writes_job_frames_of_the_declared_shape(job: Job) -> None:
    settings = SandboxConfig()
    spec = validate_job(job, settings)
    cached = CompiledProgram(True, "", 1.0, (Artifact("main", 0o755, b"ELF"),))
    for program in (None, cached) if spec.compiled else (None,):
        header, blob, data = _jobs.agent_header(job, spec, settings, program)
        header, blob = _jobs.with_test_data(header, blob, data, list(data))
        assert_fits(header, wire.JobFrame)
        assert_fits(header["limits"], wire.Limits)
        assert_fits(header["run"], wire.RunSpec)
        assert_fits(header["checker"], wire.CheckerSpec)
        for test in header["tests"]:
            assert_fits(test, wire.TestSpec)
        for entry in header["blob_files"]:
            assert_fits(entry, wire.BlobFile)
        for entry in header.get("test_data", []):
            assert_fits(entry, wire.DataEntry)
        files = sum(entry["size"] for entry in header["blob_files"])
        assert files + sum(content.size for content in data.values()) == len(blob)
        if "compile" in header:
            assert_fits(header["compile"], wire.CompileSpec)
            assert_fits(header["compile"]["limits"], wire.Limits)
        # What the host sends is JSON: nothing in it needs a custom encoder.
        assert json.loads(json.dumps(header)) == header


def test_the_agent_loads_the_wire_module_before_its_users() -> None:
    order = [name for name, _ in json.loads(_bundle.agent_bundle())["modules"]]
    wire_at = order.index("judge_service.sandbox.agent.wire")
    assert wire_at < order.index("judge_service.sandbox.agent.workdir")
    assert wire_at < order.index(_bundle.AGENT_MODULE)


def test_the_agent_answers_with_frames_of_the_declared_shape(
    pool: SandboxPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    replies: list[wire.AgentFrame] = []
    request = Sandbox.request

    def recording(
        self: Sandbox, header: wire.HostFrame, blob: bytes = b"", *, timeout: float
    ) -> tuple[wire.AgentFrame, bytes]:
        reply, reply_blob = request(self, header, blob, timeout=timeout)
        replies.append(reply)
        return reply, reply_blob

    monkeypatch.setattr(Sandbox, "request", recording)
    unique = id(replies)  # fresh sources: compiled now, not taken from the compile cache
    cases = [
        (JOBS[0], Verdict.AC),
        (JOBS[1], Verdict.AC),
        (JOBS[2], Verdict.AC),
        (
            Job(
                language="cpp",
                code=f'#include <cstdio>\nint main(){{std::puts("{unique}");}}',
                tests=[{"input": "", "output": "wrong"}],
                fetch_files=["main", "missing.txt"],
            ),
            Verdict.WA,
        ),
        (Job(language="c", code=f"int main(){{ {unique} }}", tests=[{"output": ""}]), Verdict.CE),
        # Python's compile error is found by the zygote while it runs the first test.
        (Job(language="python", code="def (", tests=[{"output": ""}]), Verdict.CE),
        (Job(language="python", code="while True: pass", tests=[{"output": ""}]), Verdict.TLE),
    ]
    for job, verdict in cases:
        limited = job.model_copy(update={"limits": Limits(time_limit_ms=500)})
        assert pool.judge(limited).verdict is verdict, job.code
    results = [reply for reply in replies if reply["op"] == "result"]
    assert len(results) >= len(cases)  # a TLE may be judged again for host load
    for reply in results:
        assert_fits(reply, wire.ResultFrame)
        for test in reply["tests"]:
            assert_fits(test, wire.TestReport)
        if reply["compile"] is not None:
            assert_fits(reply["compile"], wire.CompileReport)
        for entry in reply.get("artifacts", []) + reply.get("fetched", []):
            assert_fits(entry, wire.CopiedFile)
    fetched = [reply["fetched"] for reply in results if "fetched" in reply]
    assert [[entry["name"] for entry in entries] for entries in fetched] == [
        ["main", "missing.txt"]
    ]
    assert "error" in fetched[0][1] and "size" in fetched[0][0]


class _Answering:
    """A sandbox whose agent answers every job with ``reply``."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply = reply
        self.jobs_run = 0
        self.closed = False

    def request(self, header: Any, blob: bytes = b"", *, timeout: float) -> tuple[Any, bytes]:
        return self.reply, b""

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    "reply",
    [{"op": "error", "message": "boom"}, {"op": "pong", "nonce": None}, {"tests": []}],
    ids=["error", "another-frame", "no-op"],
)
def test_an_agent_that_breaks_the_protocol_is_a_crashed_sandbox(reply: dict[str, Any]) -> None:
    sandboxes: list[_Answering] = []

    def start(language: str) -> Any:
        sandboxes.append(_Answering(reply))
        return sandboxes[-1]

    pool = SandboxPool(SandboxConfig(sandboxes_per_language=1), sandbox_factory=start)
    with pytest.raises(SandboxCrashed, match="sandbox agent"):
        pool.judge(JOBS[0])
    assert sandboxes[0].closed  # never handed to another job
