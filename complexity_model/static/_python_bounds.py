"""How many times a Python loop runs: ``for`` over ranges and collections, ``while`` loops by
how their condition variables change."""

from __future__ import annotations

import ast

from complexity_model.static._cost import CONSTANT, EXPONENTIAL, LINEAR, LOG, SQRT, Cost
from complexity_model.static._ir import Bound
from complexity_model.static._library import (
    CONSTANT_LOOP_LIMIT,
    PYTHON_EXPONENTIAL_ITERATORS,
    PYTHON_POPS,
    PYTHON_READS,
)
from complexity_model.static._python_facts import PythonFacts, base_name, call_name, const_value

_PASS_THROUGH = frozenset(
    {
        "enumerate",
        "reversed",
        "sorted",
        "list",
        "tuple",
        "set",
        "iter",
        "zip",
        "map",
        "filter",
        "items",
        "keys",
        "values",
        "groupby",
        "accumulate",
        "split",
        "strip",
        "rstrip",
        "deque",
    }
)
_DIGITS = frozenset({"str", "bin", "hex", "oct"})
_STRING_TRIMS = frozenset({"zfill", "rjust", "ljust", "lstrip", "rstrip", "strip"})
_SQRT_CALLS = frozenset({"sqrt", "isqrt"})


class BoundReader:
    def __init__(self, facts: PythonFacts) -> None:
        self.facts = facts
        # Variables of the loops around the expression being read (for harmonic steps).
        self.loop_variables: list[set[str]] = []
        # Names read from the input inside each enclosing loop's current iteration.
        self.fresh: list[set[str]] = []
        self._depth = 0

    def is_fresh(self, node: ast.expr) -> bool:
        """Whether ``node`` is (the length of) data read in the innermost loop's iteration."""
        if not self.fresh:
            return False
        if isinstance(node, ast.Call) and call_name(node.func) == "len" and node.args:
            node = node.args[0]
        while isinstance(node, ast.Subscript | ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.fresh[-1]

    def _enclosing(self, name: str) -> bool:
        return any(name in names for names in self.loop_variables)

    def size(self, node: ast.expr) -> Cost:
        """The growth of a size expression such as ``n``, ``len(a) - 1``, ``n * m``, ``1 << n``."""
        value = const_value(node, self.facts.constants)
        if value is not None:
            return CONSTANT if abs(value) <= CONSTANT_LOOP_LIMIT else LINEAR
        if isinstance(node, ast.BinOp):
            return self._binary_size(node)
        if isinstance(node, ast.UnaryOp):
            return self.size(node.operand)
        if isinstance(node, ast.Call):
            return self._call_size(node)
        if isinstance(node, ast.Name) and self.facts.kinds.get(node.id, "").startswith("constant"):
            return CONSTANT
        single = self.facts.single_values.get(node.id) if isinstance(node, ast.Name) else None
        if single is not None and isinstance(single, ast.BinOp | ast.Call) and self._depth < 4:
            self._depth += 1
            try:
                return self.size(single)
            finally:
                self._depth -= 1
        if isinstance(node, ast.IfExp):
            return self.size(node.body) | self.size(node.orelse)
        return LINEAR

    def _binary_size(self, node: ast.BinOp) -> Cost:
        constants = self.facts.constants
        left_const = const_value(node.left, constants) is not None
        right_const = const_value(node.right, constants) is not None
        if isinstance(node.op, ast.LShift) or (
            isinstance(node.op, ast.Pow) and left_const and not right_const
        ):
            return EXPONENTIAL if not right_const else self.size(node.left)
        if isinstance(node.op, ast.Pow):
            exponent = const_value(node.right, constants)
            if exponent is not None and 0 < exponent < 1:
                return SQRT
            if exponent is None:
                return EXPONENTIAL
            return self.size(node.left) ** int(min(max(exponent, 1), 3))
        if isinstance(node.op, ast.Mult):
            return self.size(node.left) * self.size(node.right)
        if isinstance(node.op, ast.FloorDiv | ast.Div | ast.RShift | ast.Mod):
            if isinstance(node.right, ast.Name) and self._enclosing(node.right.id):
                return LOG  # n // i summed over i is n log n: harmonic.
            return self.size(node.left)
        return self.size(node.left) | self.size(node.right)

    def _call_size(self, node: ast.Call) -> Cost:
        name = call_name(node.func)
        args = node.args
        if name in {"int", "abs", "ceil", "floor", "round", "float"} and args:
            return self.size(args[0])
        if name in _SQRT_CALLS:
            return SQRT
        if name == "pow" and len(args) >= 2:
            base = const_value(args[0], self.facts.constants)
            exponent = const_value(args[1], self.facts.constants)
            if base is not None and exponent is None:
                return EXPONENTIAL
            if exponent is not None and 1 <= exponent <= 3:
                return self.size(args[0]) ** int(exponent)
            return self.size(args[0])
        if name == "min" and len(args) >= 2:
            return min(self.size(arg) for arg in args)
        if name == "max" and len(args) >= 2:
            return max(self.size(arg) for arg in args)
        if name == "len" and args:
            return self.iteration(args[0]).cost
        if name in {"bit_length", "bit_count", "log", "log2", "log10", "log1p"}:
            return LOG
        return LINEAR

    def range_bound(self, node: ast.Call) -> Bound:
        args = node.args
        text = ast.unparse(node)
        if len(args) == 1:
            return Bound(self.size(args[0]), text, amortised=self.is_fresh(args[0]))
        if len(args) < 2:
            return Bound(LINEAR, f"guess: {text}")
        start, stop = args[0], args[1]
        step = args[2] if len(args) > 2 else None
        if step is not None and const_value(step, self.facts.constants) is None:
            if isinstance(step, ast.Name) and self._enclosing(step.id):
                return Bound(LOG, f"{text} (step grows with the outer loop: harmonic)")
            return Bound(self.size(stop) | self.size(start), text)
        step_value = const_value(step, self.facts.constants) if step is not None else 1.0
        if _offset_of(stop, start, self.facts) or _offset_of(start, stop, self.facts):
            return Bound(CONSTANT, f"{text} (fixed width)")
        start_value = const_value(start, self.facts.constants)
        stop_value = const_value(stop, self.facts.constants)
        if start_value is not None and stop_value is not None:
            width = abs(stop_value - start_value)
            return Bound(CONSTANT if width <= CONSTANT_LOOP_LIMIT else LINEAR, text)
        counting_up = step_value is None or step_value > 0
        # Counting up to a small literal, or down to one, takes at most that literal's steps.
        if counting_up and stop_value is not None:
            return Bound(self.size(stop), text)
        if not counting_up and start_value is not None:
            return Bound(self.size(start), text)
        return Bound(self.size(stop) | self.size(start), text)

    def iteration(self, node: ast.expr) -> Bound:
        """Iterations of ``for x in node``."""
        text = ast.unparse(node)
        if isinstance(node, ast.Call):
            name = call_name(node.func)
            if name == "range":
                return self.range_bound(node)
            if name in PYTHON_EXPONENTIAL_ITERATORS:
                sources = [self.iteration(arg).cost for arg in node.args[:1]]
                if sources and sources[0] == CONSTANT and not node.keywords:
                    return Bound(CONSTANT, text)
                return Bound(EXPONENTIAL, f"{text} (enumerates subsets or orders)")
            if name in _PASS_THROUGH:
                inner = node.args[-1] if name in {"map", "filter"} and node.args else None
                if inner is None and node.args:
                    inner = node.args[0]
                if inner is None and isinstance(node.func, ast.Attribute):
                    inner = node.func.value
                if inner is not None:
                    found = self.iteration(inner)
                    return Bound(found.cost, text, found.amortised)
            if name in PYTHON_READS:
                return Bound(LINEAR, text, amortised=True)
            if name in _DIGITS:
                return Bound(LOG, f"{text} (digits of a number)")
            return Bound(LINEAR, text)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return Bound(CONSTANT if len(node.elts) <= CONSTANT_LOOP_LIMIT else LINEAR, text)
        if isinstance(node, ast.Constant):
            return Bound(CONSTANT, text)
        if self.digits(node):
            return Bound(LOG, f"{text} (digits of a number)")
        if isinstance(node, ast.Name):
            kind = self.facts.kinds.get(node.id, "")
            if kind.startswith("constant"):
                return Bound(CONSTANT, text)
            if self.is_fresh(node):
                return Bound(LINEAR, f"{text} (read in this iteration)", amortised=True)
            return Bound(LINEAR, text)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                return Bound(LINEAR, text)
            root = base_name(node)
            if root in self.facts.adjacency:
                return Bound(LINEAR, f"{text} (one adjacency row)", amortised=True)
            return Bound(LINEAR, text)
        if isinstance(node, ast.Attribute) and node.attr.startswith(("ascii_", "digits")):
            return Bound(CONSTANT, text)
        if isinstance(node, ast.BinOp):
            return Bound(self.size(node.left) | self.size(node.right), text)
        return Bound(LINEAR, text)

    def digits(self, node: ast.expr, depth: int = 0) -> bool:
        """Whether ``node`` is the digits of a number: ``bin(x)[2:]``, ``str(n).zfill(k)``, or
        a name bound once to one (a number's representation has log n characters)."""
        while True:
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                node = node.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _STRING_TRIMS
            ):
                node = node.func.value
            else:
                break
        if isinstance(node, ast.Call):
            return call_name(node.func) in _DIGITS and len(node.args) == 1
        if isinstance(node, ast.Name) and depth < 3:
            single = self.facts.single_values.get(node.id)
            return single is not None and self.digits(single, depth + 1)
        return False

    def while_bound(self, node: ast.While) -> Bound:
        test = node.test
        text = f"while {ast.unparse(test)}"
        value = const_value(test, self.facts.constants)
        if (isinstance(test, ast.Constant) and test.value) or value:
            return Bound(LINEAR, f"guess: {text} (runs until a break)")
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        updates = _updates(node.body)
        midpoints = _midpoint_names(node.body)
        for name in names:
            kinds = updates.get(name, set())
            if kinds & {"halve", "double", "mod"}:
                return Bound(LOG, f"{text} ({name} halves or doubles)")
            if "assigned_midpoint" in kinds or name in midpoints:
                return Bound(LOG, f"{text} (binary search)")
        if _squares_a_name(test):
            return Bound(SQRT, f"{text} (up to the square root)")
        collections = {
            base_name(n.args[0])
            for n in ast.walk(test)
            if isinstance(n, ast.Call) and call_name(n.func) == "len" and n.args
        }
        collections |= {
            n.id
            for n in ast.walk(test)
            if isinstance(n, ast.Name) and isinstance(test, ast.Name | ast.BoolOp | ast.UnaryOp)
        }
        for name in collections:
            if "pop" in updates.get(name, set()):
                return Bound(LINEAR, f"{text} (work list)", amortised=True, worklist=name)
        marked = _marked(test, node.body)
        if marked:
            return Bound(
                LINEAR, f"{text} (marks each element it visits)", amortised=True, worklist=marked
            )
        stepped = [name for name in names if "step" in updates.get(name, set())]
        pointers = frozenset(stepped)
        if stepped and isinstance(test, ast.Compare) and len(test.comparators) == 1:
            sides = [test.left, test.comparators[0]]
            others = [
                side for side in sides if not (isinstance(side, ast.Name) and side.id in stepped)
            ]
            if len(others) == 1 and const_value(others[0], self.facts.constants) is not None:
                counter = stepped[0]
                start = self.facts.constants.get(counter)
                if start is not None:
                    return Bound(self.size(others[0]), text, pointers=pointers)
                return Bound(LINEAR, text, pointers=pointers)
            if len(others) == 1:
                return Bound(self.size(others[0]), text, pointers=pointers)
        if stepped:
            return Bound(LINEAR, text, pointers=pointers)
        advanced = _advanced_indices(node.body)
        if advanced:
            # Each pass moves an index along a collection: at most its length passes in all,
            # and across an enclosing loop too when the index is never reset there.
            return Bound(
                LINEAR,
                f"{text} ({', '.join(sorted(advanced))} advances each pass)",
                pointers=frozenset(advanced),
            )
        return Bound(LINEAR, f"guess: {text}")


