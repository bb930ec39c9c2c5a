"""Whole-module facts the Python front end needs before lowering: constants, collection
kinds, adjacency structures and the program's functions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from complexity_model.static._library import PYTHON_READS

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

_HASHED_CALLS = frozenset({"set", "dict", "Counter", "defaultdict", "frozenset", "OrderedDict"})
_GROWING_METHODS = frozenset({"append", "add", "appendleft", "extend", "insert"})
_LIST_CALLS = frozenset({"list", "sorted", "range", "tuple"})
# Special methods that run where the program calls them by name or only for display.
_EXPLICIT_DUNDERS = frozenset({"__init__", "__new__", "__repr__", "__str__", "__format__"})


def const_value(node: ast.expr, constants: dict[str, float]) -> float | None:
    """The numeric value of ``node`` when it only involves literals and constant names."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = const_value(node.operand, constants)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1:
        if node.func.id in {"int", "float", "abs"}:
            return const_value(node.args[0], constants)
    if isinstance(node, ast.BinOp):
        left = const_value(node.left, constants)
        right = const_value(node.right, constants)
        if left is None or right is None:
            return None
        return _binary(node.op, left, right)
    return None


def _binary(op: ast.operator, left: float, right: float) -> float | None:
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div | ast.FloorDiv) and right:
            return left / right
        if isinstance(op, ast.Mod) and right:
            return left % right
        if isinstance(op, ast.Pow) and abs(right) <= 64:
            return float(left**right)
        if isinstance(op, ast.LShift) and 0 <= right <= 64:
            return left * 2**right
        if isinstance(op, ast.RShift) and 0 <= right <= 64:
            return left / 2**right
    except (OverflowError, ZeroDivisionError, TypeError):
        return None
    return None


