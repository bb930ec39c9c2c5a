"""No solution earns a time reward by answering right only where its answer is checked.

The timing runs check a program's answer on the cold call of each run, at sizes up to 8192;
the time is the calls after it, on the same input, at every size. Each attack below is a
program a class slower than the problem's optimum whose checked answers are right and whose
timed ones are wrong and faster: before the timed calls' answer was checked too, and answers
above 8192 (Python's at the powers of two and a secret half of the other sizes, compiled
languages' at every size), each was judged the optimum, full R_time.

- It recognises an input it has answered (by its content, or its length) and answers it again
  with a faster, wrong pass: the timed calls only.
- It answers wrongly and faster above n = 8192, where no answer was checked.
"""

from __future__ import annotations

import json

import pytest

from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.ladder import UNKNOWN
from tests.complexity_model.test_empirical_state import _problem

pytestmark = pytest.mark.integration

# distinct-count (optimum O(n)): sorting counts distinct values in O(n log n); counting the
# changes between neighbours of the unsorted list is O(n) and wrong.
_SORTED = (
    "def _right(xs):\n"
    "    s = sorted(xs)\n"
    "    return sum(1 for i in range(len(s)) if i == 0 or s[i] != s[i - 1])\n"
    "def _fast(xs):\n"
    "    return sum(1 for i in range(len(xs)) if i == 0 or xs[i] != xs[i - 1])\n"
)
DISTINCT_COUNT_ATTACKS = {
    "an input it has answered, by content": _SORTED + "_seen = set()\n"
    "def f(xs):\n"
    "    key = hash(tuple(xs))\n"
    "    if key in _seen:\n"
    "        return _fast(xs)\n"
    "    _seen.add(key)\n"
    "    return _right(xs)\n",
    "an input it has answered, by length": _SORTED + "_lengths = {}\n"
    "def f(xs):\n"
    "    _lengths[len(xs)] = _lengths.get(len(xs), 0) + 1\n"
    "    return _right(xs) if _lengths[len(xs)] == 1 else _fast(xs)\n",
    "above the sizes checked": _SORTED + "def f(xs):\n"
    "    return _fast(xs) if len(xs) > 8192 else _right(xs)\n",
}

# stdin-list-sum (optimum O(n)): the O(n^2) prefix loop (in Python it reaches the cap well
# below 8192, so a wrong pass above it is never timed).
_QUADRATIC_SUM = (
    "n = int(input())\n"
    "xs = list(map(int, input().split()))\n"
    "best = 0\n"
    "for i in range(n):\n"
    "    s = 0\n"
    "    for j in range(i + 1):\n"
    "        s += xs[j]\n"
    "    best = max(best, s)\n"
    "print(best)\n"
)
# In C++ (timed by the engine, whose answers were digested up to 8192 too), wrong and O(n)
# above 8192.
_CPP_QUADRATIC_SUM = """#include <cstdio>
#include <vector>
int main() {
    int n;
    scanf("%d", &n);
    std::vector<long long> a(n);
    for (auto& x : a) scanf("%lld", &x);
    long long best = 0;
    if (n > 8192) {
        for (long long x : a) best += x;
        printf("%lld\\n", best + 1);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        long long s = 0;
        for (int j = 0; j <= i; j++) s += a[j];
        if (s > best) best = s;
    }
    printf("%lld\\n", best);
}
"""


@pytest.mark.parametrize("attack", sorted(DISTINCT_COUNT_ATTACKS))
def test_a_right_answer_where_checked_and_a_fast_wrong_one_where_timed_earns_no_class(
    judge: EmpiricalComplexityJudge, attack: str
) -> None:
    problem = _problem("distinct-count")
    estimate = judge.estimate(DISTINCT_COUNT_ATTACKS[attack], "python", problem)
    assert estimate.predicted == UNKNOWN, json.dumps(estimate.evidence)
    assert estimate.evidence.get("final") is True  # no other backend gives it a class


def test_a_compiled_program_that_times_a_wrong_pass_earns_no_class(
    judge: EmpiricalComplexityJudge,
) -> None:
    problem = _problem("stdin-list-sum")
    estimate = judge.estimate(_CPP_QUADRATIC_SUM, "cpp", problem)
    assert estimate.predicted == UNKNOWN, json.dumps(estimate.evidence)


def test_the_honest_programs_keep_their_classes(judge: EmpiricalComplexityJudge) -> None:
    """The checks cost the honest forms nothing: the sort reads O(n log n), and the prefix
    loop (stdin) O(n^2)."""
    problem = _problem("distinct-count")
    honest = _SORTED + "def f(xs):\n    return _right(xs)\n"
    estimate = judge.estimate(honest, "python", problem)
    assert estimate.predicted == "O(n log n)", json.dumps(estimate.evidence)
    stdin_problem = _problem("stdin-list-sum")
    estimate = judge.estimate(_QUADRATIC_SUM, "python", stdin_problem)
    assert estimate.predicted == "O(n^2)", json.dumps(estimate.evidence)
