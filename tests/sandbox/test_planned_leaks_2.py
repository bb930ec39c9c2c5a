"""Planned assert tests, second attack: forms of chains a search for them missed, and tests that
made planning slow or huge on the host.

- A later argument showed an earlier call's expected value as a dict's pairs (or the dict for
  its pairs), a string's characters or words, bytes for text, or written out in a string when
  one of the container's items had more than one spelling (``2.0``), or the container nested
  or was a dict. A wrong program that read the answer ahead passed. (Calls now go over one at
  a time, whatever their arguments.)
- The search for chains compared every check with every later call: 100 calls of lists nested
  95 deep (22 KB of test) took 34 s to plan, 1000 of them about an hour; the host plans in a
  thread of its own process, before the job's deadline is looked at.
- Folding had a bound per operation only: ``[0] * 1048576 + [0] * 1048576 + ...`` (273 bytes
  of test for 20 terms) built 160 MB and took 7 s; 200 strings of a megabyte, 20 s.
"""

from __future__ import annotations

import time

import pytest

from judge_service.sandbox._assert_plan import _remembered_plan, plan
from judge_service.sandbox.models import Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox._planned import AHEAD, assert_job, check_of, one_python_sandbox

one_sandbox = pytest.fixture(scope="module", name="one_sandbox")(one_python_sandbox)

# (name, check): the second call's argument shows the first call's expected value.
HIDDEN_CHAINS = {
    "pairs-for-dict": "assert c(7) == {'a': 1, 'b': 2}\n    assert c([('a', 1), ('b', 2)]) == 14",
    "dict-for-pairs": "assert c(7) == [('a', 1), ('b', 2)]\n    assert c({'a': 1, 'b': 2}) == 14",
    "chars-for-string": "assert c(7) == 'hello'\n    assert c(['h', 'e', 'l', 'l', 'o']) == 14",
    "words-for-string": "assert c(7) == 'hello world'\n    assert c(['hello', 'world']) == 14",
    "bytes-in-bytes": "assert c(7) == b'secret'\n    assert c(b'xx-secret-xx') == 14",
    "text-for-bytes": "assert c(7) == b'secret'\n    assert c('secret') == 14",
    "floats-in-a-string": "assert c(7) == [1.5, 2.0]\n    assert c('1.5 2.0') == 14",
    "nested-in-a-string": "assert c(7) == [[1, 2], [3, 4]]\n    assert c('[[1, 2], [3, 4]]') == 14",
    "number-for-its-text": "assert c(7) == '-42'\n    assert c(-42) == 14",
    "dict-in-a-string": "assert c(7) == {'k': 12345}\n    assert c(\"{'k': 12345}\") == 14",
}


def _nested_calls(calls: int, depth: int) -> str:
    lines = ["def check(c):"]
    for index in range(calls):
        lines.append(f"    assert c({'[' * depth}{index}{']' * depth}) == [{-index - 1}]")
    return "\n".join(lines) + "\n"


def _flat_calls(calls: int, items: int) -> str:
    lines = ["def check(c):"]
    for index in range(calls):
        argument = ", ".join(str(index * items + item) for item in range(items))
        lines.append(f"    assert c([{argument}]) == [-1]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "test_code",
    [_nested_calls(100, 95), _nested_calls(1000, 95), _flat_calls(1000, 100)],
    ids=["100-nested-95", "1000-nested-95", "1000-lists-of-100"],
)
def test_planning_a_large_test_takes_a_bounded_time(test_code: str) -> None:
    _remembered_plan.cache_clear()
    started = time.perf_counter()
    planned = plan(test_code, "f")
    elapsed = time.perf_counter() - started
    assert elapsed < 5.0, elapsed  # 34 s, about an hour and about 80 s before
    assert planned is None or planned[0].count("\n") + 1 == test_code.count("assert")


