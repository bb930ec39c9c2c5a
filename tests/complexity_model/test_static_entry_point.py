"""Function and assert mode: the static analyser costs the problem's entry point (following the
calls it makes), and code it cannot see into on that path is ``unknown``, never a cheap class."""

from __future__ import annotations

import json
from typing import Any

import pytest

from complexity_model.evaluate import FUNCTION_MODE_DATA, load_rows, run_evaluation
from complexity_model.ladder import LADDER, UNKNOWN, time_reward
from complexity_model.static import StaticComplexityJudge
from judge_service.complexity import make_complexity_judge
from judge_service.reward import RewardConfig, compute_reward
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.schemas import ComplexityMode, ComplexityOut, Problem
from judge_service.settings import Settings
from judge_service.worker.tasks import judge_chunk

TRIPLE_LOOP = """
def f(nums):
    n = len(nums)
    count = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if nums[i] + nums[j] + nums[k] == 0:
                    count += 1
    return count
"""
HELPER_METHOD = """
class Solution:
    def countTriples(self, nums):
        return self._count(nums, len(nums))

    def _count(self, nums, n):
        total = 0
        for i in range(n):
            for j in range(i + 1, n):
                for k in range(j + 1, n):
                    total += nums[i] * nums[j] * nums[k]
        return total
"""
NESTED_FUNCTION = """
def f(nums):
    def inner():
        total = 0
        for a in nums:
            for b in nums:
                for c in nums:
                    total += a * b * c
        return total
    return inner()
"""
RECURSION = """
def f(nums):
    def rows(i):
        if i == len(nums):
            return 0
        here = 0
        for a in nums:
            for b in nums:
                here += a * b * nums[i]
        return here + rows(i + 1)
    return rows(0)
"""
EXEC_LOOPS = """
def f(nums):
    scope = {"nums": nums}
    exec("t = 0\\nfor a in nums:\\n    for b in nums:\\n        for c in nums:\\n"
         "            t += a * b * c", scope)
    return scope["t"]
"""
OPAQUE_VARIANTS = {
    "eval": """
def f(nums):
    return eval("sum(a * b for a in nums for b in nums)", {"nums": nums})
""",
    "getattr on a computed name": """
class Solution:
    def run(self, nums):
        return getattr(self, "m" + "ethod")(nums)

    def method(self, nums):
        return sum(a * b for a in nums for b in nums)
""",
    "globals() lookup": """
def slow(nums):
    return sum(a * b for a in nums for b in nums)

def f(nums):
    return globals()["slow"](nums)
""",
    "__import__ of ctypes": """
def f(nums):
    libc = __import__("ctypes").CDLL(None)
    return libc.abs(len(nums))
""",
    "import of ctypes at module level": """
import ctypes

def f(nums):
    return len(nums)
""",
    "a module without a cost model": """
import numpy as np

def f(nums):
    return int(np.sort(np.array(nums)).sum())
""",
    "os.system": """
import os

def f(nums):
    return os.system("sort /tmp/nums")
""",
    "a function picked from a table": """
def slow(nums):
    return sum(a * b for a in nums for b in nums)

def f(nums):
    return [slow, len][0](nums)
""",
    "exec under another name": """
def f(nums):
    run = exec
    run("for a in nums:\\n    for b in nums:\\n        pass", {"nums": nums})
""",
    "exec through __builtins__": """
def f(nums):
    __builtins__.exec("for a in nums:\\n    pass", {"nums": nums})
""",
    "a lambda stored in an attribute": """
class Solution:
    def __init__(self):
        self.pairs = lambda nums: sum(a * b for a in nums for b in nums)

    def run(self, nums):
        return self.pairs(nums)
""",
    "a variable that may hold any function": """
def slow(nums):
    return sum(a * b for a in nums for b in nums)

def f(nums):
    total = 0
    for g in (len, slow):
        total += g(nums)
    return total
""",
}


def function_problem(entry_point: str, optimal: str | None = None) -> Problem:
    return Problem(
        id="p",
        mode="function",
        tests=[{"args": [[1, 2, 3]], "expected": 0}],
        entry_point=entry_point,
        optimal_complexity=optimal,
    )


@pytest.fixture(scope="module")
def judge() -> StaticComplexityJudge:
    return StaticComplexityJudge()


