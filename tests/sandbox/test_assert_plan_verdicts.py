"""Planned assert tests give the runner's verdicts: every case runs both ways, in real
sandboxes, and the two verdicts must agree (and be the one a reader expects)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

import judge_service.sandbox._jobs as jobs_module
from judge_service.sandbox._assert_plan import plan
from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

CHECK = """
def check(candidate):
    assert candidate(1) == 2
    assert candidate(2) == 3
    assert abs(candidate(0.5) - 1.5) < 1e-9
"""
# (name, program, check, expected verdict)
CASES: list[tuple[str, str, str, Verdict]] = [
    ("correct", "def f(x): return x + 1", CHECK, Verdict.AC),
    ("wrong", "def f(x): return x", CHECK, Verdict.WA),
    ("wrong-type", "def f(x): return str(x + 1)", CHECK, Verdict.WA),
    ("raises", "def f(x): return 1 // 0", CHECK, Verdict.RE),
    ("loops", "def f(x):\n    while True: pass", CHECK, Verdict.TLE),
    # The first check fails: the runner never makes the later calls that would loop or crash.
    (
        "wrong-then-loops",
        "calls = []\ndef f(x):\n    calls.append(x)\n    if len(calls) == 2:\n"
        "        while True: pass\n    return 0",
        CHECK,
        Verdict.WA,
    ),
    (
        "wrong-then-exits",
        "import sys\ncalls = []\ndef f(x):\n    calls.append(x)\n"
        "    if len(calls) == 2: sys.exit(0)\n    return 0",
        CHECK,
        Verdict.WA,
    ),
    ("exits", "import sys\ndef f(x): sys.exit(0)", CHECK, Verdict.RE),
    ("not-plain", "def f(x): return object()", CHECK, Verdict.WA),
    ("top-level-raises", "raise ValueError('no')\ndef f(x): return x + 1", CHECK, Verdict.RE),
    ("syntax-error", "def f(x) return x", CHECK, Verdict.CE),
    ("prints", "def f(x):\n    print('noise', x)\n    return x + 1", CHECK, Verdict.AC),
    (
        "state-across-calls",
        "calls = []\ndef f(x):\n    calls.append(x)\n    return x + len(calls)",
        "def check(c):\n    assert c(1) == 2\n    assert c(1) == 3\n",
        Verdict.AC,
    ),
    (
        "solution-class",
        "class Solution:\n    def f(self, x): return x + 1",
        CHECK,
        Verdict.AC,
    ),
    (
        "approx-type-error",
        "def f(x): return [x]",
        "def check(c):\n    assert abs(c(1) - 1) < 1\n",
        Verdict.RE,
    ),
    (
        "tuple-wrapper",
        "def f(x): return [x, x]",
        "def check(c):\n    assert tuple(c(1)) == tuple([1, 1])\n",
        Verdict.AC,
    ),
    (
        "int-for-float-eq",
        "def f(x): return 2",
        "def check(c):\n    assert c(1) == 2.0\n",
        Verdict.AC,
    ),
    ("is-none", "def f(x): return None", "def check(c):\n    assert c(1) is None\n", Verdict.AC),
    ("truthy-empty", "def f(x): return []", "def check(c):\n    assert c(1)\n", Verdict.WA),
    ("assert-false", "def f(x): return 2", "def check(c):\n    assert False\n", Verdict.WA),
    (
        "mbpp-named",
        "def add(a, b): return a + b",
        "assert add(1, 2) == 3\nassert add(2, 2) == 4\n",
        Verdict.AC,
    ),
    ("mbpp-missing-name", "def plus(a, b): return a + b", "assert add(1, 2) == 3\n", Verdict.RE),
    ("memory-hog", "def f(x):\n    return len('x' * (512 << 20))", CHECK, Verdict.MLE),
]


def _judge(judge: Any, program: str, check: str) -> Any:
    return judge(
        "python",
        program + "\n",
        [{"code": textwrap.dedent(check).lstrip("\n")}],
        mode="assert",
        entry_point="f",
        limits={"time_limit_ms": 1500, "memory_limit_mb": 128},
    )


@pytest.mark.parametrize(
    ("program", "check", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_planned_and_runner_verdicts_agree(
    judge: Any, monkeypatch: pytest.MonkeyPatch, program: str, check: str, expected: Verdict
) -> None:
    planned_as = plan(textwrap.dedent(check).lstrip("\n"), "f")
    assert planned_as is not None, "not a planned test"
    planned = _judge(judge, program, check)
    monkeypatch.setattr(jobs_module, "plan", lambda *_: None)
    through_the_runner = _judge(judge, program, check)
    described = [(t.verdict, t.message, t.stderr[-300:]) for t in planned.tests]
    assert planned.verdict is expected, described
    assert through_the_runner.verdict is expected, [
        (t.verdict, t.message, t.stderr[-300:]) for t in through_the_runner.tests
    ]