@pytest.mark.parametrize(
    "argument",
    [
        "+".join(["[0] * 1048576"] * 20),
        "+".join(["'a' * 1048576"] * 200),
        "[0] * 1048576, [0] * 1048576, [0] * 1048576",
    ],
    ids=["list-sum", "string-sum", "three-arguments"],
)
def test_folded_literals_are_bounded_for_the_whole_test(argument: str) -> None:
    _remembered_plan.cache_clear()
    started = time.perf_counter()
    assert plan(check_of(f"assert c({argument}) == 1"), "f") is None  # left to the runner
    assert time.perf_counter() - started < 1.0


# Reads the calls handed over ahead from the calls pipe and answers the first call with what a
# later argument shows (a dict from its pairs, a string from its characters, floats from text).
_READS_AHEAD = (
    AHEAD
    + """
    def c(x):
        if x != 7:
            return 14
        for _, (argument,) in ahead():
            if isinstance(argument, list) and argument and isinstance(argument[0], dict):
                return {k: v for k, v in (item["tuple"] for item in argument)}
            if isinstance(argument, list) and all(isinstance(a, str) for a in argument):
                return "".join(argument)
            if isinstance(argument, str):
                return [float(word) for word in argument.split()]
        return 0
"""
)


@pytest.mark.integration
@pytest.mark.parametrize("name", ["pairs-for-dict", "chars-for-string", "floats-in-a-string"])
def test_a_wrong_program_cannot_read_an_answer_ahead(one_sandbox: SandboxPool, name: str) -> None:
    result = assert_job(one_sandbox, _READS_AHEAD, check_of(HIDDEN_CHAINS[name]))
    assert result.verdict is Verdict.WA, result.tests


# A planned test's answers are values, as the runner's are: a correct answer longer than a
# small output limit was OLE (the runner, which has no such bound on values, said AC).
_LONG_ANSWERS = {
    "string": ("def c(x):\n    return 'a' * 3000\n", "assert c(1) == 'a' * 3000"),
    "list": ("def c(x):\n    return [7] * 1500\n", "assert c(1) == [7] * 1500"),
    "chained": (
        "def c(x):\n    return 'a' * 3000 if x == 1 else 1\n",
        "assert c(1) == 'a' * 3000\n    assert c('a' * 3000) == 1",
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_LONG_ANSWERS))
def test_a_correct_answer_longer_than_a_small_output_limit_is_accepted(
    one_sandbox: SandboxPool, name: str
) -> None:
    code, body = _LONG_ANSWERS[name]
    assert plan(check_of(body), "c") is not None
    result = assert_job(one_sandbox, code, check_of(body), output_limit_kb=1)
    assert result.verdict is Verdict.AC, result.tests


# (calls, KB of each call's argument, KB of each answer): more calls are handed over at once
# than the calls pipe holds (64 KB). The relay wrote them with a blocking write while the
# program, which had read a part, blocked writing answers the relay was not reading: an honest
# program was held to the wall clock (TLE, 4 ms of CPU).
_FULL_PIPES = {"20-calls-of-5-kb": (20, 5, 10), "60-of-2-kb": (60, 2, 4), "4-of-40-kb": (4, 40, 40)}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_FULL_PIPES))
def test_calls_and_answers_larger_than_the_pipes_do_not_deadlock(
    one_sandbox: SandboxPool, name: str
) -> None:
    calls, argument_kb, answer_kb = _FULL_PIPES[name]
    body = "\n    ".join(
        f"assert c('y' * {argument_kb << 10} + '{index}') == 'x' * {answer_kb << 10}"
        for index in range(calls)
    )
    planned = plan(check_of(body), "c")
    assert planned is not None
    code = f"def c(s):\n    return 'x' * {answer_kb << 10}\n"
    result = assert_job(one_sandbox, code, check_of(body), time_limit_ms=1000)
    assert result.verdict is Verdict.AC, result.tests