def test_a_triple_loop_in_the_entry_point_is_cubic(judge: StaticComplexityJudge) -> None:
    estimate = judge.estimate(TRIPLE_LOOP, "python", function_problem("f"))
    assert estimate.predicted == "O(n^3)", estimate.evidence
    assert estimate.confidence > 0
    assert "entry point f (line 2)" in estimate.evidence["notes"]


@pytest.mark.parametrize(
    ("code", "entry_point"),
    [
        pytest.param(HELPER_METHOD, "Solution.countTriples", id="Solution method and helper"),
        pytest.param(HELPER_METHOD, "countTriples", id="bare name of a Solution method"),
        pytest.param(NESTED_FUNCTION, "f", id="nested function"),
        pytest.param(RECURSION, "f", id="recursion around a double loop"),
    ],
)
def test_the_calls_the_entry_point_makes_are_followed(
    judge: StaticComplexityJudge, code: str, entry_point: str
) -> None:
    estimate = judge.estimate(code, "python", function_problem(entry_point))
    assert estimate.predicted == "O(n^3)", estimate.evidence


def test_only_the_entry_point_and_what_it_calls_count(judge: StaticComplexityJudge) -> None:
    code = TRIPLE_LOOP + "\n\ndef g(nums):\n    return sum(nums)\n"
    assert judge.estimate(code, "python", function_problem("g")).predicted == "O(n)"
    # Module-level work runs once whatever the input: it is not the entry point's cost.
    table = "T = [i * i for i in range(10**6)]\n\ndef g(k):\n    return T[k]\n"
    assert judge.estimate(table, "python", function_problem("g")).predicted == "O(1)"


def test_java_and_cpp_entry_points(judge: StaticComplexityJudge) -> None:
    java = """
class Solution {
    public int slow(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) for (int j = 0; j < a.length; j++) s += a[i] * a[j];
        return s;
    }
    public int fast(int[] a) {
        int s = 0;
        for (int x : a) s += x;
        return s;
    }
}
"""
    assert judge.estimate(java, "java", function_problem("Solution.fast")).predicted == "O(n)"
    assert judge.estimate(java, "java", function_problem("slow")).predicted == "O(n^2)"
    cpp = """
#include <vector>
using namespace std;
int helper(vector<int>& a) {
    int s = 0;
    for (int i = 0; i < (int)a.size(); i++)
        for (int j = 0; j < (int)a.size(); j++)
            for (int k = 0; k < (int)a.size(); k++) s += a[i] ^ a[j] ^ a[k];
    return s;
}
class Solution {
public:
    int cheap(vector<int>& a) { return a.size(); }
    int costly(vector<int>& a);
};
int Solution::costly(vector<int>& a) { return helper(a); }
"""
    assert judge.estimate(cpp, "cpp", function_problem("Solution.cheap")).predicted == "O(1)"
    assert judge.estimate(cpp, "cpp", function_problem("costly")).predicted == "O(n^3)"
    assert judge.estimate(cpp, "cpp", function_problem("helper")).predicted == "O(n^3)"


