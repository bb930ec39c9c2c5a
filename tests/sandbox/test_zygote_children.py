"""What a Python test's process starts with, now that the zygote prepares part of it once.

The zygote blocks the catchable signals (it ignored them before) and sets the language's
environment for itself when a request's differs, so that a child needs neither a call per
signal nor os.environ's code. A test's program must still start as after exec: every signal
at its default disposition, none blocked or ignored, the language's environment and nothing
else; and the zygote must stay deaf to what its children send it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

pytestmark = pytest.mark.integration

_STATE = (
    "def state():\n"
    "    import os\n"
    "    fields = dict(line.split(':\\t', 1) for line in open('/proc/self/status')"
    " if ':\\t' in line)\n"
    "    masks = [int(fields[name].strip(), 16) for name in ('SigBlk', 'SigIgn', 'SigCgt')]\n"
    "    return [masks, sorted(os.environ.items())]\n"
)
_EXPECTED = [[0, 0, 0], sorted(LANGUAGES["python"].environment().items())]


@pytest.fixture(scope="module")
def one_sandbox() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool


def _judge(pool: SandboxPool, **fields: object) -> JobResult:
    return pool.judge(Job(language="python", **fields))  # type: ignore[arg-type]


def test_a_stdin_program_starts_with_default_signals_and_the_language_environment(
    one_sandbox: SandboxPool,
) -> None:
    result = _judge(
        one_sandbox, code=_STATE + "print(state())\n", tests=[{"input": "", "output": ""}]
    )
    assert ast.literal_eval(result.tests[0].stdout.strip()) == _as_printed(_EXPECTED), result.tests[
        0
    ]


def _as_printed(value: list[object]) -> object:
    """``_EXPECTED`` as ``print`` shows it and ``literal_eval`` reads it back (tuples stay)."""
    return ast.literal_eval(repr(value))


@pytest.mark.parametrize("path", ["planned", "runner"])
def test_assert_and_function_programs_start_the_same(
    one_sandbox: SandboxPool, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge_service.sandbox import _jobs

    if path == "runner":
        monkeypatch.setattr(_jobs, "plan", lambda *_: None)
    expected = _as_printed(_EXPECTED)
    asserted = _judge(
        one_sandbox,
        mode="assert",
        code=_STATE,
        entry_point="state",
        tests=[{"code": f"def check(candidate):\n    assert candidate() == {expected!r}\n"}],
    )
    assert asserted.verdict is Verdict.AC, asserted.tests[0]
    called = _judge(
        one_sandbox,
        mode="function",
        code=_STATE,
        entry_point="state",
        tests=[{"args": [], "expected": expected}],
    )
    assert called.verdict is Verdict.AC, called.tests[0]


def test_the_zygote_stays_deaf_to_its_childrens_signals(one_sandbox: SandboxPool) -> None:
    signals = "SIGTERM SIGINT SIGHUP SIGQUIT SIGUSR1 SIGUSR2 SIGALRM SIGPIPE SIGTSTP SIGTTIN"
    sender = (
        "import os, signal, time\n"
        f"for name in {signals.split()!r}:\n"
        "    os.kill(os.getppid(), getattr(signal, name))\n"
        "time.sleep(0.05)\n"
        "print(os.getppid())\n"
    )
    sent = _judge(one_sandbox, code=sender, tests=[{"input": "", "output": ""}] * 2)
    after = _judge(
        one_sandbox, code="import os\nprint(os.getppid())\n", tests=[{"input": "", "output": ""}]
    )
    parents = {test.stdout.strip() for test in [*sent.tests, *after.tests]}
    assert len(parents) == 1, [test.stdout for test in [*sent.tests, *after.tests]]
    assert all(test.exit_code == 0 for test in [*sent.tests, *after.tests])


def test_stdin_rereads_after_a_seek_and_no_stream_state_reaches_the_next_test(
    one_sandbox: SandboxPool,
) -> None:
    """The streams a child adopts were made in the zygote on a memfd at offset 0: they must
    behave as streams made on the test's own descriptors (stdin seekable, at its start, small
    input or the sealed memfd of a large one), and start empty in every test."""
    rereads = (
        "import sys\n"
        "first = sys.stdin.read()\n"
        "sys.stdin.seek(0)\n"
        "again = sys.stdin.read()\n"
        "print(len(first), first == again, sys.stdin.tell() == len(again.encode()), flush=True)\n"
        "sys.stdout.write('unflushed ' * 100)  # in the buffer, lost at _exit\n"
        "import os\n"
        "os._exit(0)\n"
    )
    small, big = "1 2\n", "7 " * 50_000  # past 64 KB: a read-only descriptor of a sealed memfd
    result = _judge(
        one_sandbox,
        code=rereads,
        tests=[
            {"input": small, "output": f"{len(small)} True True"},
            {"input": big, "output": f"{len(big)} True True"},
        ],
    )
    assert result.verdict is Verdict.AC, result.tests
    after = _judge(one_sandbox, code="print('next')\n", tests=[{"input": "", "output": "next"}])
    assert after.verdict is Verdict.AC and after.tests[0].stdout.strip() == "next", after.tests


def test_a_descriptor_is_at_its_start_only_when_seekable_and_at_offset_zero() -> None:
    import os

    from judge_service.sandbox.agent.zygote import _at_start

    memfd = os.memfd_create("probe")
    read_end, write_end = os.pipe()
    try:
        assert _at_start(memfd)
        os.write(memfd, b"abc")
        assert not _at_start(memfd)
        os.lseek(memfd, 0, os.SEEK_SET)
        assert _at_start(memfd)
        assert not _at_start(memfd, read_end)
        assert not _at_start(write_end)
    finally:
        for fd in (memfd, read_end, write_end):
            os.close(fd)


# (name, check): the second call's argument is the first call's expected value, so the zygote
# hands the calls over one answer at a time; or no call shows an expected value, and it hands
# them all over once the program is ready.
_PLANNED_CHECKS = {
    "chained": "def check(c):\n    assert c(1) == 2\n    assert c(2) == 3\n",
    "unchained": "def check(c):\n    assert c(1) == 2\n    assert c(5) == 6\n",
}


@pytest.mark.parametrize("path", list(_PLANNED_CHECKS))
def test_an_answer_past_the_output_limit_is_ole_every_time(
    one_sandbox: SandboxPool, path: str
) -> None:
    """The relay used to close its end of the answers pipe while the program was still
    writing: the program got SIGPIPE besides the SIGXFSZ sent to it, and the kernel delivers
    the lower number first, so the same program was RE or OLE by a race (RE 4 times in 4 at
    70 MB, chained)."""
    verdicts = [
        _judge(
            one_sandbox,
            mode="assert",
            # Past the answers' limit (the larger of the output limit and 64 MB).
            code="def f(x):\n    return 'x' * (66 << 20)\n",
            entry_point="f",
            tests=[{"code": _PLANNED_CHECKS[path]}],
            limits={"output_limit_kb": 1024, "memory_limit_mb": 512},
        ).verdict
        for _ in range(4)
    ]
    assert verdicts == [Verdict.OLE] * 4, verdicts
