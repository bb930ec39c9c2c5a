"""Assert-mode tests that are only calls with literal arguments, judged as a list of calls.

Most assert-style tests in RL data (HumanEval's ``check``, MBPP's ``test_list``) are a sequence
of ``assert candidate(<literal>) == <literal>``. For those the engine needs no test code in the
sandbox at all: the candidate's process makes the calls and reports each value as plain data
(as function mode does), and the agent compares them with the expected values, which never
enter the sandbox's processes. The zygote hands the program its calls one at a time, each once
the answer before it is in the result, as the runner does: a later call's arguments can tell
an earlier call's expected value (``f(11) == 13``, then ``f(13)``), and a program that could
read ahead would answer from them. That is one process per test
instead of the runner and the candidate of :mod:`judge_service.sandbox.agent.isolated`, with
the same verdicts: the calls run in order in one process, the first failing assertion is a
wrong answer whatever the program did after it, and an exception, a time-out or a crash before
it reads as it would there.

Literals may be written with arithmetic (``candidate(3 * 19)``), computed here once with the
same Python semantics and bounded sizes; the value may be wrapped in ``tuple``, ``list``,
``set``, ``sorted`` or ``len`` before the comparison, which the agent applies to the decoded
value as the runner would. An assertion's message is not evaluated: a failing assertion is a
wrong answer with the message's literal text (the runner would evaluate it, which may call the
candidate again; that can turn a wrong answer into a runtime error, never into a pass).

Anything else (loops, helper calls, names, imports used by the asserts) is left to the runner:
:func:`plan` returns ``None``.
"""

from __future__ import annotations

import ast
import builtins
import contextvars
import json
import operator
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from judge_service.sandbox.agent.plain import NotPlainData, to_wire
from judge_service.sandbox.agent.planned import WRAPPERS

MAX_PLAN_CALLS = 1000
MAX_FOLDED_ITEMS = 1 << 20
# Items folded into sequences so far by the plan being made (all of a test's literals together:
# a bound per operation alone let ``[0] * 1048576 + [0] * 1048576 + ...`` build gigabytes).
_FOLDED: contextvars.ContextVar[list[int]] = contextvars.ContextVar("folded")
_APPROX_OPERATORS = {ast.Lt: "approx<", ast.LtE: "approx<="}
_IDENTITIES = (None, True, False)
_ARITHMETIC: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class _NotSimple(Exception):
    """The test code does more than assert on calls with literal arguments."""


# Tests up to this size are remembered (HumanEval's largest is 5 KB): 4096 remembered tests of
# many megabytes each, and their plans, would hold gigabytes of the host's memory.
CACHED_TEST_BYTES = 64 << 10


def plan(test_code: str, entry_point: str) -> tuple[str, str] | None:
    """``(calls, checks)``, or ``None`` when the runner must run the test.

    ``calls`` is one ``[name, [args...]]`` per line (plain-data JSON), in the order the tests
    make them; ``checks`` is one ``[call index or -1, kind, expected, tolerance, message,
    wrapper]`` per assertion, in order.
    """
    if len(test_code) <= CACHED_TEST_BYTES:
        return _remembered_plan(test_code, entry_point)
    return _parse_and_plan(test_code, entry_point)


@lru_cache(maxsize=4096)
def _remembered_plan(test_code: str, entry_point: str) -> tuple[str, str] | None:
    return _parse_and_plan(test_code, entry_point)


def _parse_and_plan(test_code: str, entry_point: str) -> tuple[str, str] | None:
    try:
        tree = ast.parse(test_code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    folded = _FOLDED.set([0])
    try:
        return _plan(tree, entry_point)
    finally:
        _FOLDED.reset(folded)


def _plan(tree: ast.Module, entry_point: str) -> tuple[str, str] | None:
    if not _names_are_the_programs(tree):
        return None
    calls: list[list[Any]] = []
    checks: list[list[Any]] = []
    try:
        for node in tree.body:
            _top_level(node, entry_point, calls, checks)
        if len(calls) > MAX_PLAN_CALLS:
            return None
        return "\n".join(_json(call) for call in calls), _json(checks)
    except (
        _NotSimple,
        NotPlainData,
        ArithmeticError,
        ValueError,
        TypeError,
        RecursionError,
        MemoryError,
    ):
        return None


def _names_are_the_programs(tree: ast.Module) -> bool:
    """Whether the runner would call what a plan calls: one ``check`` (the runner calls the
    last one defined; a plan of both judged a right program by an overridden check, WA where
    the runner said AC), and no top-level assertion calling a name the test imports or
    assigns (the runner calls the test's own ``sqrt``, a plan the program's)."""
    if sum(isinstance(node, ast.FunctionDef) and node.name == "check" for node in tree.body) > 1:
        return False
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Assign):
            bound |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    called = {
        call.func.id
        for node in tree.body
        if isinstance(node, ast.Assert)
        for call in ast.walk(node.test)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    }
    return not (called & bound or (called and "*" in bound))


def _top_level(node: ast.stmt, entry_point: str, calls: list[Any], checks: list[Any]) -> None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return  # a docstring
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return  # only names the asserts below could use, and they use none
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        _literal(node.value)  # METADATA = {...}; the asserts cannot refer to it
        if any(t.id == "check" for t in node.targets if isinstance(t, ast.Name)):
            raise _NotSimple
        return
    if isinstance(node, ast.Assert):
        _assertion(node, None, entry_point, calls, checks)
        return
    if isinstance(node, ast.FunctionDef) and node.name == "check" and _one_parameter(node):
        parameter = node.args.args[0].arg
        for statement in node.body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue
            if not isinstance(statement, ast.Assert):
                raise _NotSimple
            _assertion(statement, parameter, entry_point, calls, checks)
        return
    raise _NotSimple