PATTERNS = {
    "flood fill over a grid": (
        "python",
        "islands",
        "O(n^2)",
        """
def islands(grid):
    def sink(r, c):
        if r < 0 or c < 0 or r >= len(grid) or c >= len(grid[0]) or grid[r][c] != 1:
            return
        grid[r][c] = 0
        sink(r + 1, c)
        sink(r - 1, c)
        sink(r, c + 1)
        sink(r, c - 1)
    count = 0
    for r in range(len(grid)):
        for c in range(len(grid[0])):
            if grid[r][c] == 1:
                count += 1
                sink(r, c)
    return count
""",
    ),
    "a path search that unmarks after each call": (
        "python",
        "paths",
        "O(2^n)",
        """
def paths(grid):
    def walk(r, c):
        if r < 0 or c < 0 or r >= len(grid) or c >= len(grid[0]) or grid[r][c] != 1:
            return 0
        grid[r][c] = 2
        found = 1 + walk(r + 1, c) + walk(r, c + 1) + walk(r - 1, c)
        grid[r][c] = 1
        return found
    return walk(0, 0)
""",
    ),
    "memoised by decorator": (
        "python",
        "lcs",
        "O(n^2)",
        """
from functools import cache
def lcs(a, b):
    @cache
    def go(i, j):
        if i == len(a) or j == len(b):
            return 0
        if a[i] == b[j]:
            return 1 + go(i + 1, j + 1)
        return max(go(i + 1, j), go(i, j + 1))
    return go(0, 0)
""",
    ),
    "recursive binary search": (
        "python",
        "find",
        "O(log n)",
        """
def find(nums, target):
    def go(lo, hi):
        if lo > hi:
            return -1
        mid = lo + (hi - lo) // 2
        if nums[mid] < target:
            return go(mid + 1, hi)
        return go(lo, mid - 1) if nums[mid] > target else mid
    return go(0, len(nums) - 1)
""",
    ),
    "merge sort on halves of a slice": (
        "python",
        "sort",
        "O(n log n)",
        """
def sort(a):
    if len(a) <= 1:
        return a
    half = len(a) // 2
    left, right = sort(a[:half]), sort(a[half:])
    return sorted(left + right)
""",
    ),
    "sliding window with a set": (
        "python",
        "longest",
        "O(n)",
        """
def longest(s):
    seen, left, best = set(), 0, 0
    for right in range(len(s)):
        while s[right] in seen:
            seen.remove(s[left])
            left += 1
        seen.add(s[right])
        best = max(best, right - left + 1)
    return best
""",
    ),
    "recursion over prefixes without a memo": (
        "python",
        "breaks",
        "O(2^n)",
        """
def breaks(s, words):
    def can(start):
        if start == len(s):
            return True
        for end in range(start + 1, len(s) + 1):
            if s[start:end] in words and can(end):
                return True
        return False
    return can(0)
""",
    ),
    "Java recursive binary search": (
        "java",
        "Solution.find",
        "O(log n)",
        """
class Solution {
    int find(int[] a, int t) { return go(a, t, 0, a.length - 1); }
    int go(int[] a, int t, int lo, int hi) {
        if (lo > hi) return -1;
        int mid = lo + (hi - lo) / 2;
        if (a[mid] == t) return mid;
        if (a[mid] < t) return go(a, t, mid + 1, hi);
        return go(a, t, lo, mid - 1);
    }
}
""",
    ),
    "a lambda called on the spot": (
        "python",
        "f",
        "O(n^2)",
        """
def f(nums):
    return (lambda: [a * b for a in nums for b in nums])()
""",
    ),
    "a sort key with a loop": (
        "python",
        "f",
        "O(n^2)",
        """
def f(nums):
    return sorted(nums, key=lambda x: sum(nums) - x)
""",
    ),
    "a method stored in an attribute": (
        "python",
        "Solution.run",
        "O(n^2)",
        """
class Solution:
    def __init__(self):
        self.op = self.pairs

    def pairs(self, nums):
        return sum(a * b for a in nums for b in nums)

    def run(self, nums):
        return self.op(nums)
""",
    ),
    "a method of an object made on the spot": (
        "python",
        "f",
        "O(n^2)",
        """
class Helper:
    def pairs(self, nums):
        return sum(a * b for a in nums for b in nums)

def f(nums):
    return Helper().pairs(nums)
""",
    ),
    "an operator with a loop behind it": (
        "python",
        "f",
        "O(n^2)",
        """
class Slow:
    def __init__(self, items):
        self.items = items

    def __lt__(self, other):
        return sum(self.items) < sum(other.items)

def f(nums):
    return min(Slow(nums) for _ in range(3)).items
""",
    ),
    "Java compareTo with a loop behind it": (
        "java",
        "Solution.f",
        "O(n^2)",
        """
import java.util.*;
class Solution {
    static class Row implements Comparable<Row> {
        int[] a;
        Row(int[] a) { this.a = a; }
        public int compareTo(Row o) {
            int s = 0;
            for (int i = 0; i < a.length; i++) s += a[i] - o.a[i];
            return s;
        }
    }
    int f(int[] a) {
        PriorityQueue<Row> q = new PriorityQueue<>();
        q.add(new Row(a));
        q.add(new Row(a));
        return q.poll().a[0];
    }
}
""",
    ),
    "C++ operator< with a loop behind it": (
        "cpp",
        "f",
        "O(n^2)",
        """
#include <set>
#include <vector>
using namespace std;
struct Row {
    vector<int> a;
    bool operator<(const Row& o) const {
        long long s = 0;
        for (size_t i = 0; i < a.size(); i++) s += a[i] - o.a[i];
        return s < 0;
    }
};
int f(vector<int>& a) {
    set<Row> rows;
    rows.insert(Row{a});
    return rows.size();
}
""",
    ),
    "Java lambda run later": (
        "java",
        "Solution.f",
        "O(n^2)",
        """
class Solution {
    int f(int[] a) {
        int[] s = new int[1];
        Runnable r = () -> { for (int x : a) for (int y : a) s[0] += x * y; };
        r.run();
        return s[0];
    }
}
""",
    ),
    "Java forEach with a method reference": (
        "java",
        "Solution.f",
        "O(n^2)",
        """
import java.util.*;
class Solution {
    int f(List<Integer> a) {
        a.forEach(this::scan);
        return 0;
    }
    void scan(int x) { for (int i = 0; i < x; i++) {} }
}
""",
    ),
    "C++ named lambda called in a loop": (
        "cpp",
        "f",
        "O(n^2)",
        """
#include <vector>
using namespace std;
long long f(vector<int>& a) {
    long long s = 0;
    auto row = [&](int x) { for (int y : a) s += x * y; };
    for (int x : a) row(x);
    return s;
}
""",
    ),
    "C++ Euclid with a temporary": (
        "cpp",
        "find",
        "O(log n)",
        """
long long find(long long a, long long b) {
    while (b != 0) { long long t = a % b; a = b; b = t; }
    return a;
}
""",
    ),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_patterns_of_function_mode_code(judge: StaticComplexityJudge, name: str) -> None:
    language, entry_point, expected, code = PATTERNS[name]
    estimate = judge.estimate(code, language, function_problem(entry_point))
    assert estimate.predicted == expected, estimate.evidence


@pytest.mark.parametrize(
    ("language", "code", "entry_point"),
    [
        ("python", TRIPLE_LOOP, "g"),
        ("python", HELPER_METHOD, "Other.countTriples"),
        ("java", "class Solution { int f(int n) { return n; } }", "Solution.g"),
        ("cpp", "int f(int n) { return n; }", "g"),
    ],
)
def test_a_missing_entry_point_is_unknown(
    judge: StaticComplexityJudge, language: str, code: str, entry_point: str
) -> None:
    estimate = judge.estimate(code, language, function_problem(entry_point))
    assert (estimate.predicted, estimate.confidence) == (UNKNOWN, 0.0)
    assert "not found" in estimate.evidence["reason"]


def test_a_stdin_problem_is_judged_as_a_whole_program(judge: StaticComplexityJudge) -> None:
    code = "n = int(input())\nfor i in range(n):\n    for j in range(n):\n        print(i, j)\n"
    stdin = Problem(id="p", tests=[{"input": "2\n", "output": ""}])
    assert judge.estimate(code, "python", stdin).predicted == "O(n^2)"
    assert judge.estimate(code, "python").predicted == "O(n^2)"


def test_exec_of_a_string_with_loops_is_unknown(judge: StaticComplexityJudge) -> None:
    estimate = judge.estimate(EXEC_LOOPS, "python", function_problem("f"))
    assert (estimate.predicted, estimate.confidence) == (UNKNOWN, 0.0)
    assert any("exec() runs code given as data" in line for line in estimate.evidence["opaque"])
    stdin_program = 'exec("for i in range(10**6):\\n    pass")\n'
    assert judge.estimate(stdin_program, "python").predicted == UNKNOWN


@pytest.mark.parametrize("name", sorted(OPAQUE_VARIANTS))
def test_code_the_analyser_cannot_see_into_is_unknown(
    judge: StaticComplexityJudge, name: str
) -> None:
    entry_point = "Solution.run" if "class Solution" in OPAQUE_VARIANTS[name] else "f"
    estimate = judge.estimate(OPAQUE_VARIANTS[name], "python", function_problem(entry_point))
    assert (estimate.predicted, estimate.confidence) == (UNKNOWN, 0.0), estimate.evidence
    assert estimate.evidence["opaque"]


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "java",
            "class Solution { int f(int n) throws Exception {\n"
            '  return (int) Solution.class.getMethod("g", int.class).invoke(this, n); }\n'
            "  int g(int n) { int s = 0; for (int i = 0; i < n; i++) s++; return s; } }",
        ),
        ("java", "class Solution { native int f(int n); }"),
        (
            "java",
            "class Solution { int f(int n) throws Exception {\n"
            '  new ProcessBuilder("sort").start(); return n; } }',
        ),
        ("cpp", '#include <cstdlib>\nint f(int n) { return system("sort big.txt") + n; }'),
        ("cpp", 'int f(int n) { asm("nop"); return n; }'),
    ],
)
def test_reflection_native_code_and_other_programs_are_unknown(
    judge: StaticComplexityJudge, language: str, code: str
) -> None:
    estimate = judge.estimate(code, language, function_problem("f"))
    assert estimate.predicted == UNKNOWN, estimate.evidence


