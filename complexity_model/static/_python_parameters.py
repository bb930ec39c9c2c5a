"""What each parameter of the program's functions may hold: its default and the arguments its
callers pass. A function handed to a helper (``bisect(lo, hi, check)``) is called wherever the
helper calls the parameter, once per iteration of the helper's loop; costed as nothing, a
per-element call of an O(n) function read as O(n) instead of O(n^2).
"""

from __future__ import annotations

import ast
from collections import defaultdict

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def parameter_values(tree: ast.Module) -> dict[str, list[ast.expr | None]]:
    """Parameter name -> the expressions it may be bound to; None where a caller's argument
    cannot be matched to it (``*args``, ``**kwargs``) or when nothing binds it."""
    values: dict[str, list[ast.expr | None]] = defaultdict(list)
    callees: dict[str, list[tuple[ast.arguments, bool]]] = defaultdict(list)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, _Function):
                    method = _has_receiver(item)
                    callees[item.name].append((item.args, method))
                    if item.name == "__init__":
                        callees[node.name].append((item.args, method))
        elif isinstance(node, _Function):
            callees.setdefault(node.name, []).append((node.args, False))
            _defaults(node.args, values)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _called_name(node.func)
            for arguments, method in callees.get(name, []) if name else []:
                _bind(node, arguments, method, values)
    for node in ast.walk(tree):
        if isinstance(node, _Function):
            for parameter in _parameters(node.args):
                if not values[parameter.arg]:
                    values[parameter.arg].append(None)
    return dict(values)


def _has_receiver(node: _Function) -> bool:
    static = any(
        isinstance(decorator, ast.Name) and decorator.id == "staticmethod"
        for decorator in node.decorator_list
    )
    return not static and bool(node.args.posonlyargs or node.args.args)


def _parameters(arguments: ast.arguments) -> list[ast.arg]:
    listed = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return listed + [extra for extra in (arguments.vararg, arguments.kwarg) if extra]


def _defaults(arguments: ast.arguments, values: dict[str, list[ast.expr | None]]) -> None:
    positional = [*arguments.posonlyargs, *arguments.args]
    for parameter, default in zip(
        positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
    ):
        values[parameter.arg].append(default)
    for parameter, keyword_default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if keyword_default is not None:
            values[parameter.arg].append(keyword_default)


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _bind(
    call: ast.Call,
    arguments: ast.arguments,
    method: bool,
    values: dict[str, list[ast.expr | None]],
) -> None:
    positional = [*arguments.posonlyargs, *arguments.args][1 if method else 0 :]
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    ):
        for parameter in _parameters(arguments):
            values[parameter.arg].append(None)
        return
    for parameter, argument in zip(positional, call.args, strict=False):
        values[parameter.arg].append(argument)
    if arguments.vararg is not None and len(call.args) > len(positional):
        values[arguments.vararg.arg].append(None)
    for keyword in call.keywords:
        values[keyword.arg or ""].append(keyword.value)
