"""Functions held in variables: ``g = helper; g(n)`` calls ``helper``, and ``g(n)`` where ``g``
may hold anything cannot be costed (``for g in handlers: g(n)``)."""

from __future__ import annotations

import ast
from collections.abc import Collection

# How many ``a = b`` links an alias is followed through.
_MAX_LINKS = 4


class Bindings:
    """What each variable of the module is bound to: a value, or None when bound otherwise
    (a loop target, unpacking, ``with ... as``, an augmented assignment)."""

    def __init__(self, tree: ast.Module, user_functions: Collection[str]) -> None:
        self._user_functions = user_functions
        simple: dict[int, ast.expr] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    _pair(target, node.value, simple)
        self._values: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self._values.setdefault(node.id, []).append(simple.get(id(node)))

    def resolve(self, func: ast.expr) -> ast.expr:
        """The program's function a variable stands for (``g = self.helper``), else ``func``."""
        target = func
        for _ in range(_MAX_LINKS):
            if not isinstance(target, ast.Name) or target.id in self._user_functions:
                break
            values = self._values.get(target.id, [])
            if len(values) != 1 or not isinstance(values[0], ast.Name | ast.Attribute):
                break
            target = values[0]
        if target is not func and isinstance(target, ast.Name | ast.Attribute) and (
                self._names_own(target)):
            return target
        return func

    def held(self, name: str) -> bool:
        """Whether calling the variable ``name`` may run a function the analysis cannot tell:
        it is bound to something other than plain names of library functions."""
        values = self._values.get(name)
        if not values or name in self._user_functions:
            return False
        return not all(isinstance(value, ast.Lambda) or (
            isinstance(value, ast.Name | ast.Attribute) and not self._names_own(value))
            for value in values)

    def _names_own(self, value: ast.Name | ast.Attribute) -> bool:
        held = value.id if isinstance(value, ast.Name) else value.attr
        return held in self._user_functions


def _pair(target: ast.expr, value: ast.expr, simple: dict[int, ast.expr]) -> None:
    """Record the value each name of ``target`` gets (``f, m = factorial, 1`` too)."""
    if isinstance(target, ast.Name):
        simple[id(target)] = value
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) == len(value.elts):
            for element, element_value in zip(target.elts, value.elts, strict=True):
                _pair(element, element_value, simple)