def test_visible_code_stays_visible(judge: StaticComplexityJudge) -> None:
    literal_getattr = """
class Solution:
    def run(self, nums):
        return getattr(self, "pairs")(nums)

    def pairs(self, nums):
        return sum(a * b for a in nums for b in nums)
"""
    estimate = judge.estimate(literal_getattr, "python", function_problem("Solution.run"))
    assert estimate.predicted == "O(n^2)"
    alias = """
def scan(nums):
    return sum(nums)

def f(nums):
    g = scan
    return [g(nums) for _ in nums]
"""
    assert judge.estimate(alias, "python", function_problem("f")).predicted == "O(n^2)"
    cheap_operator = """
import heapq

class Item:
    def __init__(self, key):
        self.key = key

    def __lt__(self, other):
        return self.key < other.key

def f(nums):
    heap = [Item(x) for x in nums]
    heapq.heapify(heap)
    return heap[0].key
"""
    assert judge.estimate(cheap_operator, "python", function_problem("f")).predicted == "O(n)"
    # Opaque code the entry point never reaches does not matter.
    unused = TRIPLE_LOOP + '\n\ndef unused():\n    exec("print(1)")\n'
    assert judge.estimate(unused, "python", function_problem("f")).predicted == "O(n^3)"
    # Evaluating the input line is parsing it (stdin programs keep their class).
    reads = "import sys\nn = eval(input())\nfor i in range(n):\n    print(i)\n"
    assert judge.estimate(reads, "python").predicted == "O(n)"
    known = "import heapq, math\ndef f(nums):\n    heapq.heapify(nums)\n    return math.gcd(1, 2)\n"
    assert judge.estimate(known, "python", function_problem("f")).predicted == "O(n)"