def call_name(node: ast.expr) -> str:
    """``f`` for ``f(...)``, ``m`` for ``x.m(...)`` and ``a.b.m(...)``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def reads_input(node: ast.expr) -> bool:
    """Whether ``node`` is a direct read such as ``input().split()`` or ``stdin.readline()``."""
    while isinstance(node, ast.Call | ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Call) and call_name(node.func) in PYTHON_READS:
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return False


def base_name(node: ast.expr) -> str:
    """The variable at the root of ``a``, ``a[i]``, ``a.b[i].c``."""
    while isinstance(node, ast.Subscript | ast.Attribute | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


@dataclass
class PythonFacts:
    constants: dict[str, float] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    adjacency: set[str] = field(default_factory=set)
    functions: dict[str, list[_Definition]] = field(default_factory=dict)
    constructors: dict[str, ast.FunctionDef] = field(default_factory=dict)
    """Class name -> its ``__init__``: calling the class runs it."""
    special_methods: dict[str, list[ast.FunctionDef]] = field(default_factory=dict)
    """Class name -> the methods Python calls implicitly (operators, comparisons, iteration)."""
    classes: set[str] = field(default_factory=set)
    filled: set[str] = field(default_factory=set)
    # Names bound exactly once, to this value: their size is the value's size.
    single_values: dict[str, ast.expr] = field(default_factory=dict)
    parameters: set[str] = field(default_factory=set)
    """Names of the functions' parameters; a list when annotated so (or when not annotated at
    all: ``x in nums`` on an input list is a scan), hashed when annotated as a dict or set."""

    @classmethod
    def collect(cls, tree: ast.Module) -> PythonFacts:
        facts = cls()
        assigned: dict[str, list[ast.expr | None]] = {}
        annotations: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                facts.functions.setdefault(node.name, []).append(node)
                for arg in node.args.args:
                    assigned.setdefault(arg.arg, []).append(None)
                    facts.parameters.add(arg.arg)
                    annotated = _annotated_kind(arg.annotation)
                    if annotated:
                        annotations.setdefault(arg.arg, annotated)
            elif isinstance(node, ast.ClassDef):
                facts.classes.add(node.name)
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                        facts.constructors[node.name] = item
                    elif isinstance(item, ast.FunctionDef) and _is_special(item.name):
                        facts.special_methods.setdefault(node.name, []).append(item)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    facts._bind(target, node.value, assigned)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                facts._bind(node.target, None, assigned)
            elif isinstance(node, ast.For | ast.comprehension):
                facts._bind(node.target, None, assigned)
            elif isinstance(node, ast.NamedExpr):
                facts._bind(node.target, None, assigned)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in _GROWING_METHODS:
                    facts.filled.add(base_name(node.func.value))
                    if isinstance(node.func.value, ast.Subscript):
                        facts.adjacency.add(base_name(node.func.value))
        for name, values in assigned.items():
            facts._settle(name, values)
        for name, kind in annotations.items():
            facts.kinds.setdefault(name, kind)
        return facts

    def _bind(
        self, target: ast.expr, value: ast.expr | None, assigned: dict[str, list[ast.expr | None]]
    ) -> None:
        if isinstance(target, ast.Name):
            assigned.setdefault(target.id, []).append(value)
            if isinstance(value, ast.Lambda):
                self.functions.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Tuple | ast.List):
            values = value.elts if isinstance(value, ast.Tuple | ast.List) else None
            for index, element in enumerate(target.elts):
                element_value = values[index] if values and index < len(values) else None
                self._bind(element, element_value, assigned)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None, assigned)

    def _settle(self, name: str, values: list[ast.expr | None]) -> None:
        if len(values) == 1 and values[0] is not None:
            self.single_values[name] = values[0]
        numbers = [const_value(v, self.constants) if v is not None else None for v in values]
        if numbers and all(number is not None for number in numbers):
            self.constants[name] = max(abs(number) for number in numbers if number is not None)
        for value in values:
            kind = self.kind_of(value)
            if kind == "constant_list" and name in self.filled:
                kind = "list"
            if kind:
                self.kinds.setdefault(name, kind)

    def kind_of(self, value: ast.expr | None) -> str:
        if value is None:
            return ""
        if isinstance(value, ast.Set | ast.Dict | ast.SetComp | ast.DictComp):
            return "hashed"
        if isinstance(value, ast.List | ast.ListComp | ast.Tuple):
            return "constant_list" if _is_literal_collection(value) else "list"
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return "constant_str"
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
            return "list"
        if isinstance(value, ast.Call):
            name = call_name(value.func)
            if name in _HASHED_CALLS:
                return "hashed"
            if name in _LIST_CALLS or name in {"split", "input", "raw_input", "str"}:
                return "list"
            if name == "deque":
                return "deque"
            if name in self.classes:
                return f"instance:{name}"
        if isinstance(value, ast.Attribute) and value.attr.startswith("ascii_"):
            return "constant_str"
        return ""


_LIST_ANNOTATIONS = frozenset({"List", "list", "Sequence", "Tuple", "tuple", "str", "Iterable"})
_HASHED_ANNOTATIONS = frozenset(
    {"Dict", "dict", "Set", "set", "FrozenSet", "frozenset", "Mapping", "DefaultDict", "Counter"}
)


def _annotated_kind(annotation: ast.expr | None) -> str:
    """ "list" or "hashed" for ``List[int]``, ``dict`` and the like; '' otherwise."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    name = annotation.attr if isinstance(annotation, ast.Attribute) else ""
    name = annotation.id if isinstance(annotation, ast.Name) else name
    if name in _LIST_ANNOTATIONS:
        return "list"
    return "hashed" if name in _HASHED_ANNOTATIONS else ""


def _is_special(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and name not in _EXPLICIT_DUNDERS


def _is_literal_collection(node: ast.expr) -> bool:
    if isinstance(node, ast.List | ast.Tuple):
        return (
            0 < len(node.elts) <= 64
            and all(
                isinstance(e, ast.Constant | ast.Name | ast.UnaryOp | ast.Tuple | ast.List)
                for e in node.elts
            )
            and all(not isinstance(e, ast.Starred) for e in node.elts)
        )
    return False
