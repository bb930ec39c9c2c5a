"""Copies that read one class too fast before (Java ``String +=`` in a loop, a C++ container
built or assigned from another, a Python prepend), and the rules added for issue 13: loops in an
``if`` arm that leaves the loop run once, ``while`` loops that mark what they visit, the digits
of a number. Each with the case and two variants, and the near misses that must stay cheap."""

from __future__ import annotations

import pytest

from complexity_model.static import StaticComplexityJudge
from tests.complexity_model.test_static_entry_point import function_problem

_JAVA = """import java.util.*;
public class Main {{
  public static void main(String[] args) {{
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    {body}
  }}
}}
"""
_CPP = """#include <bits/stdc++.h>
using namespace std;
int main() {{
  int n; cin >> n;
  vector<int> xs(n);
  for (auto& x : xs) cin >> x;
  long long t = 0;
  {body}
  cout << t << endl;
}}
"""


@pytest.fixture(scope="module")
def judge() -> StaticComplexityJudge:
    return StaticComplexityJudge()


@pytest.mark.parametrize(
    "body",
    [
        'String s = ""; for (int i = 0; i < n; i++) { s += "x"; } System.out.println(s);',
        'String s = ""; for (int i = 0; i < n; i++) { s = s + sc.next(); } System.out.println(s);',
        "String s = \"\"; int i = 0; while (i < n) { s = 'a' + s; i++; } System.out.println(s);",
    ],
    ids=["+=", "s = s + t", "s = c + s in a while"],
)
def test_java_string_grown_in_a_loop_is_quadratic(judge: StaticComplexityJudge, body: str) -> None:
    estimate = judge.estimate(_JAVA.format(body=body), "java")
    assert estimate.predicted == "O(n^2)", estimate.evidence


@pytest.mark.parametrize(
    "body",
    [
        # A StringBuilder appends in place.
        'StringBuilder s = new StringBuilder(); for (int i = 0; i < n; i++) s.append("x");'
        " System.out.println(s);",
        # An int named like the String of another block adds numbers.
        "for (int i = 0; i < n; i++) { String t = sc.next(); System.out.println(t); }"
        " int t = 0; for (int i = 0; i < n; i++) { t += i; } System.out.println(t);",
        # The digits of a number: a short string.
        'String d = ""; int x = n; while (x > 0) { d = (x % 10) + d; x /= 10; }'
        " System.out.println(d);",
    ],
    ids=["StringBuilder", "int t in another block", "digits"],
)
def test_java_appends_that_copy_nothing_stay_cheap(judge: StaticComplexityJudge, body: str) -> None:
    estimate = judge.estimate(_JAVA.format(body=body), "java")
    assert estimate.predicted in {"O(n)", "O(log n)"}, estimate.evidence


@pytest.mark.parametrize(
    "body",
    [
        "for (int i = 0; i < n; i++) { vector<int> v(xs); t += v[i]; }",
        "for (int i = 0; i < n; i++) { vector<int> v = xs; t += v[i]; }",
        "vector<int> v; for (int i = 0; i < n; i++) { v = xs; t += v[i]; }",
    ],
    ids=["v(xs)", "v = xs declared", "v = xs assigned"],
)
def test_cpp_vector_copied_in_a_loop_is_quadratic(judge: StaticComplexityJudge, body: str) -> None:
    estimate = judge.estimate(_CPP.format(body=body), "cpp")
    assert estimate.predicted == "O(n^2)", estimate.evidence


@pytest.mark.parametrize(
    "code",
    [
        "int f(vector<int> xs) { vector<int> v(xs); return v.size(); }",
        "int f(vector<int> xs) { vector<int> v = xs; return v.size(); }",
        "int f(string s) { string t(s); return t.size(); }",
    ],
    ids=["v(xs)", "v = xs", "string t(s)"],
)
def test_cpp_container_copy_is_linear(judge: StaticComplexityJudge, code: str) -> None:
    estimate = judge.estimate(code, "cpp", function_problem("f"))
    assert estimate.predicted == "O(n)", estimate.evidence