def test_the_function_mode_set_is_scored_well_and_never_free() -> None:
    rows = load_rows(FUNCTION_MODE_DATA)
    assert len(rows) >= 60
    assert {row["label"] for row in rows} == set(LADDER)
    assert all(row["entry_point"] and row["id"] and row["note"] for row in rows)
    assert len({row["id"] for row in rows}) == len(rows)
    results = run_evaluation(rows)
    overall = results["languages"]["all"]
    assert overall["accuracy"] >= 0.8, json.dumps(overall["confusion"])
    at_least_linear = LADDER[LADDER.index("O(n)") :]
    free = {label: overall["confusion"][label]["O(1)"] for label in at_least_linear}
    assert not any(free.values()), free


class _PassingPool:
    """Every test passes: only the complexity judge decides R_time."""

    def judge_many(self, jobs: list[Job]) -> list[JobResult]:
        return [JobResult(verdict=Verdict.AC, passed=1, total=1) for _ in jobs]


def _reward_of(code: str, problem: Problem) -> tuple[ComplexityOut, float]:
    """The service's path without Docker: the worker's task, then R_time and the reward."""
    settings = Settings(complexity_empirical=False)
    job = Job(
        language="python",
        code=code,
        tests=problem.test_cases(),
        mode=problem.mode,
        entry_point=problem.entry_point,
    )
    payload: dict[str, Any] = {
        "job": job.model_dump(mode="json"),
        "complexity": {
            "mode": ComplexityMode.AUTO.value,
            "problem": problem.model_dump(mode="json"),
        },
    }
    pool: Any = _PassingPool()
    [answer] = judge_chunk(pool, make_complexity_judge(settings, None), [payload])
    complexity = ComplexityOut.model_validate(answer["complexity"])
    score = time_reward(
        complexity.predicted, complexity.reference, decay=settings.reward.time_decay
    )
    reward = compute_reward(extracted=True, pass_rate=1.0, time_reward=score, config=RewardConfig())
    return complexity, reward.time


def test_r_time_of_a_cubic_function_against_a_linear_optimum_is_below_one() -> None:
    complexity, r_time = _reward_of(TRIPLE_LOOP, function_problem("f", optimal="O(n)"))
    assert complexity.predicted == "O(n^3)"
    assert r_time == pytest.approx(0.5**3)


def test_r_time_of_exec_based_code_is_zero() -> None:
    complexity, r_time = _reward_of(EXEC_LOOPS, function_problem("f", optimal="O(n)"))
    assert complexity.predicted == UNKNOWN
    assert r_time == 0.0
