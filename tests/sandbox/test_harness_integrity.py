"""The reward cannot be gamed through the harness: attacks on function and assert mode.

Each test is an attack a policy under RL could find (and variants of it), run through real
sandboxes. The candidate shares no interpreter with the code that decides the verdict, values
cross as plain data, and numbers compare as strictly as their declared types.
"""

from __future__ import annotations

import textwrap

import pytest

from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

FAST = {"time_limit_ms": 2000}
CHECK_EQUALS_2 = "def check(candidate):\n    assert candidate(1) == 2\n"


def _assert_job(judge, code: str, check: str = CHECK_EQUALS_2, language: str = "python"):
    return judge(
        language,
        textwrap.dedent(code).lstrip("\n"),
        [{"code": textwrap.dedent(check).lstrip("\n")}],
        mode="assert",
        entry_point="f",
        limits=FAST,
    )


def _messages(result) -> list[tuple[str, str]]:
    return [(test.message, test.stderr) for test in result.tests]


# ---- Python assert mode: values that lie about themselves ---------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        # __eq__ always true on an int subclass (the reproduction).
        """
        class A(int):
            __eq__ = lambda self, other: True
        def f(x):
            return A(0)
        """,
        # A list whose __eq__ and __ne__ lie.
        """
        class L(list):
            def __eq__(self, other): return True
            def __ne__(self, other): return False
        def f(x):
            return L()
        """,
        # An object that claims int as its __class__ (isinstance checks believe it).
        """
        class Liar:
            __class__ = property(lambda self: int)
            def __eq__(self, other): return True
            __hash__ = object.__hash__
        def f(x):
            return Liar()
        """,
    ],
    ids=["int-subclass-eq", "list-subclass-eq-ne", "class-property"],
)
def test_values_with_their_own_eq_are_wrong_answers(judge, assert_path: str, code: str) -> None:
    result = _assert_job(judge, code)
    assert result.verdict is Verdict.WA, _messages(result)


def test_a_float_that_lies_under_arithmetic_is_a_wrong_answer(judge, assert_path: str) -> None:
    code = """
    class F(float):
        def __sub__(self, other): return 0.0
        def __rsub__(self, other): return 0.0
        def __abs__(self): return 0.0
    def f(x):
        return F(7.0)
    """
    check = "def check(candidate):\n    assert abs(candidate(1) - 2.5) < 1e-6\n"
    result = _assert_job(judge, code, check)
    assert result.verdict is Verdict.WA, _messages(result)


# ---- Python assert mode: reaching into the code that decides ------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        # The reproduction: a frame trace function swaps check for a no-op.
        """
        import sys
        def f(x): return 0
        def t(fr, ev, a):
            g = fr.f_globals
            if callable(g.get("check")) and g["check"].__name__ == "check":
                g["check"] = lambda c: None
            return t
        sys._getframe().f_trace = t
        sys.settrace(lambda *a: None)
        """,
        # Reading the expected answer out of the caller's code object.
        """
        import sys
        def f(x):
            consts = sys._getframe(1).f_code.co_consts
            return [c for c in consts if type(c) is int and c != x][0]
        """,
        # Rewriting the harness's result writer through gc and its closure cells.
        """
        import gc, json, os
        def f(x): return 0
        for o in gc.get_objects():
            if getattr(o, "__name__", "") == "write_result" and o.__closure__:
                for cell in o.__closure__:
                    if cell.cell_contents is json.dumps:
                        cell.cell_contents = lambda payload: json.dumps({"status": "ok"})
                    elif cell.cell_contents is os._exit:
                        cell.cell_contents = lambda code: os._exit(0)
        """,
        # Forging the completion record with the token found in memory.
        """
        import gc, os
        def f(x): return 0
        for o in gc.get_objects():
            if getattr(o, "__name__", "") == "write_result" and o.__closure__:
                cells = [c.cell_contents for c in o.__closure__]
                token = [c for c in cells if isinstance(c, bytes)][0]
                os.ftruncate(3, 0)
                os.write(3, token + b"\\n" + b'{"status": "ok"}')
                os._exit(0)
        """,
    ],
    ids=["settrace-f_trace", "caller-frame-consts", "closure-cells", "forged-token"],
)
def test_the_program_cannot_reach_the_code_that_decides(judge, assert_path: str, code: str) -> None:
    result = _assert_job(judge, code)
    assert result.verdict in (Verdict.WA, Verdict.RE), _messages(result)


def test_patched_builtins_and_sys_modules_do_not_reach_the_tests(judge, assert_path: str) -> None:
    code = """
    import builtins, sys, types
    def f(x): return 0
    fake = types.ModuleType("math")
    fake.isclose = lambda *a, **k: True
    sys.modules["math"] = fake
    builtins.sorted = lambda *a, **k: [1, 2, 3]
    builtins.abs = lambda x: 0
    """
    for check in (
        "import math\ndef check(candidate):\n    assert math.isclose(candidate(2), 2.5)\n",
        "def check(candidate):\n    assert sorted([candidate(3)]) == [1, 2, 3]\n",
        "def check(candidate):\n    assert abs(candidate(4) - 9) < 1\n",
    ):
        result = _assert_job(judge, code, check)
        assert result.verdict is Verdict.WA, (check, _messages(result))