def test_cpp_copy_of_a_scalar_or_a_reference_costs_nothing(judge: StaticComplexityJudge) -> None:
    code = "int f(vector<int>& xs) { int n(xs.size()); const vector<int>& v = xs; return n; }"
    assert judge.estimate(code, "cpp", function_problem("f")).predicted == "O(1)"


@pytest.mark.parametrize(
    "code",
    [
        "n = int(input())\ns = ''\nfor i in range(n):\n    s = 'a' + s\nprint(len(s))\n",
        "t = input()\ns = ''\nfor c in t:\n    s = c + s\nprint(s)\n",
        "n = int(input())\nr = ''\ni = 0\nwhile i < n:\n    r = str(i % 10) + r\n    i += 1\n"
        "print(r)\n",
    ],
    ids=["literal + s", "c + s over the input", "str() + r in a while"],
)
def test_python_prepend_in_a_loop_is_quadratic(judge: StaticComplexityJudge, code: str) -> None:
    estimate = judge.estimate(code, "python")
    assert estimate.predicted == "O(n^2)", estimate.evidence


@pytest.mark.parametrize(
    "code",
    [
        # CPython grows s in place on s += c and s = s + c.
        "t = input()\ns = ''\nfor c in t:\n    s += c\nprint(s)\n",
        "t = input()\ns = ''\nfor c in t:\n    s = s + c\nprint(s)\n",
        # Numbers, not strings.
        "xs = list(map(int, input().split()))\ntotal = 0\nfor x in xs:\n    total = x + total\n"
        "print(total)\n",
    ],
    ids=["s += c", "s = s + c", "numbers"],
)
def test_python_appends_and_sums_stay_linear(judge: StaticComplexityJudge, code: str) -> None:
    assert judge.estimate(code, "python").predicted == "O(n)"


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "python",
            "xs = list(map(int, input().split()))\nn = len(xs)\nfor i in range(n):\n"
            "    if xs[i] < 0:\n        for j in range(n):\n            xs[j] += 1\n        break\n"
            "print(xs)\n",
        ),
        (
            "python",
            "def f(xs):\n    for i in range(len(xs)):\n        if xs[i] == 0:\n"
            "            total = 0\n            for x in xs:\n                total += x\n"
            "            return total\n    return -1\n",
        ),
        (
            "java",
            _JAVA.format(
                body="int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = sc.nextInt();"
                " for (int i = 0; i < n; i++) { if (a[i] == 0) { for (int j = i; j >= 0; j--)"
                " a[j]++; break; } } System.out.println(a[0]);"
            ),
        ),
    ],
    ids=["python break", "python return", "java break"],
)
def test_loop_in_an_arm_that_leaves_the_loop_runs_once(
    judge: StaticComplexityJudge, language: str, code: str
) -> None:
    problem = function_problem("f") if "def f" in code else None
    estimate = judge.estimate(code, language, problem)
    assert estimate.predicted == "O(n)", estimate.evidence


def test_loop_in_an_arm_that_stays_in_the_loop_still_multiplies(
    judge: StaticComplexityJudge,
) -> None:
    code = (
        "xs = list(map(int, input().split()))\nn = len(xs)\nfor i in range(n):\n"
        "    if xs[i] < 0:\n        for j in range(n):\n            xs[j] += 1\n"
        "        continue\nprint(xs)\n"
    )
    assert judge.estimate(code, "python").predicted == "O(n^2)"


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "python",
            "n = int(input())\na = [0] + list(map(int, input().split()))\nc = 0\n"
            "for i in range(1, n + 1):\n    j = i\n    while a[j] != -1:\n        k = a[j]\n"
            "        a[j] = -1\n        j = k\n    c += 1\nprint(c)\n",
        ),
        (
            "python",
            "n = int(input())\np = list(map(int, input().split()))\nseen = [False] * n\nc = 0\n"
            "for i in range(n):\n    v = i\n    while not seen[v]:\n        seen[v] = True\n"
            "        v = p[v]\n    c += 1\nprint(c)\n",
        ),
        (
            "java",
            _JAVA.format(
                body="int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = sc.nextInt() - 1;"
                " int c = 0; for (int i = 0; i < n; i++) { int x = i; while (a[x] != -1)"
                " { int y = a[x]; a[x] = -1; x = y; } c++; } System.out.println(c);"
            ),
        ),
    ],
    ids=["python sentinel", "python seen", "java sentinel"],
)
def test_while_marking_what_it_visits_is_amortised(
    judge: StaticComplexityJudge, language: str, code: str
) -> None:
    assert judge.estimate(code, language).predicted == "O(n)"


