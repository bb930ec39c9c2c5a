"""No solution earns a time reward by tampering with the timing or by knowing its inputs.

Red-team reproductions, each an O(n^2) count of inversions (``count-inversions``, optimal
O(n log n)) that the Python timing driver used to read as O(n) or better, so R_time 1 for a
solution two ladder steps worse. They pass no test they would not pass honestly: every answer
is right, only the time is wrong. The driver used to time the solution in the solution's own
interpreter, beside its clock, its reporter and its generator; each attack below worked
against that driver (checked on the main branch before the split: every one was misjudged).

- The clock (``time.thread_time``), the CPU timer (``SIGPROF``), the ``Meter`` and the reporter
  (whose nonce is in the driver's memory) were all the solution's to replace or to call.
- The solution loaded in the driver, whose frames and descriptors hold the spec and the
  generator: it could make every input before it was timed and answer from a table. Without
  them it could guess the generator (``random`` seeded with n, the sizes a fixed ladder).
- Work handed to a child process (that nobody waits for) was on no clock the driver read.

The driver is now three processes (see ``complexity_model/empirical/_program.py``): the one that
reads the clocks and reports never runs the solution, and the solution's process gets its input
only once loaded, from a generator seeded with a secret it never sees.
"""

from __future__ import annotations

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.empirical._digest import digest_value
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
    # The reporter, found in memory: forged points (no digest to compare), then the driver
    # stops before it reports a real one.
    "forged report lines": (
        "import gc, os\n" + _SLOW + "def f(xs):\n    return slow(xs)\n"
        "for _o in gc.get_objects():\n"
        "    if type(_o).__name__ == 'Reporter':\n"
        f"        for _n in {_LADDER}:\n"
        "            _o('point', _n, 1e-5 + 2e-7 * _n, False, None)\n"
        "        _o('end')\n        os._exit(0)\n"
    ),
    # The reporter's class, patched: every time it reports is scaled down to n log n.
    "rescaled report": (
        "import gc, math\n" + _SLOW + "def f(xs):\n    return slow(xs)\n"
        "def _scaled(call):\n    def scaled(self, *fields):\n"
        "        if fields and fields[0] == 'point':\n"
        "            kind, n, s, c, d = fields\n"
        "            fields = (kind, n, s * (1 + math.log2(n)) / n, c, d)\n"
        "        return call(self, *fields)\n    return scaled\n"
        "for _o in gc.get_objects():\n"
        "    if isinstance(_o, type) and _o.__name__ == 'Reporter':\n"
        "        _o.__call__ = _scaled(_o.__call__)\n"
    ),
    # The spec, read from the driver's stdin (its descriptor, or through /proc): the generator,
    # the sizes and the seed, so every input is answered at load.
    "inputs made at load from the spec on stdin": (
        "import json, os, random\n" + _SLOW + "def _spec():\n"
        "    for path in ('/proc/self/fd/0', f'/proc/{os.getppid()}/fd/0'):\n"
        "        try:\n            with open(path) as handle:\n"
        "                return json.loads(handle.read())\n"
        "        except Exception:\n            pass\n"
        "    try:\n        return json.loads(os.pread(0, 1 << 24, 0))\n"
        "    except Exception:\n        return None\n"
        "_memo = {}\n_s = _spec()\nif _s:\n    _g = {}\n    exec(_s['generator'], _g)\n"
        "    for _n in _s['sizes']:\n        if _n > 1100:\n            break\n"
        "        _seed = _s.get('seed')\n"
        "        random.seed(f'{_seed}:input:{_n}' if _seed else _n)\n"
        "        _xs = _g['generate'](_n)[0]\n        _memo[tuple(_xs)] = slow(_xs)\n"
        "def f(xs):\n    t = tuple(xs)\n    return _memo[t] if t in _memo else slow(xs)\n"
    ),
    # The work in a child process nobody waits for (SIGCHLD ignored: reaped by the kernel, its
    # CPU time added to no one's): the timed process only forks and reads the answer.
    "work in a child nobody reaps": (
        "import os, signal\n" + _SLOW + "def f(xs):\n"
        "    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
        "    r, w = os.pipe()\n    if os.fork() == 0:\n"
        "        os.close(r)\n        os.write(w, str(slow(xs)).encode())\n        os._exit(0)\n"
        "    os.close(w)\n    data = b''\n    while True:\n"
        "        chunk = os.read(r, 64)\n        if not chunk:\n            break\n"
        "        data += chunk\n    os.close(r)\n    return int(data)\n"
    ),
    # The measurement cut short by the program: every process of the timing run's group killed
    # once n passes a few sizes, so that only the sizes where a square is still small count
    # (main read the 9 sizes as O(n^2) all the same; a stopped driver is now ``unknown``).
    "the driver killed at n = 12": (
        "import os, signal\n" + _SLOW + "def f(xs):\n    if len(xs) >= 12:\n"
        "        os.killpg(os.getpgid(0), signal.SIGKILL)\n    return slow(xs)\n"
    ),
    # Answers sent ahead of the requests, by the harness's own ``send`` wrapped at load: the
    # driver would read the clock before the work (a frame answers only the request whose
    # token it carries; passes on main, which has no such harness).
    "answers sent ahead": (
        "import sys\n" + _SLOW + "def f(xs):\n    return slow(xs)\n"
        "_frame, _globals = sys._getframe(), None\nwhile _frame is not None:\n"
        "    if 'send' in _frame.f_globals and 'receive' in _frame.f_globals:\n"
        "        _globals = _frame.f_globals\n        break\n    _frame = _frame.f_back\n"
        "if _globals is not None:\n    _send = _globals['send']\n"
        "    def _ahead(channel, header, payload=b''):\n"
        "        _send(channel, header, payload)\n"
        "        if header and header[0] == 'warmed':\n"
        "            _send(channel, ['first', {'digest': None, 'mutates': False}, *header[1:]])\n"
        "            _send(channel, ['rest', *header[1:]])\n"
        "    _globals['send'] = _ahead\n"
    ),
}


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