def _offset_of(stop: ast.expr, start: ast.expr, facts: PythonFacts) -> bool:
    """Whether ``stop`` is ``start`` plus or minus a constant (``range(i, i + 3)``)."""
    if isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add | ast.Sub):
        same_left = ast.dump(stop.left) == ast.dump(start)
        if same_left and const_value(stop.right, facts.constants) is not None:
            value = const_value(stop.right, facts.constants)
            return value is not None and abs(value) <= CONSTANT_LOOP_LIMIT
    return False


def _squares_a_name(test: ast.expr) -> bool:
    for node in ast.walk(test):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            if ast.dump(node.left) == ast.dump(node.right):
                return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            if isinstance(node.right, ast.Constant) and node.right.value == 2:
                return True
    return False


def _midpoint_names(body: list[ast.stmt]) -> set[str]:
    """Names assigned ``(lo + hi) // 2`` or the like in ``body``."""
    found: set[str] = set()
    for node in _walk_statements(body):
        if isinstance(node, ast.Assign) and _is_midpoint(node.value):
            found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def _is_midpoint(value: ast.expr) -> bool:
    """``(lo + hi) // 2``, or ``lo + (hi - lo) // 2``."""
    if isinstance(value, ast.Call) and call_name(value.func) == "int" and value.args:
        value = value.args[0]
    if isinstance(value, ast.BinOp):
        if isinstance(value.op, ast.FloorDiv | ast.Div | ast.RShift):
            return isinstance(value.left, ast.BinOp) and isinstance(
                value.left.op, ast.Add | ast.Sub
            )
        if isinstance(value.op, ast.Add):
            return _is_midpoint(value.right) or _is_midpoint(value.left)
    return False


