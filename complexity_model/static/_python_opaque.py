"""Python code the analysis cannot see into: code given as strings (``exec``, ``eval``),
functions looked up by a computed name, native libraries and modules without a cost model.

A submission that hides its loops in such code would otherwise read as O(1) and earn the full
time reward; each finding becomes an :class:`Opaque` node, and an entry point that reaches one
gets no class.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from complexity_model.static._ir import Opaque
from complexity_model.static._library import (
    PYTHON_COMPUTED_ATTRIBUTES,
    PYTHON_DYNAMIC_CODE,
    PYTHON_KNOWN_MODULES,
    PYTHON_NAMESPACE_LOOKUPS,
    PYTHON_NATIVE_MODULES,
    PYTHON_OS_PROCESSES,
)
from complexity_model.static._python_aliases import Bindings
from complexity_model.static._python_facts import base_name, call_name, reads_input

_DYNAMIC_NAMES = (
    PYTHON_DYNAMIC_CODE
    | PYTHON_NAMESPACE_LOOKUPS
    | PYTHON_COMPUTED_ATTRIBUTES
    | {"__import__", "__builtins__"}
)


class Opacity:
    """Finds opaque imports and calls, given the module's imports and its own functions."""

    def __init__(self, tree: ast.Module, user_functions: Collection[str]) -> None:
        self._user_functions = user_functions
        self.bindings = Bindings(tree, user_functions)
        # Local name -> (module, the name imported from it or "" for the module itself).
        self._imported: dict[str, tuple[str, str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    module = alias.name if alias.asname else local
                    self._imported[local] = (module, "")
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self._imported[alias.asname or alias.name] = (node.module or ".", alias.name)

    def imports(self, node: ast.Import | ast.ImportFrom) -> list[Opaque]:
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            modules = [node.module or "."]
            if any(alias.name == "*" for alias in node.names) and not _known(modules[0]):
                return [Opaque(f"imports every name of {modules[0]}", node.lineno)]
        return [
            Opaque(f"imports {module}, which runs native or outside code", node.lineno)
            for module in modules
            if _root(module) in PYTHON_NATIVE_MODULES
        ]

    def call(self, node: ast.Call, func: ast.expr) -> Opaque | None:
        """Why the call of ``func`` (``node.func`` with getattr resolved) cannot be costed, or
        None when it can."""
        line = node.lineno
        if isinstance(func, ast.Attribute):
            if self.bindings.held(func):
                return Opaque(f"calls .{func.attr}, an attribute that may hold any function", line)
            return self._method_call(func.attr, func.value, line)
        if not isinstance(func, ast.Name):
            if isinstance(func, ast.Lambda):
                return None
            return Opaque("calls a function chosen at run time", line)
        name = func.id
        if name in self._user_functions:
            return None
        if name in PYTHON_DYNAMIC_CODE and not (node.args and reads_input(node.args[0])):
            return Opaque(f"{name}() runs code given as data", line)
        if name in PYTHON_NAMESPACE_LOOKUPS:
            return Opaque(f"looks functions up in {name}()", line)
        if name in PYTHON_COMPUTED_ATTRIBUTES and not (
            len(node.args) >= 2 and _is_string(node.args[1])
        ):
            return Opaque(f"{name}() with a computed attribute name", line)
        if name == "__import__":
            target = node.args[0] if node.args else None
            if not (
                isinstance(target, ast.Constant)
                and isinstance(target.value, str)
                and _known(target.value)
            ):
                return Opaque("__import__() of a module without a cost model", line)
            return None
        if name in self._imported:
            module, original = self._imported[name]
            return self._module_call(module, original, line)
        if self.bindings.held(func):
            return Opaque(f"calls {name}, a variable that may hold any function", line)
        return None

    def reference(self, node: ast.Name) -> Opaque | None:
        """A builtin that runs or finds code, used as a value (``run = exec``)."""
        name = node.id
        if name in self._user_functions or name not in _DYNAMIC_NAMES:
            return None
        return Opaque(f"passes {name} around as a value", node.lineno)

    def _method_call(self, name: str, receiver: ast.expr, line: int) -> Opaque | None:
        if name in {"__getattribute__", "__getattr__"}:
            return Opaque(f"{name}() looks an attribute up by name", line)
        owner = base_name(receiver)
        if owner in self._imported:
            module, original = self._imported[owner]
            return self._module_call(f"{module}.{original}" if original else module, name, line)
        return None

    @staticmethod
    def _module_call(module: str, function: str, line: int) -> Opaque | None:
        if not _known(module):
            return Opaque(f"calls {module}.{function}, which has no cost model", line)
        if _root(module) == "os" and (
            function in PYTHON_OS_PROCESSES or function.startswith(("exec", "spawn"))
        ):
            return Opaque(f"os.{function}() runs another program", line)
        return None


def resolve_getattr(func: ast.expr) -> ast.expr:
    """``x.name`` for ``getattr(x, "name")``, so that the call it makes is followed."""
    if (
        isinstance(func, ast.Call)
        and call_name(func.func) == "getattr"
        and len(func.args) >= 2
        and _is_string(func.args[1])
    ):
        name = func.args[1]
        assert isinstance(name, ast.Constant)
        return ast.Attribute(value=func.args[0], attr=str(name.value), ctx=ast.Load())
    return func


def _root(module: str) -> str:
    return module.split(".")[0]


def _known(module: str) -> bool:
    return _root(module) in PYTHON_KNOWN_MODULES


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