# Tests the runner reads otherwise than a plan did: it calls the last ``check`` defined, and a
# top-level assertion's name as the test binds it. Planned, a right program was WA.
_RUNNERS_OWN = {
    "overridden-check": (
        "def check(c):\n    assert c(1) == 999\n\ndef check(c):\n    assert c(1) == 2\n"
    ),
    "imported-name": "from math import sqrt\nassert sqrt(4) == 2.0\nassert c(1) == 2\n",
    "star-import": "from math import *\nassert sqrt(4) == 2.0\nassert c(1) == 2\n",
}


@pytest.mark.parametrize("name", list(_RUNNERS_OWN))
def test_tests_whose_names_are_not_the_programs_are_left_to_the_runner(name: str) -> None:
    assert plan(_RUNNERS_OWN[name], "c") is None


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_RUNNERS_OWN))
def test_a_right_program_passes_what_the_runner_passes(one_sandbox: SandboxPool, name: str) -> None:
    result = assert_job(one_sandbox, "def c(x):\n    return x + 1\n", _RUNNERS_OWN[name])
    assert result.verdict is Verdict.AC, result.tests


# Held (no change needed): a program that kills its zygote after a wrong answer is never AC,
# and the next job in the warm sandbox is judged as usual (RE 5 of 5 for each, next job AC).
_KILLS = {
    "sigkill": "os.kill(os.getppid(), signal.SIGKILL)",
    "real-time": "os.kill(os.getppid(), signal.SIGRTMIN + 3)",
    "group": "os.killpg(os.getpgid(os.getppid()), signal.SIGRTMIN)",
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_KILLS))
def test_killing_the_zygote_after_a_wrong_answer_is_not_accepted(
    one_sandbox: SandboxPool, name: str
) -> None:
    code = f"""
    import os, signal, time
    def c(x):
        if x == 2:
            os.write(3, b'["return", 99, [null]]\\n')
            {_KILLS[name]}
            time.sleep(0.2)
        return x + 1
    """
    check = check_of("assert c(1) == 2\n    assert c(2) == 3\n    assert c(3) == 4")
    result = assert_job(one_sandbox, code, check)
    assert result.verdict in (Verdict.WA, Verdict.RE), result.tests
    honest = assert_job(one_sandbox, "def c(x):\n    return x + 1\n", check)
    assert honest.verdict is Verdict.AC, honest.tests


# A program that ignores SIGXFSZ and writes answers past the limit gets no more calls; what it
# did then decided its verdict: RE when it exited, TLE when it slept or spun (both for the
# output). The relay now says the output went past the limit: OLE.
_AFTER_THE_LIMIT = {
    "exits": "pass",
    "sleeps": "time.sleep(100)",
    "spins": "while True: os.write(3, b'x' * 65536)",
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_AFTER_THE_LIMIT))
def test_answers_past_the_limit_are_ole_whatever_the_program_does_next(
    one_sandbox: SandboxPool, name: str
) -> None:
    code = f"""
    import os, signal, time
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    def c(x):
        if x == 2:
            os.write(3, b'x' * (65 << 20))  # past the answers' limit (64 MB)
            {_AFTER_THE_LIMIT[name]}
        return x + 1
    """
    check = check_of("assert c(1) == 2\n    assert c(2) == 3\n    assert c(3) == 4")
    result = assert_job(one_sandbox, code, check, time_limit_ms=1000, output_limit_kb=64)
    assert result.verdict is Verdict.OLE, result.tests


@pytest.mark.parametrize("kib", [65, 1024, 8192])
def test_a_large_test_is_planned_but_not_remembered(kib: int) -> None:
    """4096 remembered tests of megabytes each would hold gigabytes of the host's memory."""
    _remembered_plan.cache_clear()
    padding = "#" * (kib << 10)
    planned = plan(check_of(f"assert c(1) == 2\n{padding}"), "c")
    assert planned is not None and planned[0] == '["c",[1]]'
    assert _remembered_plan.cache_info().currsize == 0
    assert plan(check_of("assert c(1) == 2"), "c") == planned
    assert _remembered_plan.cache_info().currsize == 1
