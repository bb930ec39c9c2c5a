"""A callable the static analyser cannot tell is never free: red-team reproductions.

Each program is O(n^2): an O(n) helper (a count, a sum, a sort) called once per element.
The per-element call went through a name the analysis did not follow, so the call cost
nothing and the program read as O(n), earning R_time on an O(n) problem:

- a parameter (a default function or lambda, or a function a helper is handed), which may
  hold any function: ``unknown``;
- a library function or method held in a variable (``s = sum``, ``c = xs.count``): costed as
  that function.
"""

from __future__ import annotations

import pytest

from complexity_model.problem import ComplexityProblem
from complexity_model.static import StaticComplexityJudge
from judge_service.sandbox.models import TestMode

COUNT = "def g(xs, x):\n    return sum(1 for y in xs if y < x)\n"
LAMBDA = "lambda xs, x: sum(1 for y in xs if y < x)"

HIDDEN = {
    # A parameter's default.
    "default lambda": f"def f(xs, g={LAMBDA}):\n    return [g(xs, x) for x in xs]\n",
    "default function": COUNT + "def f(xs, h=g):\n    return [h(xs, x) for x in xs]\n",
    "keyword-only default": COUNT + "def f(xs, *, h=g):\n    return [h(xs, x) for x in xs]\n",
    "method default": (
        f"class Solution:\n    def f(self, xs, h={LAMBDA}):\n"
        "        return [h(xs, x) for x in xs]\n"
    ),
    # A function handed to a helper that calls it per element.
    "lambda handed to a helper": (
        "def each(xs, fn):\n    return [fn(x) for x in xs]\n"
        "def f(xs):\n    return each(xs, lambda x: sum(1 for y in xs if y < x))\n"
    ),
    "function handed to a helper": (
        COUNT + "def each(xs, fn):\n    return [fn(xs, x) for x in xs]\n"
        "def f(xs):\n    return each(xs, g)\n"
    ),
    "function kept in an attribute": (
        COUNT + "class Each:\n    def __init__(self, fn):\n        self.fn = fn\n"
        "    def run(self, xs):\n        return [self.fn(xs, x) for x in xs]\n"
        "def f(xs):\n    return Each(g).run(xs)\n"
    ),
    "one of two functions handed to a helper": (
        COUNT + "def cheap(xs, x):\n    return x\n"
        "def each(xs, fn):\n    return [fn(xs, x) for x in xs]\n"
        "def f(xs):\n    return each(xs, cheap) + each(xs, g)\n"
    ),
    "a function handed over through *args": (
        COUNT + "def each(xs, fn):\n    return [fn(xs, x) for x in xs]\n"
        "def f(xs):\n    return each(*[xs, g])\n"
    ),
    "a lambda in a class attribute": (
        f"class S:\n    h = staticmethod({LAMBDA})\n"
        "def f(xs):\n    return [S.h(xs, x) for x in xs]\n"
    ),
    # A library function or method held in a variable.
    "bound method": "def f(xs):\n    c = xs.count\n    return [c(x) for x in xs]\n",
    "bound index": "def f(xs):\n    ix = xs.index\n    return [ix(x) for x in xs]\n",
    "builtin in a variable": "def f(xs):\n    s = sum\n    return [s(xs) for x in xs]\n",
    "sorted in a variable": "def f(xs):\n    s = sorted\n    return [s(xs)[0] for x in xs]\n",
    "builtin in a module variable": "S = sum\ndef f(xs):\n    return [S(xs) for x in xs]\n",
    "builtins unpacked": (
        "def f(xs):\n    s, t = sum, max\n    return [s(xs) + t(xs) for x in xs]\n"
    ),
    "one of two builtins": (
        "def f(xs):\n    s = sum if xs else max\n    return [s(xs) for x in xs]\n"
    ),
}

HONEST = {
    "builtin in a variable, once": ("def f(xs):\n    s = sum\n    return s(xs)\n", "O(n)"),
    "bound append": (
        "def f(xs):\n    out = []\n    push = out.append\n    for x in xs:\n"
        "        push(x)\n    return out\n",
        "O(n)",
    ),
    "sort key": ("def f(xs):\n    return sorted(xs, key=lambda x: -x)\n", "O(n log n)"),
    "helper alias": (
        COUNT + "def f(xs):\n    h = g\n    return [h(xs, x) for x in xs]\n",
        "O(n^2)",
    ),
}


