"""Planned calls handed over one at a time (a99d5fa): a third look.

- A program that writes extra, partial or early lines to the answers' pipe, to get a later
  call's arguments before its own answer is committed, gains nothing: every line it writes is
  an answer in the result, in order.
- A correct answer is a value, as the runner's are: the runner compares it in the sandbox and
  has no bound on it but memory, while the relay bounded all the answers together by the
  larger of the file-size limit and 1 MB (OLE past it): a correct program whose answers passed
  that bound was OLE planned and AC through the runner. The bound is now the larger of the
  file-size limit and 64 MB, what a test's output may be at the default limit.
"""

from __future__ import annotations

import pytest

import judge_service.sandbox._jobs as jobs_module
from judge_service.sandbox._assert_plan import plan
from judge_service.sandbox.models import Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox._planned import assert_job, check_of, one_python_sandbox

one_sandbox = pytest.fixture(scope="module", name="one_sandbox")(one_python_sandbox)

CHAIN = "assert c(11) == 13\n    assert c(13) == 17"

# Reads fd 4 (the calls) without blocking after writing `trick` to fd 3 (the answers), and
# answers with the next call's argument when one shows (c(11) -> 13), else 0.
_PEEKS = """
    import os, select, time, json
    TRICK = {trick!r}
    PRE = {pre!r}
    if PRE:
        os.write(3, PRE)
    def seen():
        time.sleep(0.05)
        if select.select([4], [], [], 0)[0]:
            return os.read(4, 1 << 16)
        return b""
    def c(x):
        if x != 11:
            return 17 if x == 13 else 0
        if TRICK:
            os.write(3, TRICK)
        for line in seen().splitlines():
            try:
                return json.loads(line)[1][0]
            except Exception:
                pass
        return 0
"""
_TRICKS = {
    "partial-line": (b"", b'["return", '),
    "extra-line-at-import": (b'["ready"]\n', b""),
    "blank-line-in-call": (b"", b"\n"),
    "cr-and-nul": (b"", b'["return", 0]\r\x00'),
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_TRICKS))
def test_writing_lines_early_shows_no_later_call_before_an_answer_is_committed(
    one_sandbox: SandboxPool, name: str
) -> None:
    pre, trick = _TRICKS[name]
    assert plan(check_of(CHAIN), "c") is not None
    code = _PEEKS.format(trick=trick, pre=pre)
    result = assert_job(one_sandbox, code, check_of(CHAIN))
    assert result.verdict is not Verdict.AC, result.tests


# (program, check body, limits): correct, AC through the runner.
_BIG_ANSWERS = {
    "one-2mb-answer-small-output-limit": (
        "def c(x):\n    return 'a' * 2_000_000\n",
        "assert len(c(1)) == 2_000_000",
        {"output_limit_kb": 64},
    ),
    "many-10kb-answers-small-output-limit": (
        "def c(x):\n    return 'a' * 10_000\n",
        "\n    ".join(f"assert len(c({i})) == 10_000" for i in range(300)),
        {"output_limit_kb": 64},
    ),
    "three-answers-each-under-the-output-limit": (
        "def c(x):\n    return 'a' * 600_000\n",
        "\n    ".join(f"assert len(c({i})) == 600_000" for i in range(3)),
        {"output_limit_kb": 1024},
    ),
}


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_BIG_ANSWERS))
def test_large_correct_answers_get_the_runners_verdict(
    one_sandbox: SandboxPool, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    code, body, limits = _BIG_ANSWERS[name]
    assert plan(check_of(body), "c") is not None
    planned = assert_job(one_sandbox, code, check_of(body), **limits)
    monkeypatch.setattr(jobs_module, "plan", lambda *_: None)
    runner = assert_job(one_sandbox, code, check_of(body), **limits)
    assert runner.verdict is Verdict.AC, runner.tests
    assert planned.verdict is Verdict.AC, planned.tests