def test_candidate_defined_names_do_not_shadow_builtins_in_the_tests(
    judge, assert_path: str
) -> None:
    code = """
    def f(x): return 0
    def len(x): return 5
    def isinstance(x, t): return True
    """
    check = """
    def check(candidate):
        assert isinstance(candidate(1), str)
        assert len(candidate(1)) == 5
    """
    result = _assert_job(judge, code, check)
    assert result.verdict is Verdict.WA, _messages(result)


# ---- Python assert mode: what honest programs need still works ----------------------------------
def test_helpers_and_imports_of_the_prompt_are_visible_to_the_tests(judge) -> None:
    code = """
    import math
    def poly(xs, x):
        return sum(c * math.pow(x, i) for i, c in enumerate(xs))
    def f(xs):
        return -xs[0] / xs[1]
    """
    check = """
    def check(candidate):
        coeffs = [2.0, 4.0]
        assert math.fabs(poly(coeffs, candidate(coeffs))) < 1e-6
    """
    result = _assert_job(judge, code, check)
    assert result.verdict is Verdict.AC, _messages(result)


def test_plain_values_exceptions_and_in_place_changes_cross_the_boundary(judge) -> None:
    code = """
    from collections import Counter, namedtuple
    Point = namedtuple("Point", "x y")
    def f(kind, data=None):
        if kind == "counter":
            return Counter("abca")
        if kind == "point":
            return Point(1, 2)
        if kind == "sort":
            data.sort()
            return None
        if kind == "set":
            return {1, (2, 3), frozenset({4})}
        if kind == "big":
            return 7 ** 9000
        raise KeyError(kind)
    """
    check = """
    def check(candidate):
        assert candidate("counter") == {"a": 2, "b": 1, "c": 1}
        assert candidate("point") == (1, 2)
        xs = [3, 1, 2]
        assert candidate("sort", xs) is None and xs == [1, 2, 3]
        assert candidate("set") == {1, (2, 3), frozenset({4})}
        assert candidate("big") == 7 ** 9000
        try:
            candidate("other")
        except KeyError:
            pass
        else:
            raise AssertionError("KeyError expected")
    """
    result = _assert_job(judge, code, check)
    assert result.verdict is Verdict.AC, _messages(result)


def test_returning_an_object_that_is_not_plain_data_is_wa_with_a_message(judge) -> None:
    code = "class Node:\n    pass\ndef f(x):\n    return Node()\n"
    result = _assert_job(judge, code)
    assert result.verdict is Verdict.WA
    assert "not plain data" in result.tests[0].message


def test_killing_or_stopping_the_runner_is_not_ac(judge, assert_path: str) -> None:
    for action in ("SIGKILL", "SIGSTOP"):
        code = f"import os, signal\nos.kill(os.getppid(), signal.{action})\ndef f(x): return 2\n"
        result = _assert_job(judge, code)
        assert result.verdict in (Verdict.RE, Verdict.TLE), (action, _messages(result))


# ---- JavaScript assert mode -------------------------------------------------------------------
JS_CHECK = """
const assert = require('assert');
function check(candidate) {
  assert.strictEqual(candidate(1), 2);
  assert.deepStrictEqual(candidate(2), [1, 2]);
  assert.ok(JSON.stringify(candidate(3)) === JSON.stringify({a: 1}));
}
"""


@pytest.mark.parametrize(
    ("code", "check"),
    [
        # The reproduction: check replaced after the solution.
        ("function f(x) { return 0; }\ncheck = () => {};\n", JS_CHECK),
        # The assert module's functions replaced.
        (
            """
            function f(x) { return 0; }
            const a = require('assert');
            a.strictEqual = () => {}; a.deepStrictEqual = () => {}; a.ok = () => {};
            """,
            JS_CHECK,
        ),
        # A global the tests rely on replaced.
        (
            "JSON.stringify = () => 'same';\nfunction f(x) { return 0; }\n",
            "function check(c) {\n  if (JSON.stringify(c(3)) !== JSON.stringify({a: 1}))"
            " throw new Error('wrong');\n}\n",
        ),
        # Prototype pollution of a builtin method the tests call.
        (
            "Array.prototype.includes = () => true;\nfunction f(x) { return 0; }\n",
            "const assert = require('assert');\n"
            "function check(c) { assert.ok([1, 2, 3].includes(c(1))); }\n",
        ),
    ],
    ids=["check-replaced", "assert-module-patched", "json-replaced", "prototype-polluted"],
)
def test_javascript_tampering_does_not_reach_the_tests(judge, code: str, check: str) -> None:
    result = _assert_job(judge, code, check, language="javascript")
    assert result.verdict in (Verdict.WA, Verdict.RE), _messages(result)


