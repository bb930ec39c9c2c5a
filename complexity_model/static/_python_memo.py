"""Recursion patterns in Python: memo tables and guards undone after a call (backtracking)."""

from __future__ import annotations

import ast

from complexity_model.static._python_facts import base_name, call_name

_UNDO_METHODS = frozenset({"pop", "remove", "discard", "popleft"})


def memo_dimensions(
    definition: ast.FunctionDef | ast.AsyncFunctionDef, decorators: frozenset[str]
) -> int:
    """0 when not memoised, -1 when memoised on its arguments, else the memo table's rank."""
    for decorator in definition.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if call_name(target) in decorators:
            return -1
    params = {arg.arg for arg in definition.args.args}
    for node in ast.walk(definition):
        if not isinstance(node, ast.If):
            continue
        tables = _tables_in(node.test, params)
        for stmt in node.body:
            if isinstance(stmt, ast.Return) and stmt.value is not None:
                returned = {
                    base_name(n)
                    for n in ast.walk(stmt.value)
                    if isinstance(n, ast.Subscript | ast.Name)
                }
                for table, rank in tables.items():
                    if table in returned:
                        return rank
    return 0


def visit_dimensions(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The rank of the visited mark the function returns early on and then sets, or 0.

    ``if grid[r][c] != "1": return`` at the top, ``grid[r][c] = "0"`` below: a flood fill. The
    marked collection may be a parameter, since calls pass the same object on.
    """
    marked = _marked(definition)
    for stmt in definition.body:
        if not (isinstance(stmt, ast.If) and _exits_with_nothing(stmt.body)):
            continue
        for table, rank in _tables_in(stmt.test, set()).items():
            if table in marked:
                return max(rank, 1)
    return 0


def _marked(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(definition):
        if isinstance(node, ast.Assign):
            names |= {base_name(t) for t in node.targets if isinstance(t, ast.Subscript)}
        elif isinstance(node, ast.Call) and call_name(node.func) == "add":
            names.add(base_name(node.func))
    return names


def _exits_with_nothing(body: list[ast.stmt]) -> bool:
    """``return``, ``return 0``, ``return False``: leaving without a stored answer."""
    return (
        len(body) == 1
        and isinstance(body[0], ast.Return)
        and (body[0].value is None or isinstance(body[0].value, ast.Constant))
    )


def _tables_in(test: ast.expr, params: set[str]) -> dict[str, int]:
    """Collections the test looks up, with how many indices the lookup uses."""
    tables: dict[str, int] = {}
    for node in ast.walk(test):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            name = base_name(node)
            depth, inner = 0, node
            while isinstance(inner, ast.Subscript):
                depth += len(inner.slice.elts) if isinstance(inner.slice, ast.Tuple) else 1
                inner = inner.value  # type: ignore[assignment]
            if name and name not in params:
                tables[name] = max(tables.get(name, 0), depth)
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=False):
                if isinstance(op, ast.In | ast.NotIn) and isinstance(right, ast.Name):
                    if right.id not in params:
                        key = node.left
                        rank = len(key.elts) if isinstance(key, ast.Tuple) else -1
                        tables.setdefault(right.id, rank)
    return tables


def resets_guard(following: list[ast.stmt]) -> bool:
    """Whether the statements right after a call undo state (``used[i] = False``, ``pop()``)."""
    for stmt in following[:3]:
        if (
            isinstance(stmt, ast.Assign)
            and any(isinstance(target, ast.Subscript) for target in stmt.targets)
            and isinstance(stmt.value, ast.Constant)
        ):
            return True
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Sub | ast.BitXor):
            return True
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            if call_name(stmt.value.func) in _UNDO_METHODS:
                return True
    return False