# What the solution's process can see of the driver: nothing. Its answer is what it found, and
# the driver digests the answer, so the digest says it.
_PROBE = (
    "import gc, os\n"
    "def _readable(path):\n    try:\n        with open(path, 'rb') as handle:\n"
    "            return len(handle.read(64)) > 0\n    except OSError:\n        return False\n"
    "try:\n    _stdin = len(os.read(0, 1 << 16))\nexcept OSError:\n    _stdin = 0\n"
    "_parent = os.getppid()\n"
    "with open(f'/proc/{_parent}/stat') as _stat:\n"
    "    _grandparent = int(_stat.read().rsplit(')', 1)[1].split()[1])\n"
    "_seen = [\n    _stdin,\n"
    "    any(_readable(f'/proc/{p}/{what}') for p in (_parent, _grandparent)\n"
    "        for what in ('environ', 'mem', 'fd/0', 'fd/1')),\n"
    "    any(type(o).__name__ in ('Reporter', 'Driver') for o in gc.get_objects()),\n"
    "    any(isinstance(o, dict) and 'nonce' in o for o in gc.get_objects()),\n"
    "]\n"
    "def f(xs):\n    return _seen\n"
)


def test_the_solutions_process_sees_neither_the_spec_nor_the_driver(
    judge: EmpiricalComplexityJudge,
) -> None:
    problem = problem_of(next(case for case in BENCHMARK if case.id == "count-inversions"))
    output, ended = judge._run_driver(_PROBE, problem, answers_only=True)
    assert output.complete and not output.error, (output, ended)
    assert output.digests
    nothing = digest_value([[0, False, False, False]])
    assert set(output.digests.values()) == {nothing}, output
