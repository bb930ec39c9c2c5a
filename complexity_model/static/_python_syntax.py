"""Syntax-level helpers of the Python front end: how a recursive call's argument relates to
the parameter, slices of fixed width, loops that always exit, names a body binds, midpoints."""

from __future__ import annotations

import ast

from complexity_model.static._cost import CONSTANT
from complexity_model.static._ir import ArgShape, Bound
from complexity_model.static._python_bounds import _is_midpoint
from complexity_model.static._python_facts import PythonFacts, call_name, const_value

EXITS = frozenset({"exit", "quit"})
_CONVERSIONS = frozenset({"int", "float", "str", "ord", "chr", "abs", "bool", "list", "tuple"})


def shape(arg: ast.expr, param: str, midpoints: set[str]) -> ArgShape:
    names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    operators = {type(n.op) for n in ast.walk(arg) if isinstance(n, ast.BinOp)}
    if ast.LShift in operators and operators & {
        ast.BitOr,
        ast.BitXor,
        ast.BitAnd,
        ast.Add,
        ast.Sub,
    }:
        return "bitmask"
    if names & midpoints or _is_midpoint(arg):
        return "halved"
    for node in ast.walk(arg):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv | ast.RShift | ast.Div):
            return "halved"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return "reduced_mod"
    if isinstance(arg, ast.Name) and arg.id == param:
        return "same"
    if isinstance(arg, ast.Subscript) and param in names:
        return "chased"
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add | ast.Sub):
        return "stepped"
    return "other"


def unwrapped(node: ast.expr) -> ast.expr:
    """``input()`` for ``list(input())``, ``str(input())``, ``int(input())``."""
    while isinstance(node, ast.Call) and call_name(node.func) in _CONVERSIONS and node.args:
        node = node.args[0]
    return node


def is_conversion(function: ast.expr) -> bool:
    return isinstance(function, ast.Name) and function.id in _CONVERSIONS


def fixed_width_slice(node: ast.Slice, facts: PythonFacts) -> bool:
    lower, upper = node.lower, node.upper
    if node.step is not None and const_value(node.step, facts.constants) is None:
        return False
    if lower is None and upper is None:
        return False
    for end in (lower, upper):
        if end is not None:
            value = const_value(end, facts.constants)
            if value is not None and -3 <= value <= 3 and (lower is None or upper is None):
                return end is upper if value >= 0 else end is lower
    if lower is not None and upper is not None:
        if isinstance(upper, ast.BinOp) and ast.dump(upper.left) == ast.dump(lower):
            return const_value(upper.right, facts.constants) is not None
        return (
            const_value(lower, facts.constants) is not None
            and const_value(upper, facts.constants) is not None
        )
    return False


def early_exit(body: list[ast.stmt], bound: Bound) -> Bound:
    """A body that always leaves the loop on its first pass runs once."""
    for stmt in body:
        leaves = isinstance(stmt, ast.Break | ast.Return) or (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and call_name(stmt.value.func) in EXITS
        )
        if leaves and bound.cost != CONSTANT:
            return Bound(CONSTANT, f"{bound.reason} (always exits on the first pass)")
    return bound


def leaves(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Return | ast.Raise)


def assigned_in(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


def rebound_in(body: list[ast.stmt]) -> set[str]:
    """Names given a fresh value (``=``, ``for``), not just advanced (``+=``)."""
    names: set[str] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.For | ast.comprehension):
                targets = [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def assigned_names(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    declared_global = {
        name
        for node in ast.walk(definition)
        if isinstance(node, ast.Global | ast.Nonlocal)
        for name in node.names
    }
    return assigned_in(definition.body) - declared_global


def midpoints(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names of the middle of a range or of half a size: arguments built on them halve."""
    found: set[str] = set()
    for node in ast.walk(definition):
        if isinstance(node, ast.Assign) and (_is_midpoint(node.value) or _half(node.value)):
            found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def _half(value: ast.expr) -> bool:
    """``len(a) // 2``, ``n >> 1``."""
    return (
        isinstance(value, ast.BinOp)
        and isinstance(value.right, ast.Constant)
        and (
            (isinstance(value.op, ast.FloorDiv | ast.Div) and value.right.value == 2)
            or (isinstance(value.op, ast.RShift) and value.right.value == 1)
        )
    )


def prepends(name: str, value: ast.expr, sequence: bool) -> bool:
    """Whether ``value`` is ``x + ... + name + ...`` with ``name`` not the leftmost operand, and
    a string or list: ``sequence`` (what ``name`` was bound to says so) or another operand is
    a string or list display, an f-string or ``str(...)``."""
    operands: list[ast.expr] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            stack += [node.right, node.left]
        else:
            operands.append(node)
    if len(operands) < 2 or not any(
        isinstance(operand, ast.Name) and operand.id == name for operand in operands[1:]
    ):
        return False
    return sequence or any(_is_sequence(operand) for operand in operands)


def _is_sequence(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Call):
        return call_name(node.func) in {"str", "chr", "list"}
    return isinstance(node, ast.List | ast.JoinedStr | ast.ListComp)