def _problem() -> ComplexityProblem:
    return ComplexityProblem(mode=TestMode.FUNCTION, entry_point="f")


@pytest.mark.parametrize("name", list(HIDDEN))
def test_a_call_the_analysis_cannot_follow_is_never_cheap(name: str) -> None:
    estimate = StaticComplexityJudge().estimate(HIDDEN[name], "python", _problem())
    assert estimate.predicted in ("O(n^2)", "unknown"), (estimate.predicted, estimate.evidence)


@pytest.mark.parametrize("name", list(HONEST))
def test_callables_it_can_follow_keep_their_class(name: str) -> None:
    code, expected = HONEST[name]
    assert StaticComplexityJudge().estimate(code, "python", _problem()).predicted == expected


_CPP_COUNT = (
    "#include <vector>\n#include <functional>\nusing namespace std;\n"
    "int g(vector<int>& xs, int x) { int c = 0; for (int y : xs) if (y < x) c++; return c; }\n"
)
_CPP_LAMBDA = "[&](int x) { int c = 0; for (int y : xs) if (y < x) c++; return c; }"
_JAVA_LAMBDA = "x -> { int c = 0; for (int y : xs) if (y < x) c++; return c; }"

HIDDEN_TREE_SITTER = {
    "C++ lambda handed to a std::function parameter": (
        "cpp",
        "f",
        _CPP_COUNT + "int each(vector<int>& xs, function<int(int)> fn) {\n"
        "  int t = 0;\n  for (int x : xs) t += fn(x);\n  return t;\n}\n"
        f"int f(vector<int>& xs) {{ return each(xs, {_CPP_LAMBDA}); }}\n",
    ),
    "C++ function pointer": (
        "cpp",
        "f",
        _CPP_COUNT + "int f(vector<int>& xs) {\n  int (*h)(vector<int>&, int) = g;\n"
        "  int t = 0;\n  for (int x : xs) t += h(xs, x);\n  return t;\n}\n",
    ),
    "Java lambda handed to a functional-interface parameter": (
        "java",
        "Solution.f",
        "class Solution {\n"
        "  int each(int[] xs, java.util.function.IntUnaryOperator fn) {\n"
        "    int t = 0;\n    for (int x : xs) t += fn.applyAsInt(x);\n    return t;\n  }\n"
        f"  int f(int[] xs) {{ return each(xs, {_JAVA_LAMBDA}); }}\n}}\n",
    ),
    "Java Function parameter": (
        "java",
        "Solution.f",
        "import java.util.function.*;\nclass Solution {\n"
        "  int each(int[] xs, Function<Integer, Integer> fn) {\n"
        "    int t = 0;\n    for (int x : xs) t += fn.apply(x);\n    return t;\n  }\n"
        f"  int f(int[] xs) {{ return each(xs, {_JAVA_LAMBDA}); }}\n}}\n",
    ),
}


@pytest.mark.parametrize("name", list(HIDDEN_TREE_SITTER))
def test_java_and_cpp_calls_through_function_values_are_never_cheap(name: str) -> None:
    language, entry_point, code = HIDDEN_TREE_SITTER[name]
    problem = ComplexityProblem(mode=TestMode.FUNCTION, entry_point=entry_point)
    estimate = StaticComplexityJudge().estimate(code, language, problem)
    assert estimate.predicted in ("O(n^2)", "unknown"), (estimate.predicted, estimate.evidence)


def test_a_recursive_cpp_std_function_lambda_keeps_its_class() -> None:
    code = (
        "#include <vector>\n#include <functional>\nusing namespace std;\n"
        "int f(vector<int>& xs) {\n  int n = xs.size(), t = 0;\n"
        "  function<void(int)> walk = [&](int i) {\n"
        "    if (i >= n) return;\n    t += xs[i];\n    walk(i + 1);\n  };\n"
        "  walk(0);\n  return t;\n}\n"
    )
    problem = ComplexityProblem(mode=TestMode.FUNCTION, entry_point="f")
    assert StaticComplexityJudge().estimate(code, "cpp", problem).predicted == "O(n)"