def test_marking_a_fresh_array_each_pass_is_not_amortised(judge: StaticComplexityJudge) -> None:
    code = (
        "n = int(input())\np = list(map(int, input().split()))\nfor i in range(n):\n"
        "    seen = [False] * n\n    v = i\n    while not seen[v]:\n        seen[v] = True\n"
        "        v = p[v]\nprint(n)\n"
    )
    assert judge.estimate(code, "python").predicted == "O(n^2)"


@pytest.mark.parametrize(
    "code",
    [
        "n = int(input())\nb = bin(n)[2:]\nc = 0\nfor ch in b:\n    c += ch == '1'\nprint(c)\n",
        "n = int(input())\nd = str(n)\nprint(sum(int(d[i]) for i in range(len(d))))\n",
        "n = int(input())\nb = bin(n)[2:].zfill(8)\nfor i in range(len(b)):\n    print(b[i])\n",
    ],
    ids=["for over bin", "range(len(str(n)))", "zfill"],
)
def test_digits_of_a_number_are_logarithmic(judge: StaticComplexityJudge, code: str) -> None:
    assert judge.estimate(code, "python").predicted == "O(log n)"


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "python",
            "n = int(input())\nlo, hi = 1, n\nwhile lo < hi:\n    mid = (lo + hi) // 2\n"
            "    print('?', mid, flush=True)\n    if input() == '>=':\n        hi = mid\n"
            "    else:\n        lo = mid + 1\nprint('!', lo)\n",
        ),
        (
            "python",
            "def ask(i):\n    print('?', i, flush=True)\n    return int(input())\n"
            "n = int(input())\nstep = n\nwhile step > 1:\n    step //= 2\n    ask(step)\n"
            "print('!', 1)\n",
        ),
        (
            "java",
            _JAVA.format(
                body="int lo = 1, hi = n; while (lo < hi) { int mid = (lo + hi) / 2;"
                ' System.out.println("? " + mid); System.out.flush();'
                " if (sc.nextInt() == 1) hi = mid; else lo = mid + 1; }"
                ' System.out.println("! " + lo);'
            ),
        ),
    ],
    ids=["python binary search", "python halving", "java binary search"],
)
def test_interactive_halving_loop_is_not_a_run_of_test_cases(
    judge: StaticComplexityJudge, language: str, code: str
) -> None:
    assert judge.estimate(code, language).predicted == "O(log n)"


@pytest.mark.parametrize(
    ("language", "code"),
    [
        (
            "python",
            "import math\nn = int(input())\nfor i in range(int(math.log2(n)) + 1):\n    print(i)\n",
        ),
        (
            "java",
            _JAVA.format(
                body="int c = 0; for (int k = 0; k < (int) (Math.log(n) / Math.log(2)); k++)"
                " c++; System.out.println(c);"
            ),
        ),
        (
            "java",
            _JAVA.format(
                body="int c = 0; for (int k = 0; k < 32 - Integer.numberOfLeadingZeros(n); k++)"
                " c++; System.out.println(c);"
            ),
        ),
    ],
    ids=["python log2", "java Math.log ratio", "java leading zeros"],
)
def test_a_bound_of_a_logarithm_is_logarithmic(
    judge: StaticComplexityJudge, language: str, code: str
) -> None:
    assert judge.estimate(code, language).predicted == "O(log n)"
