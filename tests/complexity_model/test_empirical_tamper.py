"""No solution earns a time reward by tampering with the timing or by knowing its inputs.

Red-team reproductions, each an O(n^2) count of inversions (``count-inversions``, optimal
O(n log n)) that the empirical judge reads as O(n), so R_time 1 for a solution two ladder
steps worse. They pass no test they would not pass honestly: every answer is right, only the
time is wrong.

- The Python timing driver times the solution in the solution's own interpreter: the clock
  (``time.thread_time``), the CPU timer (``SIGPROF``), the ``Meter`` and the reporter (whose
  nonce is in the driver's frames) are all the solution's to replace.
- The solution loads in the driver, whose frames hold the spec and the generator: it can make
  every input before it is timed and answer from a table. Without the frames it can guess the
  generator (``random`` seeded with n, the sizes a fixed ladder), which is the same attack.

Strict xfail until the driver is split (see the red-team report): the process that reads the
clock and reports must never run the solution's code, and the solution's process must get its
input only once its clock is read (and not be able to predict it).
"""

from __future__ import annotations

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical.problems import BENCHMARK, problem_of

pytestmark = pytest.mark.integration

_SLOW = (
    "def slow(xs):\n    c = 0\n    for i in range(len(xs)):\n"
    "        for j in range(i + 1, len(xs)):\n"
    "            if xs[i] > xs[j]:\n                c += 1\n"
    "    return c\n"
)

# The sizes the judge uses (every integer to 8, then three per doubling): guessable.
_LADDER = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 25, 32, 40, 50, 64, 80, 101, 128, 161, 203]
_LADDER += [256, 322, 406, 512, 645, 812, 1024]

TAMPERING = {
    # The clock the Meter reads is a module attribute; SIGPROF's handler is replaceable.
    "fake thread_time": (
        "import time, signal\n_fake = [0.0]\ntime.thread_time = lambda: _fake[0]\n"
        "signal.signal(signal.SIGPROF, signal.SIG_IGN)\n" + _SLOW + "def f(xs):\n"
        "    _fake[0] += 2e-7 * len(xs) + 1e-6\n    return slow(xs)\n"
    ),
    # The Meter itself, from the driver's frame.
    "replaced Meter.time": (
        "import sys\n" + _SLOW + "_fake = [0.0]\nmeter = sys._getframe(2).f_locals['meter']\n"
        "def _time(work):\n    result = work()\n    return _fake[0], result\n"
        "meter.time = _time\n"
        "def f(xs):\n    _fake[0] = 2e-7 * len(xs) + 1e-6\n    return slow(xs)\n"
    ),
    # The generator, from the driver's frame: every input answered before it is timed.
    "inputs made at load from the driver's generator": (
        "import sys, random\n" + _SLOW + "_frame = sys._getframe(2).f_locals\n"
        "_memo = {}\nfor _n in _frame['spec']['sizes']:\n    if _n > 1100:\n        break\n"
        "    random.seed(_n)\n    _xs = _frame['generator']['generate'](_n)[0]\n"
        "    _memo[tuple(_xs)] = slow(_xs)\n"
        "def f(xs):\n    t = tuple(xs)\n    return _memo[t] if t in _memo else slow(xs)\n"
    ),
    # No frames at all: the inputs are guessable (random seeded with n, a fixed ladder).
    "inputs guessed at load": (
        "import random\n" + _SLOW + f"_memo = {{}}\nfor _n in {_LADDER}:\n"
        "    random.seed(_n)\n    _xs = [random.randint(0, 10**6) for _ in range(_n)]\n"
        "    _memo[tuple(_xs)] = slow(_xs)\n"
        "def f(xs):\n    t = tuple(xs)\n    return _memo[t] if t in _memo else slow(xs)\n"
    ),
}


@pytest.mark.xfail(
    strict=True, reason="the Python timing driver shares the solution's interpreter (red team)"
)
@pytest.mark.parametrize("attack", list(TAMPERING))
def test_a_solution_cannot_time_itself_faster_than_it_is(
    judge: EmpiricalComplexityJudge, attack: str
) -> None:
    problem = problem_of(next(case for case in BENCHMARK if case.id == "count-inversions"))
    estimate = judge.estimate(TAMPERING[attack], "python", problem)
    assert estimate.predicted in ("O(n^2)", "unknown"), (estimate.predicted, estimate.evidence)


def test_the_honest_quadratic_solution_is_quadratic(judge: EmpiricalComplexityJudge) -> None:
    problem = problem_of(next(case for case in BENCHMARK if case.id == "count-inversions"))
    estimate = judge.estimate(_SLOW + "f = slow\n", "python", problem)
    assert estimate.predicted == "O(n^2)", estimate.evidence
