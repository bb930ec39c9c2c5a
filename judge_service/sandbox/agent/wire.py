"""The host-agent wire format: the frames the pool sends the agent in a sandbox, and the
frames the agent answers with.

One module for both sides: the host imports it, and the agent's bundle carries it into the
container (standard library only). A frame is ``>II`` (the JSON header's length, the blob's
length), the JSON header, then the blob: the files the header's ``blob_files`` and the test
data its ``test_data`` (host to agent) or ``artifacts`` and ``fetched`` (agent to host)
describe, in that order. The types are what each side writes; neither side validates the
other's frames at run time (both are ours, and the agent is PID 1 of a container the program
cannot tamper with).
"""

from __future__ import annotations

import json
import struct
from typing import Any, Literal, NotRequired, TypedDict, cast

PREFIX = struct.Struct(">II")


# ---- host to agent ------------------------------------------------------------------------
class Limits(TypedDict):
    """Limits of one process the agent runs (a test, a compile, a checker)."""

    cpu_ms: int
    wall_ms: int
    memory_kb: int
    output_bytes: int
    # The wall clock stops a program that sleeps or blocks, not one the host starves of CPU:
    # the wall limit moves on by the time the process waited for a CPU, up to this many times
    # the limit (default 1: it does not move).
    starved_wall_factor: NotRequired[float]
    # The agent's monotonic time past which that move stops (the job's caller gives up then: see
    # JobFrame.answer_within_ms); set by the agent, never sent.
    starved_until: NotRequired[float]
    # The RLIMIT_FSIZE backstop; default output_bytes + 1 (a compile writes to /work instead).
    fsize_bytes: NotRequired[int]
    stack_bytes: NotRequired[int]
    # A test's: stdout and stderr kept per stream, and for all of the job's tests together.
    report_bytes: NotRequired[int]
    report_total_bytes: NotRequired[int]


class RunSpec(TypedDict):
    argv: list[str]
    env: dict[str, str]
    argv0: str


class CompileSpec(TypedDict):
    """How the agent compiles; all of it is part of the compile-cache key."""

    argv: list[str]
    env: dict[str, str]
    artifacts: list[str]
    limits: Limits
    # A warm compiler the agent keeps running for this command ("javac"), when it may use one.
    server: NotRequired[str]


class CheckerSpec(TypedDict):
    kind: str
    abs_tol: float
    rel_tol: float
    # A custom checker's: its source and how to run it.
    source: NotRequired[str]
    argv: NotRequired[list[str]]
    limits: NotRequired[Limits]
    env: NotRequired[dict[str, str]]


class TestSpec(TypedDict, total=False):
    """One test, as ``TestCase.model_dump(exclude_none=True)`` writes it."""

    input: str
    output: str
    # A stdin test's input and expected output by content key (sha256 hex), in place of
    # ``input`` and ``output``: the bytes are in this frame's ``test_data`` or held by the agent
    # from an earlier job (see testdata.py).
    input_key: str
    output_key: str
    args: list[Any]
    kwargs: dict[str, Any]
    expected: Any
    code: str
    # An assert test judged as planned calls (sandbox/_assert_plan.py): calls (JSON lines) and
    # checks (JSON).
    plan: list[Any]


class BlobFile(TypedDict):
    """A file in the frame's blob: ``size`` bytes after the files listed before it."""

    name: str
    size: int
    mode: int


class DataEntry(TypedDict):
    """Test data in the frame's blob, after the files: ``size`` bytes named ``key``."""

    key: str
    size: int


class ChannelPaths(TypedDict):
    """The FIFOs the host made for the frames that follow (see ``_channel``)."""

    to_agent: str
    from_agent: str


class InitFrame(TypedDict):
    op: Literal["init"]
    zygote_bundle: str  # empty: no zygote (only Python runs one)
    zygote_argv: list[str]
    channel: NotRequired[ChannelPaths]


class PingFrame(TypedDict):
    op: Literal["ping"]
    nonce: NotRequired[str]