# ---- membership tests on a parameter ---------------------------------------------------------
# ``x in nums`` on the input list is a scan: per element it is O(n^2) (the naive two-sum), which
# read as O(n) when the list was a parameter (no assignment told its kind).
SCANS = {
    "annotated list": (
        "from typing import List\ndef f(xs: List[int]):\n"
        "    return sum(1 for x in range(len(xs)) if x in xs)\n"
    ),
    "Solution method": (
        "class Solution:\n    def f(self, nums: List[int]) -> int:\n        r = 0\n"
        "        for i in range(len(nums)):\n            if i not in nums:\n"
        "                r += 1\n"
        "        return r\n"
    ),
    "no annotation": (
        "def f(xs):\n    r = 0\n    for x in xs:\n        if -x in xs:\n            r += 1\n"
        "    return r\n"
    ),
    "a helper handed the list": (
        "def has(items, x):\n    return x in items\ndef f(xs):\n    out = []\n    for x in xs:\n"
        "        if not has(out, x):\n            out.append(x)\n    return out\n"
    ),
}
LOOKUPS = {
    "a set made of the list": (
        "def f(nums: List[int]):\n    s = set(nums)\n    return [x in s for x in nums]\n"
    ),
    "an annotated dict": (
        "def f(d: Dict[int, int], xs: List[int]):\n    return [x in d for x in xs]\n"
    ),
    "a helper handed a set": (
        "def has(seen, x):\n    return x in seen\ndef f(xs):\n    seen = set()\n    out = []\n"
        "    for x in xs:\n        if not has(seen, x):\n            seen.add(x)\n"
        "            out.append(x)\n    return out\n"
    ),
}


@pytest.mark.parametrize("name", list(SCANS))
def test_membership_in_a_list_parameter_is_a_scan(name: str) -> None:
    estimate = StaticComplexityJudge().estimate(SCANS[name], "python", _problem())
    assert estimate.predicted == "O(n^2)", estimate.evidence


@pytest.mark.parametrize("name", list(LOOKUPS))
def test_membership_in_a_set_or_dict_stays_a_lookup(name: str) -> None:
    estimate = StaticComplexityJudge().estimate(LOOKUPS[name], "python", _problem())
    assert estimate.predicted == "O(n)", estimate.evidence


def test_deleting_the_front_of_a_list_in_a_loop_is_quadratic() -> None:
    # A queue kept in a list: each del shifts every element (as pop(0) does).
    for delete in ("del b[0]", "del b[:1]"):
        code = f"def f(xs):\n    b = list(xs)\n    while b:\n        {delete}\n    return 0\n"
        assert StaticComplexityJudge().estimate(code, "python", _problem()).predicted == "O(n^2)"
    stack = "def f(xs):\n    b = list(xs)\n    while b:\n        del b[-1:]\n    return 0\n"
    assert StaticComplexityJudge().estimate(stack, "python", _problem()).predicted == "O(n)"
    table = (
        "def f(xs):\n    d = {x: 1 for x in xs}\n    for x in xs:\n        del d[x]\n    return 0\n"
    )
    assert StaticComplexityJudge().estimate(table, "python", _problem()).predicted == "O(n)"


@pytest.mark.parametrize(
    ("language", "entry_point", "code"),
    [
        (
            "java",
            "Solution.f",
            "import java.util.*;\nclass Solution {\n  int f(int[] xs) {\n"
            "    List<Integer> l = new ArrayList<>();\n    for (int x : xs) l.add(0, x);\n"
            "    return l.size();\n  }\n}\n",
        ),
        (
            "cpp",
            "f",
            "#include <vector>\nusing namespace std;\nint f(vector<int>& xs) {\n"
            "  vector<int> v;\n  for (int x : xs) v.insert(v.begin(), x);\n  return v.size();\n}\n",
        ),
    ],
    ids=["java list.add(0, x)", "cpp v.insert(v.begin(), x)"],
)
def test_inserting_at_the_front_of_a_list_in_a_loop_is_quadratic(
    language: str, entry_point: str, code: str
) -> None:
    problem = ComplexityProblem(mode=TestMode.FUNCTION, entry_point=entry_point)
    assert StaticComplexityJudge().estimate(code, language, problem).predicted == "O(n^2)"