def _walk_statements(body: list[ast.stmt]) -> list[ast.AST]:
    nodes: list[ast.AST] = []
    for stmt in body:
        nodes.extend(ast.walk(stmt))
    return nodes


def _marked(test: ast.expr, body: list[ast.stmt]) -> str:
    """The array a ``while`` loop tests at an element and marks with a constant as it goes
    (``while a[x] != -1: ...; a[x] = -1``, ``while not seen[v]: seen[v] = True``): each
    element is visited once across all its runs, unless the array is made afresh. ''
    otherwise."""
    tested = {
        ast.unparse(node): base_name(node)
        for node in ast.walk(test)
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice)
    }
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant | ast.UnaryOp):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and base_name(target) in tested.values():
                        return base_name(target)
    return ""


def _updates(body: list[ast.stmt]) -> dict[str, set[str]]:
    """How the loop body changes each name: halve, double, mod, step, pop, assigned_midpoint."""
    found: dict[str, set[str]] = {}
    midpoints = _midpoint_names(body)
    for node in _walk_statements(body):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            kind = _aug_kind(node)
            if kind == "step" and _grows_geometrically(node.value):
                kind = "double"
            found.setdefault(node.target.id, set()).add(kind)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _record_assignment(target, node.value, midpoints, found)
        elif isinstance(node, ast.Call) and call_name(node.func) in PYTHON_POPS:
            owner = (
                node.args[0]
                if call_name(node.func) == "heappop" and node.args
                else getattr(node.func, "value", None)
            )
            if owner is not None:
                found.setdefault(base_name(owner), set()).add("pop")
    return found