class JobFrame(TypedDict):
    op: Literal["job"]
    mode: str
    entry_point: str | None
    stop_on_first_failure: bool
    source: str
    source_name: str
    use_zygote: bool
    mle_markers: list[str]
    fetch_files: list[str]
    limits: Limits
    run: RunSpec
    tests: list[TestSpec]
    budget_ms: int
    checker: CheckerSpec
    blob_files: list[BlobFile]
    # Absent when nothing is compiled (an interpreted language, or a cached build in the blob).
    compile: NotRequired[CompileSpec]
    return_artifacts: NotRequired[bool]
    # An interpreter's syntax check, run at the first test that ends RE or CE (see
    # LanguageSpec.syntax_check_argv); its artifacts are none.
    syntax_check: NotRequired[CompileSpec]
    # Test data this frame carries (in the blob, after blob_files), and how many bytes of test
    # data the agent keeps for later jobs (default 0: none).
    test_data: NotRequired[list[DataEntry]]
    test_cache_bytes: NotRequired[int]
    # A test suite's "tests failed" exit status (see LanguageSpec.suite_failure_exit).
    suite_failure_exit: NotRequired[int]
    # The runtime's own last line of stdout (see LanguageSpec.runtime_trailer).
    runtime_trailer: NotRequired[str]
    # Milliseconds from this frame's arrival until the caller stops waiting: no test's wall
    # limit moves past it for a starving host (its own limit always stands).
    answer_within_ms: NotRequired[int]


HostFrame = InitFrame | PingFrame | JobFrame


# ---- agent to host ------------------------------------------------------------------------
class ReadyFrame(TypedDict):
    op: Literal["ready"]
    pid: int
    python: str
    # "fifo": every later frame, both ways, goes over the init frame's channel.
    channel: NotRequired[Literal["fifo", "stdio"]]


class PongFrame(TypedDict):
    op: Literal["pong"]
    nonce: str | None


class MissingFrame(TypedDict):
    """The job names test data the agent does not hold (nothing ran): the host sends the job
    again with these keys' bytes."""

    op: Literal["missing"]
    keys: list[str]


class ErrorFrame(TypedDict):
    """The agent failed on a frame (a bug, never the program's doing): the host destroys the
    sandbox and reports a system error."""

    op: Literal["error"]
    message: str


class CompileReport(TypedDict):
    ok: bool
    output: str
    cpu_ms: float
    # Absent when the Python zygote found the compile error while running the first test.
    wall_ms: NotRequired[float]
    exit_code: NotRequired[int | None]
    limit: NotRequired[str | None]
    # Stopped by the OOM killer for the other sandboxes' memory (see procfs.stopped_for_others).
    host_stopped: NotRequired[bool]


class Outcome(TypedDict):
    """A test's verdict and why; ``limit`` and ``cpu_wait_ms`` come with a TLE."""

    verdict: str
    message: str
    limit: NotRequired[str]
    cpu_wait_ms: NotRequired[float]


class TestReport(Outcome):
    """One test's result: the fields of ``models.TestResult``."""

    time_ms: float
    wall_ms: float
    memory_kb: int
    exit_code: NotRequired[int | None]
    signal: NotRequired[int | None]
    stdout: NotRequired[str]
    stderr: NotRequired[str]
    truncated: NotRequired[bool]


class CopiedFile(TypedDict):
    """A file copied out of /work: in the blob (``size``, ``mode``), or why not (``error``)."""

    name: str
    size: NotRequired[int]
    mode: NotRequired[int]
    error: NotRequired[str]


class ResultFrame(TypedDict):
    op: Literal["result"]
    compile: CompileReport | None
    tests: list[TestReport]
    # Empty when the sandbox was reset cleanly; otherwise the host destroys it.
    reset_error: str
    # The compiled program's files, first in the blob (when the job asked for them).
    artifacts: NotRequired[list[CopiedFile]]
    # The job's fetch_files, in the blob from fetched_offset.
    fetched: NotRequired[list[CopiedFile]]
    fetched_offset: NotRequired[int]


AgentFrame = ReadyFrame | PongFrame | ErrorFrame | ResultFrame | MissingFrame


# ---- frames -------------------------------------------------------------------------------
def encode(header: HostFrame | AgentFrame, blob: bytes = b"") -> bytes:
    data = json.dumps(header).encode()
    return PREFIX.pack(len(data), len(blob)) + data + blob


def sizes(prefix: bytes) -> tuple[int, int]:
    """The header's and the blob's lengths, from a frame's first ``PREFIX.size`` bytes."""
    header_size, blob_size = PREFIX.unpack(prefix)
    return header_size, blob_size


def host_frame(data: bytes) -> HostFrame:
    return cast(HostFrame, json.loads(data))


def agent_frame(data: bytes) -> AgentFrame:
    return cast(AgentFrame, json.loads(data))