def test_javascript_honest_assert_still_passes(judge) -> None:
    code = """
    function f(x) {
      if (x === 1) return 2;
      if (x === 2) return [1, 2];
      return {a: 1};
    }
    """
    result = _assert_job(judge, code, JS_CHECK, language="javascript")
    assert result.verdict is Verdict.AC, _messages(result)


# ---- function mode: numbers as strict as their declared types -----------------------------------
@pytest.mark.parametrize(
    ("code", "args", "expected"),
    [
        ("def f(n):\n    return float(n)\n", [1000000000], 1000000007),
        ("def f(n):\n    return 1.0\n", [0], 1),
        ("def f(n):\n    return [1, 2.0000001]\n", [0], [1, 2]),
    ],
    ids=["float-for-big-int", "one-point-zero-for-one", "nested-float-for-int"],
)
def test_function_mode_integers_are_not_compared_with_float_tolerance(
    judge, code: str, args: list[int], expected: object
) -> None:
    tests = [{"args": args, "expected": expected}]
    result = judge("python", code, tests, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is Verdict.WA, _messages(result)


def test_javascript_function_mode_integer_expected_float_returned_is_wa(judge) -> None:
    code = "function f(n) { return n + 6.9999999; }\n"
    tests = [{"args": [1000000000], "expected": 1000000007}]
    result = judge("javascript", code, tests, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is Verdict.WA, _messages(result)


def test_function_mode_int_subclass_is_judged_by_its_value(judge) -> None:
    code = "class A(int):\n    __eq__ = lambda s, o: True\ndef f(n):\n    return A(5)\n"
    tests = [{"args": [1], "expected": 6}, {"args": [1], "expected": 5}]
    result = judge("python", code, tests, mode="function", entry_point="f", limits=FAST)
    assert [test.verdict for test in result.tests] == [Verdict.WA, Verdict.AC], _messages(result)


# ---- answers that would crash the judge ----------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        # A 300,000-deep list returned the honest way.
        "def f(n):\n    v = []\n    for _ in range(300000):\n        v = [v]\n    return v\n",
        # The same nesting written straight to the result descriptor, bypassing the harness.
        textwrap.dedent(
            """
            import gc, os
            def f(n):
                for o in gc.get_objects():
                    if getattr(o, "__name__", "") == "write_result" and o.__closure__:
                        cells = [c.cell_contents for c in o.__closure__]
                        token = [c for c in cells if isinstance(c, bytes)][0]
                        os.ftruncate(3, 0)
                        os.write(3, token + b"\\n" + b"[" * 300000)
                        os._exit(0)
                return 1
            """
        ),
    ],
    ids=["deep-return", "deep-raw-result"],
)
def test_deeply_nested_answers_do_not_crash_the_judge(judge, code: str) -> None:
    tests = [{"args": [1], "expected": 1}, {"args": [2], "expected": 1}]
    result = judge("python", code, tests, mode="function", entry_point="f", limits=FAST)
    assert result.verdict is not Verdict.SE, result.system_error
    assert result.verdict is not Verdict.AC
    follow_up = judge(
        "python",
        "def f(n):\n    return n\n",
        [{"args": [3], "expected": 3}],
        mode="function",
        entry_point="f",
        limits=FAST,
    )
    assert follow_up.verdict is Verdict.AC


# ---- the runner's memory is the judge's, the candidate's is the program's ----------------------
@pytest.mark.parametrize("language", ["python", "javascript"])
def test_assert_mode_counts_the_candidates_memory_not_the_runners(judge, language: str) -> None:
    honest = {
        "python": "def f(x):\n    return x + 1\n",
        "javascript": "function f(x) { return x + 1; }\n",
    }[language]
    hungry = {
        "python": "def f(x):\n    block = bytearray(200 << 20)\n    return len(block) + x\n",
        "javascript": "function f(x) { const b = Buffer.alloc(200 << 20, 1); return b[0] + x; }\n",
    }[language]
    check = {
        "python": "def check(candidate):\n    assert candidate(1) == 2\n",
        "javascript": "const assert = require('assert');\n"
        "function check(c) { assert.strictEqual(c(1), 2); }\n",
    }[language]
    function_mode = judge(
        language,
        honest,
        [{"args": [1], "expected": 2}],
        mode="function",
        entry_point="f",
        limits={"memory_limit_mb": 32},
    )
    assert_mode = judge(
        language,
        honest,
        [{"code": check}],
        mode="assert",
        entry_point="f",
        limits={"memory_limit_mb": 32},
    )
    assert assert_mode.verdict is Verdict.AC, _messages(assert_mode)
    # Same program, same memory: the runner (a second interpreter) is not counted.
    assert assert_mode.tests[0].memory_kb < 1.5 * function_mode.tests[0].memory_kb
    over = judge(
        language,
        hungry,
        [{"code": check}],
        mode="assert",
        entry_point="f",
        limits={"memory_limit_mb": 64, "time_limit_ms": 5000},
    )
    assert over.verdict is Verdict.MLE, _messages(over)
