"""Function and assert test modes, output checkers, and job options, through real sandboxes."""

from __future__ import annotations

import pytest

from judge_service.sandbox.models import Checker, Verdict

pytestmark = pytest.mark.integration

FAST = {"time_limit_ms": 2000, "memory_limit_mb": 128}

# ---- function mode: Python ------------------------------------------------------------------

TWO_SUM = """
class Solution:
    def twoSum(self, nums, target):
        seen = {}
        for i, n in enumerate(nums):
            if target - n in seen:
                return [seen[target - n], i]
            seen[n] = i
        return []
"""


def test_python_function_solution_method(judge) -> None:
    tests = [
        {"args": [[2, 7, 11, 15], 9], "expected": [0, 1]},
        {"args": [[3, 2, 4], 6], "expected": [1, 2]},
        {"args": [[3, 3], 6], "expected": [0, 1]},
    ]
    for entry_point in ("twoSum", "Solution.twoSum"):
        result = judge(
            "python", TWO_SUM, tests, mode="function", entry_point=entry_point, limits=FAST
        )
        assert result.verdict is Verdict.AC, [t.message for t in result.tests]
        assert result.pass_rate == 1.0 and len(result.tests) == 3


def test_python_function_top_level_with_kwargs(judge) -> None:
    code = "def add(a, b=0, *, scale=1):\n    return (a + b) * scale\n"
    tests = [
        {"args": [1, 2], "expected": 3},
        {"args": [], "kwargs": {"a": 4, "b": 5}, "expected": 9},
        {"args": [2], "kwargs": {"b": 3, "scale": 10}, "expected": 50},
    ]
    result = judge("python", code, tests, mode="function", entry_point="add", limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]
    assert result.passed == 3


def test_python_function_list_and_dict_returns(judge) -> None:
    code = (
        "def group(words):\n"
        "    out = {}\n"
        "    for w in words:\n"
        "        out.setdefault(w[0], []).append(w)\n"
        "    return out\n"
        "def pairs(n):\n"
        "    return [[i, i * i] for i in range(n)]\n"
    )
    dict_tests = [
        {
            "args": [["apple", "avocado", "banana"]],
            "expected": {"a": ["apple", "avocado"], "b": ["banana"]},
        },
        {"args": [[]], "expected": {}},
    ]
    result = judge("python", code, dict_tests, mode="function", entry_point="group", limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]
    list_tests = [{"args": [3], "expected": [[0, 0], [1, 1], [2, 4]]}]
    result = judge("python", code, list_tests, mode="function", entry_point="pairs", limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]
    # A tuple returns as a JSON list and compares equal to a list.
    tuple_code = "def pair():\n    return (1, 2)\n"
    result = judge(
        "python",
        tuple_code,
        [{"args": [], "expected": [1, 2]}],
        mode="function",
        entry_point="pair",
        limits=FAST,
    )
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]


def test_python_function_float_tolerance(judge) -> None:
    code = "def f(x):\n    return x + 0.1 + 0.2\n"
    inside = [
        {"args": [0], "expected": 0.3},  # 0.30000000000000004
        {"args": [0.0000005], "expected": 0.3},  # 5e-7 off: within the default 1e-6
    ]
    result = judge("python", code, inside, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]
    outside = [{"args": [0.001], "expected": 0.3}]
    result = judge("python", code, outside, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is Verdict.WA
    assert "0.301" in result.tests[0].message
    # The job's checker tolerance applies to returned numbers too.
    result = judge(
        "python",
        code,
        outside,
        mode="function",
        entry_point="f",
        checker={"kind": "float", "abs_tol": 1e-2},
        limits=FAST,
    )
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]


def test_python_function_wrong_return_is_wa(judge) -> None:
    code = "def square(x):\n    return x * x + 1\n"
    tests = [{"args": [3], "expected": 9}, {"args": [0], "expected": 0}]
    result = judge("python", code, tests, mode="function", entry_point="square", limits=FAST)
    assert result.verdict is Verdict.WA
    assert result.pass_rate == 0 and len(result.tests) == 2
    assert result.tests[0].message == "returned 10"