def _one_parameter(node: ast.FunctionDef) -> bool:
    arguments = node.args
    return (
        len(arguments.args) == 1
        and not node.decorator_list
        and not (arguments.posonlyargs or arguments.kwonlyargs or arguments.defaults)
        and arguments.vararg is None
        and arguments.kwarg is None
    )


def _assertion(
    node: ast.Assert,
    parameter: str | None,
    entry_point: str,
    calls: list[Any],
    checks: list[Any],
) -> None:
    message = _message_text(node.msg)
    test = node.test
    if isinstance(test, ast.Constant):
        if not test.value:
            checks.append([-1, "fail", None, None, message, None])
        return
    kind, call, expected, tolerance = _shape(test)
    wrapper = None
    if _is_wrapped(call):
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        wrapper, call = call.func.id, call.args[0]
    name, arguments = _call(call, parameter, entry_point)
    checks.append([len(calls), kind, expected, tolerance, message, wrapper])
    calls.append([name, arguments])


def _message_text(node: ast.expr | None) -> str:
    """The message's literal text: all of it, or the literal left of a ``+``."""
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        node = node.left
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _shape(test: ast.expr) -> tuple[str, ast.expr, Any, Any]:
    """The kind of assertion, the call it makes, and the literals it compares with."""
    if _is_call(test):
        return "truthy", test, None, None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "falsy", test.operand, None, None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        raise _NotSimple
    comparison, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(comparison, ast.Eq):
        call, other = (left, right) if _is_call(left) and not _is_wrapped(right) else (right, left)
        return "eq", call, _literal(other), None
    if isinstance(comparison, ast.Is):
        expected = _literal(right)
        if not any(expected is identity for identity in _IDENTITIES):
            raise _NotSimple
        return "is", left, expected, None
    approx = _APPROX_OPERATORS.get(type(comparison))
    if approx and _is_abs_difference(left):
        assert isinstance(left, ast.Call) and isinstance(left.args[0], ast.BinOp)
        difference = left.args[0]
        tolerance = _literal(right)
        if type(tolerance) not in (int, float):
            raise _NotSimple
        return approx, difference.left, _literal(difference.right), tolerance
    raise _NotSimple


def _is_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name)


def _is_wrapped(node: ast.expr) -> bool:
    """``tuple(<call>)`` and the like: a wrapper the agent can apply to the value."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
        and _is_call(node.args[0])
        and not _is_wrapped(node.args[0])
    )


def _literal(node: ast.expr) -> Any:
    """The value of a literal, arithmetic on literals included, with bounded sizes."""
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _literal(node.left), _literal(node.right)
        _check_size(node.op, left, right)
        return _ARITHMETIC[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _literal(node.operand)
        if type(operand) not in (int, float, bool):
            raise _NotSimple
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_literal(item) for item in node.elts]
        kind: type = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
        return kind(items)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise _NotSimple
        pairs = zip(node.keys, node.values, strict=True)
        return {_literal(key): _literal(value) for key, value in pairs}  # type: ignore[arg-type]
    if isinstance(node, ast.Call) and _is_wrapped_literal(node):
        assert isinstance(node.func, ast.Name)
        return WRAPPERS[node.func.id](_literal(node.args[0]))
    return ast.literal_eval(node)


def _is_wrapped_literal(node: ast.Call) -> bool:
    return (
        isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
    )


def _check_size(operation: ast.operator, left: Any, right: Any) -> None:
    """Refuse what would be slow or huge to compute here (the runner will compute it)."""
    numbers = (int, float, bool)
    if isinstance(operation, ast.Pow):
        if not (type(left) in numbers and type(right) in numbers) or abs(right) > 256:
            raise _NotSimple
        if type(left) is int and abs(left) > 1 << 64:
            raise _NotSimple
    size = 0
    if isinstance(operation, ast.Mult) and not (type(left) in numbers and type(right) in numbers):
        count = right if type(left) not in numbers else left
        sequence = left if type(left) not in numbers else right
        if type(count) is not int:
            raise _NotSimple
        size = len(sequence) * max(count, 0)
    elif isinstance(operation, ast.Add) and type(left) not in numbers:
        size = len(left) + len(right)
    folded = _FOLDED.get()
    folded[0] += size
    if size > MAX_FOLDED_ITEMS or folded[0] > MAX_FOLDED_ITEMS:
        raise _NotSimple


def _is_abs_difference(node: ast.expr) -> bool:
    """``abs(<call> - <literal>)``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "abs"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.BinOp)
        and isinstance(node.args[0].op, ast.Sub)
    )


def _call(node: ast.expr, parameter: str | None, entry_point: str) -> tuple[str, Any]:
    """The name the runner would call and the wire form of the literal arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or node.keywords:
        raise _NotSimple
    name = node.func.id
    if name == parameter:
        name = entry_point
    elif parameter is not None or hasattr(builtins, name) or name.startswith("__"):
        # Inside check, any other name is the test's own; at the top level, a builtin is the
        # runner's own (the runner never calls the candidate for it).
        raise _NotSimple
    if any(isinstance(argument, ast.Starred) for argument in node.args):
        raise _NotSimple
    return name, [_literal(argument) for argument in node.args]


def _json(value: Any) -> str:
    return json.dumps(to_wire(value), allow_nan=True, separators=(",", ":"))