def _advanced_indices(body: list[ast.stmt]) -> set[str]:
    """Names every pass steps by a constant (``left += 1`` in the body itself, not in a branch)
    and that index a collection in the body."""
    stepped = {
        stmt.target.id
        for stmt in body
        if isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and isinstance(stmt.op, ast.Add | ast.Sub)
        and isinstance(stmt.value, ast.Constant)
    }
    indices = {
        n.id
        for stmt in body
        for sub in ast.walk(stmt)
        if isinstance(sub, ast.Subscript)
        for n in ast.walk(sub.slice)
        if isinstance(n, ast.Name)
    }
    return stepped & indices


def _grows_geometrically(value: ast.expr) -> bool:
    """An increment such as ``9 * 10 ** k``: the sum grows geometrically with ``k``."""
    return any(
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow | ast.LShift)
        and not isinstance(node.right, ast.Constant)
        for node in ast.walk(value)
    )


def _aug_kind(node: ast.AugAssign) -> str:
    if isinstance(node.op, ast.FloorDiv | ast.Div | ast.RShift | ast.BitAnd | ast.BitOr):
        return "halve"
    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitAnd) for n in ast.walk(node.value)):
        return "halve"  # i += i & -i: a Fenwick tree walk, one step per bit
    if isinstance(node.op, ast.Mult | ast.LShift | ast.Pow):
        return "double"
    if isinstance(node.op, ast.Mod):
        return "mod"
    return "step"


def _record_assignment(
    target: ast.expr, value: ast.expr, midpoints: set[str], found: dict[str, set[str]]
) -> None:
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        for sub_target, sub_value in zip(target.elts, value.elts, strict=False):
            _record_assignment(sub_target, sub_value, midpoints, found)
        return
    if not isinstance(target, ast.Name):
        return
    kinds = found.setdefault(target.id, set())
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    if names & midpoints or _is_midpoint(value):
        kinds.add("assigned_midpoint")
    for node in ast.walk(value):
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.FloorDiv | ast.Div | ast.RShift):
                kinds.add("halve")
            elif isinstance(node.op, ast.Mod):
                kinds.add("mod")
            elif isinstance(node.op, ast.Mult | ast.LShift) and target.id in names:
                kinds.add("double")
            elif isinstance(node.op, ast.Add | ast.Sub) and target.id in names:
                kinds.add("step")
    if not kinds:
        kinds.add("step")