def test_python_function_type_mismatch_is_wa(judge) -> None:
    # True is not 1, and "3" is not 3.
    code = "def f(x):\n    return True if x == 1 else str(x)\n"
    tests = [{"args": [1], "expected": 1}, {"args": [3], "expected": 3}]
    result = judge("python", code, tests, mode="function", entry_point="f", limits=FAST)
    assert [t.verdict for t in result.tests] == [Verdict.WA, Verdict.WA]


def test_python_function_exception_is_re(judge) -> None:
    code = "def f(x):\n    return 10 // x\n"
    tests = [{"args": [2], "expected": 5}, {"args": [0], "expected": 0}]
    result = judge("python", code, tests, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is Verdict.RE
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.RE]
    assert result.pass_rate == 0.5
    failed = result.tests[1]
    assert failed.exit_code not in (None, 0)
    assert "division" in failed.message or "ZeroDivisionError" in failed.stderr


def test_python_function_missing_entry_point_is_re(judge) -> None:
    code = "def g(x):\n    return x\n"
    result = judge(
        "python",
        code,
        [{"args": [1], "expected": 1}],
        mode="function",
        entry_point="f",
        limits=FAST,
    )
    assert result.verdict is Verdict.RE
    assert "entry point" in result.tests[0].message


def test_python_function_exit_before_returning_is_not_ac(judge) -> None:
    for body in ("import sys\n    sys.exit(0)", "import os\n    os._exit(0)"):
        code = f"def f(x):\n    {body}\n"
        result = judge(
            "python",
            code,
            [{"args": [1], "expected": None}],
            mode="function",
            entry_point="f",
            limits=FAST,
        )
        assert result.verdict is not Verdict.AC, body
        assert result.verdict is Verdict.RE, (body, result.tests[0].message)


# ---- function mode: JavaScript --------------------------------------------------------------


def test_javascript_function_var_expression(judge) -> None:
    code = (
        "var addAll = function (nums, extra) {\n  return nums.reduce((a, b) => a + b, extra);\n};\n"
    )
    tests = [
        {"args": [[1, 2, 3], 4], "expected": 10},
        {"args": [[], 0], "expected": 0},
        {"args": [[-1, 1.5], 0], "expected": 0.5},
    ]
    result = judge("javascript", code, tests, mode="function", entry_point="addAll", limits=FAST)
    assert result.verdict is Verdict.AC, [(t.message, t.stderr) for t in result.tests]
    assert result.passed == 3


def test_javascript_function_class_solution(judge) -> None:
    code = (
        "class Solution {\n"
        "  reverse(s) { return s.split('').reverse().join(''); }\n"
        "  stats(nums) {\n"
        "    return {min: Math.min(...nums), max: Math.max(...nums), n: nums.length};\n"
        "  }\n"
        "}\n"
    )
    tests = [{"args": ["abc"], "expected": "cba"}, {"args": [""], "expected": ""}]
    for entry_point in ("reverse", "Solution.reverse"):
        result = judge(
            "javascript", code, tests, mode="function", entry_point=entry_point, limits=FAST
        )
        assert result.verdict is Verdict.AC, [(t.message, t.stderr) for t in result.tests]
    result = judge(
        "javascript",
        code,
        [{"args": [[3, 1, 2]], "expected": {"min": 1, "max": 3, "n": 3}}],
        mode="function",
        entry_point="stats",
        limits=FAST,
    )
    assert result.verdict is Verdict.AC, [(t.message, t.stderr) for t in result.tests]


def test_javascript_function_wrong_return_and_exception(judge) -> None:
    code = "function f(x) {\n  if (x < 0) throw new RangeError('negative');\n  return x + 1;\n}\n"
    tests = [
        {"args": [1], "expected": 2},
        {"args": [1], "expected": 3},
        {"args": [-1], "expected": 0},
    ]
    result = judge("javascript", code, tests, mode="function", entry_point="f", limits=FAST)
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.WA, Verdict.RE]
    assert result.verdict is Verdict.WA
    assert result.tests[1].message == "returned 2"
    assert "negative" in result.tests[2].message


