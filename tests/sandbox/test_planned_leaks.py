"""Planned assert tests: what a program could learn or break through the calls and answers.

- A later call's argument can show an earlier call's expected value, in more forms than any
  list of them holds: a tuple for a list, a set or a permutation of it, its digits inside a
  string, a float within the check's tolerance, a short string inside a longer one. A wrong
  program read it ahead and passed; no call is now handed over before the answer before it.
- The answers' lines are the program's to write: many empty lines made the agent decode each
  one, past the host's deadline (SE, which is no failure of the program's).
- A program that ignores SIGXFSZ and writes answers past the limit must not hold the relay
  until the wall clock.
- Real-time signals sent to the zygote must not stay queued against the sandbox uid's quota,
  which every sandbox on the host shares.
"""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.sandbox._assert_plan import plan
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox._planned import AHEAD, assert_job, check_of, one_python_sandbox

one_sandbox = pytest.fixture(scope="module", name="one_sandbox")(one_python_sandbox)

# (name, check): the second call's argument shows the first call's expected value.
HIDDEN_CHAINS = {
    "tuple-for-list": "assert c(7) == [4, 9, 1]\n    assert c((4, 9, 1)) == 14",
    "set-for-list": "assert c(7) == [4, 9, 1]\n    assert c({1, 4, 9}) == 14",
    "permutation-for-sorted": "assert sorted(c(7)) == [1, 4, 9]\n    assert c([9, 1, 4]) == 14",
    "digits-in-a-string": "assert c(7) == 12345\n    assert c('id-12345') == 14",
    "float-within-tolerance": "assert abs(c(7) - 1.5) < 0.1\n    assert c(1.45) == 14",
    "short-string": "assert c(7) == 'ab'\n    assert c('xaby') == 14",
    "dict-of-floats": "assert c(7) == {'a': 1}\n    assert c({'a': 1.0}) == 14",
}


# Reads the calls the harness has buffered from the calls pipe and answers the first call
# with what a later argument shows (the tuple, set or digits of the expected value).
_READS_AHEAD = (
    AHEAD
    + """
    def c(x):
        if x != 7:
            return 14
        for _, (argument,) in ahead():
            if isinstance(argument, dict) and ("tuple" in argument or "set" in argument):
                return sorted(next(iter(argument.values())), key=[4, 9, 1].index)
            if isinstance(argument, str) and argument.startswith("id-"):
                return int(argument[3:])
        return 0
"""
)


# Answers each call with how many calls it can read ahead: the harness's buffer, or the pipe.
_COUNTS_AHEAD = """
    import gc, io, os
    def ahead():
        os.set_blocking(4, False)
        try:
            for held in gc.get_objects():
                if isinstance(held, io.BufferedReader) and not held.closed:
                    if held.fileno() == 4:
                        return len([line for line in (held.peek() or b"").splitlines() if line])
            return len(os.read(4, 1 << 16).splitlines())
        except (BlockingIOError, OSError, ValueError):
            return 0
        finally:
            os.set_blocking(4, True)
    def c(x):
        return ahead()
"""
# Later arguments that tell nothing of the earlier answers, in numbers and kinds of calls.
_UNRELATED: dict[str, list[Any]] = {
    "three-numbers": [1, 2, 3],
    "lists-and-strings": [[5, 6], "xyz", (7,), {"k": 1}],
    "twenty-calls": list(range(20)),
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_UNRELATED))
def test_no_call_is_handed_over_before_the_answer_before_it(
    one_sandbox: SandboxPool, name: str
) -> None:
    body = "\n    ".join(f"assert c({argument!r}) == 0" for argument in _UNRELATED[name])
    assert plan(check_of(body), "c") is not None
    result = assert_job(one_sandbox, _COUNTS_AHEAD, check_of(body))
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.integration
@pytest.mark.parametrize("name", list(HIDDEN_CHAINS))
def test_a_wrong_program_cannot_read_an_answer_ahead(one_sandbox: SandboxPool, name: str) -> None:
    result = assert_job(one_sandbox, _READS_AHEAD, check_of(HIDDEN_CHAINS[name]))
    # WA, or RE where its stand-in answer does not even fit the check (sorted() of 0).
    assert result.verdict in (Verdict.WA, Verdict.RE), result.tests


@pytest.mark.integration
@pytest.mark.parametrize("line", [b"\n", b"[]\n", b"null\n"])
def test_many_answer_lines_are_the_programs_failure_not_the_judges(
    one_sandbox: SandboxPool, line: bytes
) -> None:
    flood = f"""
    import os
    lines = memoryview({line!r} * ((16 << 20) // {len(line)}))
    while lines:
        lines = lines[os.write(3, lines):]
    def c(x):
        return x
    """
    check = check_of("assert c(1) == 2\n    assert c(5) == 6")
    result = assert_job(one_sandbox, flood, check, time_limit_ms=100)
    assert result.verdict not in (Verdict.SE, Verdict.AC), result.tests


@pytest.mark.integration
def test_a_program_ignoring_sigxfsz_past_the_limit_is_not_held_to_the_wall_clock(
    one_sandbox: SandboxPool,
) -> None:
    ignores = """
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    def c(x):
        return 'a' * 200000
    """
    chained = check_of("assert c(1) == 2\n    assert c(2) == 3")
    result = assert_job(one_sandbox, ignores, chained, time_limit_ms=500, output_limit_kb=64)
    assert result.verdict is not Verdict.TLE and result.verdict is not Verdict.SE, result.tests


_QUEUED = (
    "fields = dict(line.split(':', 1) for line in open('/proc/self/status') if ':' in line)\n"
    "print(fields['SigQ'].split('/')[0].strip())\n"
)


@pytest.mark.integration
@pytest.mark.parametrize("target", ["os.getppid()", "1", "-1"], ids=["zygote", "agent", "everyone"])
def test_real_time_signals_do_not_stay_queued_for_the_sandbox_uid(
    one_sandbox: SandboxPool, target: str
) -> None:
    flood = (
        "import os, signal\n"
        "signal.pthread_sigmask(signal.SIG_BLOCK, range(signal.SIGRTMIN, signal.SIGRTMAX + 1))\n"
        f"target = {target}\n"
        "for i in range(50000):\n"
        "    try:\n"
        "        os.kill(target, signal.SIGRTMIN + i % 30)\n"
        "    except OSError:\n"
        "        break\n"
    )
    one_sandbox.judge(Job(language="python", code=flood, tests=[{"input": "", "output": ""}]))
    after = one_sandbox.judge(
        Job(language="python", code=_QUEUED, tests=[{"input": "", "output": ""}])
    )
    assert int(after.tests[0].stdout.strip()) < 1000, after.tests
