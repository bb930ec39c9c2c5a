"""Functions held in variables and attributes: ``g = helper; g(n)`` calls ``helper``, and
``g(n)`` where ``g`` may hold anything cannot be costed (``for g in handlers: g(n)``)."""

from __future__ import annotations

import ast
import collections
from collections.abc import Collection
from typing import TypeGuard

from complexity_model.static._library import PYTHON_READS, PYTHON_WRITES
from complexity_model.static._python_parameters import parameter_values

# How many ``a = b`` links an alias is followed through.
_MAX_LINKS = 4


# Methods of the builtin types a receiver of unknown type may be: a call of one of these names
# is not taken for the program's method, nor for a function stored in an attribute.
BUILTIN_METHODS = frozenset(
    name
    for kind in (
        list,
        dict,
        set,
        frozenset,
        str,
        bytes,
        bytearray,
        tuple,
        int,
        float,
        complex,
        collections.deque,
        collections.Counter,
        object,
    )
    for name in dir(kind)
)


# Attribute names whose calls are a builtin type's methods or input and output (a fast-I/O
# wrapper's self.write = lambda s: ...), however the program binds them.
_NOT_HELD = BUILTIN_METHODS | PYTHON_READS | PYTHON_WRITES


class Bindings:
    """What each variable (``g``) and attribute name (``.g``, of any object) of the module is
    bound to: a value, or None when bound otherwise (a loop target, unpacking, ``with ... as``,
    an augmented assignment)."""

    def __init__(self, tree: ast.Module, user_functions: Collection[str]) -> None:
        self._user_functions = user_functions
        simple: dict[int, ast.expr] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    _pair(target, node.value, simple)
        self._values: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store):
                self._values.setdefault(_key(node), []).append(simple.get(id(node)))
        # A class attribute (``h = staticmethod(lambda ...)`` in the body) is called as ``.h``.
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.Assign):
                        for target in item.targets:
                            if isinstance(target, ast.Name):
                                self._values.setdefault("." + target.id, []).append(item.value)
        # A parameter holds its default and whatever its callers pass.
        self._parameters = parameter_values(tree)
        for name, bound in self._parameters.items():
            self._values.setdefault(name, []).extend(bound)

    def resolve(self, func: ast.expr) -> ast.expr:
        """The program's function a variable or attribute stands for (``g = self.helper``,
        ``self.op = self.helper``), else ``func``."""
        target = func
        for _ in range(_MAX_LINKS):
            if not isinstance(target, ast.Name | ast.Attribute) or self._names_own(target):
                break
            values = self._values.get(_key(target), [])
            if (
                len(values) == 1
                and isinstance(values[0], ast.Lambda)
                and isinstance(target, ast.Name)
                and target.id in self._parameters
            ):
                return values[0]  # a lambda handed over as a parameter: its body runs here
            if len(values) != 1 or not isinstance(values[0], ast.Name | ast.Attribute):
                break
            target = values[0]
        if (
            target is not func
            and isinstance(target, ast.Name | ast.Attribute)
            and (self._names_own(target) or self._library(target))
        ):
            # A library function in a variable (``s = sum``, ``c = xs.count``) costs what
            # that function costs where it is called.
            return target
        return func

    def passed(self, parameter: str) -> list[ast.expr | None]:
        """What a parameter may hold: its default and its callers' arguments (None: unknown)."""
        return self._parameters.get(parameter, [])

    def held(self, func: ast.Name | ast.Attribute) -> bool:
        """Whether calling ``func`` may run a function the analysis cannot tell: a variable or
        attribute bound to something other than plain names of library functions."""
        values = self._values.get(_key(func))
        attribute = isinstance(func, ast.Attribute)
        if (
            not values
            or self._names_own(func)
            or (isinstance(func, ast.Attribute) and func.attr in _NOT_HELD)
        ):
            return False
        # A lambda bound to a variable is one of the program's functions; one stored in an
        # attribute is not. A name is a library function only where the program binds it
        # nowhere (a builtin, an import): a variable or a parameter may hold anything. Two
        # different library functions cannot be told apart.
        library = {ast.dump(value) for value in values if _is_name(value)}
        return len(library) > 1 or not all(
            (isinstance(value, ast.Lambda) and not attribute)
            or (_is_name(value) and self._library(value))
            for value in values
        )

    def _library(self, value: ast.Name | ast.Attribute) -> bool:
        """A function the program binds nowhere: a builtin, an import, a method."""
        return not self._names_own(value) and _key(value) not in self._values

    def _names_own(self, value: ast.Name | ast.Attribute) -> bool:
        held = value.id if isinstance(value, ast.Name) else value.attr
        return held in self._user_functions


def _is_name(value: ast.expr | None) -> TypeGuard[ast.Name | ast.Attribute]:
    return isinstance(value, ast.Name | ast.Attribute)


def _key(node: ast.Name | ast.Attribute) -> str:
    return node.id if isinstance(node, ast.Name) else f".{node.attr}"


def _pair(target: ast.expr, value: ast.expr, simple: dict[int, ast.expr]) -> None:
    """Record the value each name of ``target`` gets (``f, m = factorial, 1`` too)."""
    if isinstance(target, ast.Name | ast.Attribute):
        simple[id(target)] = value
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) == len(value.elts):
            for element, element_value in zip(target.elts, value.elts, strict=True):
                _pair(element, element_value, simple)
