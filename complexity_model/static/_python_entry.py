"""The definition a function-mode harness calls for a problem's ``entry_point``.

Resolved the way the sandbox resolves it: ``Class.method`` is that class's method (inherited
ones included), a bare name is a module-level function, else a method of ``Solution``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from complexity_model.static._ir import EntryPointNotFound

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
# Superclass chains longer than this are cycles or not worth following.
_MAX_BASES = 8


def find_entry(tree: ast.Module, entry_point: str) -> tuple[_Definition, str | None]:
    """The entry point's definition and the class it belongs to (None for a function)."""
    name = entry_point.strip()
    if "." in name:
        class_name, method = name.split(".", 1)
        found = _method(tree, class_name, method)
        if found is None:
            raise EntryPointNotFound(f"no method {method!r} in a class {class_name!r}")
        return found, class_name
    function = _top_level(tree).get(name)
    if isinstance(function, _Definition):
        return function, None
    found = _method(tree, "Solution", name)
    if found is None:
        raise EntryPointNotFound(f"no function {name!r} and no Solution.{name}")
    return found, "Solution"


def _method(tree: ast.Module, class_name: str, method: str) -> _Definition | None:
    names = _top_level(tree)
    for _ in range(_MAX_BASES):
        owner = names.get(class_name)
        if not isinstance(owner, ast.ClassDef):
            return None
        for item in reversed(owner.body):
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name == method:
                return item
        bases = [base.id for base in owner.bases if isinstance(base, ast.Name)]
        if not bases:
            return None
        class_name = bases[0]
    return None


def _top_level(tree: ast.Module) -> dict[str, _Definition | ast.ClassDef]:
    """Module-level functions, lambdas and classes by name; a later binding wins."""
    names: dict[str, _Definition | ast.ClassDef] = {}
    for stmt in _module_statements(tree.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Lambda):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = stmt.value
    return names


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at module level, inside ``if``, ``try`` and ``with`` blocks too."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If | ast.With | ast.AsyncWith):
            yield from _module_statements(stmt.body)
            if isinstance(stmt, ast.If):
                yield from _module_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (
                stmt.body,
                stmt.orelse,
                stmt.finalbody,
                *(handler.body for handler in stmt.handlers),
            ):
                yield from _module_statements(block)