def test_javascript_function_exit_before_returning_is_not_ac(judge) -> None:
    code = "function f(x) {\n  process.exit(0);\n}\n"
    result = judge(
        "javascript",
        code,
        [{"args": [1], "expected": None}],
        mode="function",
        entry_point="f",
        limits=FAST,
    )
    assert result.verdict is not Verdict.AC
    assert result.verdict is Verdict.RE, result.tests[0].message


# ---- assert mode ------------------------------------------------------------------------------

HUMANEVAL_CODE = '''
def add(x: int, y: int) -> int:
    """Add two numbers."""
    return x + y
'''

HUMANEVAL_CHECK = """
METADATA = {"author": "test"}

def check(candidate):
    assert candidate(2, 3) == 5
    assert candidate(-1, 1) == 0
    assert candidate(0, 0) == 0
"""

FAILING_CHECK = """
def check(candidate):
    assert candidate(2, 3) == 5
    assert candidate(2, 2) == 5, "two and two"
"""


def test_python_assert_passing_is_ac(judge) -> None:
    result = judge(
        "python",
        HUMANEVAL_CODE,
        [{"code": HUMANEVAL_CHECK}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert result.verdict is Verdict.AC, [(t.message, t.stderr) for t in result.tests]
    assert result.pass_rate == 1.0


def test_python_assert_failing_is_wa(judge) -> None:
    result = judge(
        "python",
        HUMANEVAL_CODE,
        [{"code": HUMANEVAL_CHECK}, {"code": FAILING_CHECK}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.WA]
    assert result.verdict is Verdict.WA and result.pass_rate == 0.5
    assert "two and two" in result.tests[1].message


def test_python_assert_exception_in_candidate_is_re(judge) -> None:
    code = "def add(x, y):\n    raise ValueError('nope')\n"
    result = judge(
        "python",
        code,
        [{"code": HUMANEVAL_CHECK}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert result.verdict is Verdict.RE
    assert "nope" in result.tests[0].message


@pytest.mark.parametrize(
    "escape",
    [
        "import sys\nsys.exit(0)\n",
        "import os\nos._exit(0)\n",
        "raise SystemExit\n",
        "raise SystemExit(0)\n",
        "import sys\nsys.stdout.flush()\nsys.exit()\n",
    ],
    ids=["sys.exit", "os._exit", "raise-SystemExit", "raise-SystemExit-0", "sys.exit-noarg"],
)
def test_python_assert_exiting_before_the_asserts_is_not_ac(judge, escape: str) -> None:
    code = HUMANEVAL_CODE + "\n" + escape
    result = judge(
        "python",
        code,
        [{"code": HUMANEVAL_CHECK}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert result.verdict is not Verdict.AC
    assert result.verdict is Verdict.RE, result.tests[0].message
    assert result.pass_rate == 0


def test_python_assert_exiting_inside_the_candidate_is_not_ac(judge) -> None:
    code = "def add(x, y):\n    import os\n    os._exit(0)\n"
    result = judge(
        "python",
        code,
        [{"code": HUMANEVAL_CHECK}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert result.verdict is not Verdict.AC


JS_CODE = "function add(x, y) {\n  return x + y;\n}\n"
JS_CHECK = """
const assert = require('assert');
function check(candidate) {
  assert.strictEqual(candidate(2, 3), 5);
  assert.deepStrictEqual([candidate(1, 1)], [2]);
}
"""


def test_javascript_assert_pass_and_fail(judge) -> None:
    failing = (
        "const assert = require('assert');\nfunction check(c) { assert.strictEqual(c(2, 2), 5); }\n"
    )
    result = judge(
        "javascript",
        JS_CODE,
        [{"code": JS_CHECK}, {"code": failing}],
        mode="assert",
        entry_point="add",
        limits=FAST,
    )
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.WA], [
        (t.message, t.stderr) for t in result.tests
    ]


@pytest.mark.parametrize("escape", ["process.exit(0);", "process.exitCode = 0; process.exit();"])
def test_javascript_assert_exiting_before_the_asserts_is_not_ac(judge, escape: str) -> None:
    code = JS_CODE + escape + "\n"
    result = judge(
        "javascript", code, [{"code": JS_CHECK}], mode="assert", entry_point="add", limits=FAST
    )
    assert result.verdict is not Verdict.AC
    assert result.verdict is Verdict.RE, result.tests[0].message


# ---- checkers (stdin mode) ----------------------------------------------------------------


def _printer(text: str) -> str:
    return f"import sys\nsys.stdout.write({text!r})\n"


def test_exact_checker(judge) -> None:
    exact = Checker(kind="exact")
    ok = judge("python", _printer("3\n"), [{"output": "3\n"}], checker=exact, limits=FAST)
    assert ok.verdict is Verdict.AC
    trailing = judge("python", _printer("3 \n"), [{"output": "3\n"}], checker=exact, limits=FAST)
    assert trailing.verdict is Verdict.WA
    assert "byte 1" in trailing.tests[0].message
    no_newline = judge("python", _printer("3"), [{"output": "3\n"}], checker=exact, limits=FAST)
    assert no_newline.verdict is Verdict.WA


def test_tokens_checker_is_the_default(judge) -> None:
    tests = [{"output": "1 2 3\n4\n"}]
    spaced = judge("python", _printer("  1\t2\n\n3   4  \n\n\n"), tests, limits=FAST)
    assert spaced.verdict is Verdict.AC, spaced.tests[0].message
    different = judge("python", _printer("1 2 3 5\n"), tests, limits=FAST)
    assert different.verdict is Verdict.WA
    assert "token 4" in different.tests[0].message
    missing = judge("python", _printer("1 2 3\n"), tests, limits=FAST)
    assert missing.verdict is Verdict.WA


def test_float_checker(judge) -> None:
    default = Checker(kind="float")
    tests = [{"output": "3.14159265 2.0\n"}]
    close = judge("python", _printer("3.14159275 2\n"), tests, checker=default, limits=FAST)
    assert close.verdict is Verdict.AC, close.tests[0].message  # 1e-7 off
    far = judge("python", _printer("3.14259265 2.0\n"), tests, checker=default, limits=FAST)
    assert far.verdict is Verdict.WA  # 1e-3 off
    loose = Checker(kind="float", abs_tol=1e-2, rel_tol=0)
    assert (
        judge("python", _printer("3.14259265 2.0\n"), tests, checker=loose, limits=FAST).verdict
        is Verdict.AC
    )
    # Relative tolerance: 1000100 vs 1000000 is 1e-4 off relatively.
    big = [{"output": "1000000\n"}]
    assert (
        judge("python", _printer("1000100\n"), big, checker=default, limits=FAST).verdict
        is Verdict.WA
    )
    relative = Checker(kind="float", abs_tol=0, rel_tol=1e-3)
    assert (
        judge("python", _printer("1000100\n"), big, checker=relative, limits=FAST).verdict
        is Verdict.AC
    )
    words = judge("python", _printer("abc\n"), big, checker=default, limits=FAST)
    assert words.verdict is Verdict.WA


def test_case_insensitive_checker(judge) -> None:
    checker = Checker(kind="case_insensitive")
    tests = [{"output": "yes\nNo\n"}]
    ok = judge("python", _printer("YES\nno\n"), tests, checker=checker, limits=FAST)
    assert ok.verdict is Verdict.AC, ok.tests[0].message
    wrong = judge("python", _printer("YES\nYES\n"), tests, checker=checker, limits=FAST)
    assert wrong.verdict is Verdict.WA
    # The default checker is case-sensitive.
    assert judge("python", _printer("YES\nno\n"), tests, limits=FAST).verdict is Verdict.WA


PERMUTATION_CHECKER = """
import sys
input_text = open(sys.argv[1]).read()
expected = open(sys.argv[2]).read().split()
actual = open(sys.argv[3]).read().split()
if sorted(actual) == sorted(expected):
    print("a permutation of the", len(expected), "tokens")
    sys.exit(0)
print("not a permutation; input was", input_text.split())
sys.exit(1)
"""


def test_custom_checker_accepts_any_permutation(judge) -> None:
    checker = Checker(kind="custom", code=PERMUTATION_CHECKER)
    program = "print(*reversed(input().split()))\n"
    tests = [
        {"input": "1 2 3\n", "output": "1 2 3"},
        {"input": "b a\n", "output": "a b"},
    ]
    result = judge("python", program, tests, checker=checker, limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]
    assert "permutation of the 3 tokens" in result.tests[0].message
    wrong = judge("python", "print('1 2 4')\n", tests[:1], checker=checker, limits=FAST)
    assert wrong.verdict is Verdict.WA
    assert "not a permutation" in wrong.tests[0].message
    assert "'1', '2', '3'" in wrong.tests[0].message  # the checker saw the test's input


def test_custom_checker_for_a_compiled_language(judge) -> None:
    checker = Checker(kind="custom", code=PERMUTATION_CHECKER)
    program = '#include <cstdio>\nint main() { std::puts("3 1 2"); }\n'
    result = judge("cpp", program, [{"output": "1 2 3"}], checker=checker, limits=FAST)
    assert result.verdict is Verdict.AC, [t.message for t in result.tests]


@pytest.mark.parametrize(
    "crash",
    [
        "raise RuntimeError('checker bug')\n",
        "import sys\nsys.exit(3)\n",
        "import os\nos.abort()\n",
        "open(sys.argv[9])\n",
    ],
    ids=["uncaught-exception", "exit-3", "abort", "index-error"],
)
def test_crashing_custom_checker_is_a_system_error(judge, crash: str) -> None:
    checker = Checker(kind="custom", code="import sys\n" + crash)
    result = judge("python", "print(1)\n", [{"output": "1"}], checker=checker, limits=FAST)
    assert result.verdict is Verdict.SE, [(t.verdict, t.message) for t in result.tests]
    assert result.system_error and "checker" in result.system_error


NUMERIC_CHECKER = """
import sys
want = float(open(sys.argv[2]).read().split()[0])
got = float(open(sys.argv[3], encoding="utf-8").read().split()[0])
sys.exit(0 if abs(got - want) < 1e-6 else 1)
"""


@pytest.mark.parametrize(
    "printed",
    ["print('not a number')\n", "pass\n", "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe')\n"],
    ids=["text-for-a-number", "no-output", "not-utf8"],
)
def test_a_checker_crash_caused_by_the_output_is_a_wrong_answer(judge, printed: str) -> None:
    checker = Checker(kind="custom", code=NUMERIC_CHECKER)
    result = judge("python", printed, [{"output": "2.5"}], checker=checker, limits=FAST)
    assert result.verdict is Verdict.WA, [(t.verdict, t.message) for t in result.tests]
    assert "checker" in result.tests[0].message
    right = judge("python", "print(2.5)\n", [{"output": "2.5"}], checker=checker, limits=FAST)
    assert right.verdict is Verdict.AC


def test_lines_checker_is_sandboxfusions_rule(judge) -> None:
    lines = Checker(kind="lines", rel_tol=1e-5)
    cases = [
        ("YES\n0.3333333333\n", "yes\n0.333334", Verdict.AC),
        ("a  b \n\n", "a  b", Verdict.AC),
        ("1\n2\n", "1 2", Verdict.WA),
        ("0.5\n", "0.50002", Verdict.WA),
    ]
    for printed, expected, verdict in cases:
        result = judge("python", _printer(printed), [{"output": expected}], checker=lines)
        assert result.verdict is verdict, (printed, expected, result.tests[0].message)


@pytest.mark.parametrize("kind", ["lines", "tokens", "case_insensitive", "float"])
def test_huge_outputs_are_compared_within_the_agents_memory(judge, kind: str) -> None:
    # 60 MB of one-byte lines and tokens: split at once, this is 30 million bytes objects.
    code = "import sys\nsys.stdout.write('1\\n' * 30_000_000)\n"
    result = judge(
        "python",
        code,
        [{"output": "1\n" * 29_999_999 + "2"}],
        checker=Checker(kind=kind),
        limits={"time_limit_ms": 10000, "output_limit_kb": 65536},
    )
    assert result.verdict is Verdict.WA, (result.system_error, result.tests[0].message)
    assert "29999999" in result.tests[0].message or "30000000" in result.tests[0].message


# ---- job options --------------------------------------------------------------------------


def test_stop_on_first_failure(judge) -> None:
    code = "n = int(input())\nprint(n * 2 if n != 3 else -1)\n"
    tests = [{"input": f"{n}\n", "output": str(n * 2)} for n in range(1, 7)]
    stopped = judge("python", code, tests, stop_on_first_failure=True, limits=FAST)
    assert stopped.verdict is Verdict.WA
    assert [t.verdict for t in stopped.tests] == [Verdict.AC, Verdict.AC, Verdict.WA]
    assert stopped.total == 6 and stopped.passed == 2
    assert 0 < stopped.pass_rate < 1
    everything = judge("python", code, tests, limits=FAST)
    assert len(everything.tests) == 6 and everything.passed == 5


def test_stop_on_first_failure_for_a_compiled_language(judge) -> None:
    code = (
        "#include <cstdio>\n"
        'int main() { int n; std::scanf("%d", &n); if (n == 2) return 4; std::printf("%d", n); }\n'
    )
    tests = [{"input": f"{n}", "output": str(n)} for n in range(1, 5)]
    result = judge("cpp", code, tests, stop_on_first_failure=True, limits=FAST)
    assert result.verdict is Verdict.RE
    assert len(result.tests) == 2 and result.tests[1].exit_code == 4
    assert result.pass_rate == 0.25


def test_files_are_copied_in(judge) -> None:
    code = (
        "import json\n"
        "with open('data/numbers.json') as f:\n"
        "    numbers = json.load(f)\n"
        "print(sum(numbers) + int(open('bias.txt').read()))\n"
    )
    files = {"data/numbers.json": b"[1, 2, 3, 4]", "bias.txt": b"100\n"}
    result = judge("python", code, [{"output": "110"}], files=files, limits=FAST)
    assert result.verdict is Verdict.AC, (result.tests[0].message, result.tests[0].stderr)


def test_files_are_copied_in_for_a_compiled_language(judge) -> None:
    code = (
        "#include <fstream>\n#include <iostream>\n"
        'int main() { std::ifstream in("input.dat"); long a, s = 0; while (in >> a) s += a;'
        " std::cout << s; }\n"
    )
    result = judge("cpp", code, [{"output": "60"}], files={"input.dat": b"10 20 30"}, limits=FAST)
    assert result.verdict is Verdict.AC, (result.tests[0].message, result.tests[0].stderr)


def test_fetch_files_copies_out_what_the_program_wrote(judge) -> None:
    code = (
        "import os\n"
        "with open('out.txt', 'w') as f:\n"
        "    f.write('written by the program\\n')\n"
        "os.makedirs('logs', exist_ok=True)\n"
        "open('logs/run.log', 'wb').write(bytes(range(256)))\n"
        "print('done')\n"
    )
    result = judge(
        "python",
        code,
        [{"output": "done"}],
        fetch_files=["out.txt", "logs/run.log", "missing.txt"],
        limits=FAST,
    )
    assert result.verdict is Verdict.AC, (result.tests[0].message, result.tests[0].stderr)
    by_name = {f.name: f for f in result.files}
    assert set(by_name) == {"out.txt", "logs/run.log", "missing.txt"}
    assert by_name["out.txt"].content == b"written by the program\n"
    assert by_name["logs/run.log"].content == bytes(range(256))
    assert by_name["missing.txt"].content is None and by_name["missing.txt"].error


def test_files_do_not_leak_into_the_next_job(judge) -> None:
    writer = "open('secret.txt', 'w').write('s3cret')\nprint('ok')\n"
    assert judge("python", writer, [{"output": "ok"}], limits=FAST).verdict is Verdict.AC
    reader = "import os\nprint(os.path.exists('secret.txt'))\n"
    for _ in range(3):  # whichever warm sandbox serves it
        assert judge("python", reader, [{"output": "False"}], limits=FAST).verdict is Verdict.AC
