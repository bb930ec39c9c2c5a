"""How many times a Java or C++ loop runs: counted ``for`` loops by their condition and update,
range loops by their collection, ``while`` loops by how their condition variables change."""

from __future__ import annotations

from tree_sitter import Node

from complexity_model.static._cost import CONSTANT, EXPONENTIAL, LINEAR, LOG, SQRT, Cost
from complexity_model.static._ir import Bound
from complexity_model.static._library import CONSTANT_LOOP_LIMIT, JAVA_POP_METHODS
from complexity_model.static._ts_facts import (
    TreeFacts,
    base_name,
    call_parts,
    const_value,
    operator,
    text,
    unwrap,
    walk,
)

_COMPARISONS = frozenset({"<", "<=", ">", ">=", "!="})
_SIZE_METHODS = frozenset({"length", "size", "count", "length()"})
_DIGIT_CALLS = frozenset({"toString", "valueOf", "toBinaryString", "to_string"})
# Calls whose value is about log n of their argument: a bound of ``Math.log(n) / Math.log(2)``
# or ``32 - Integer.numberOfLeadingZeros(n)`` steps is logarithmic.
_LOG_CALLS = frozenset(
    {
        "bitCount",
        "numberOfTrailingZeros",
        "numberOfLeadingZeros",
        "bitLength",
        "__lg",
        "log2",
        "log",
        "log10",
        "log1p",
        "__builtin_clz",
        "__builtin_clzll",
        "__builtin_ctz",
        "__builtin_ctzll",
        "__builtin_popcount",
        "__builtin_popcountll",
        "bit_width",
    }
)


def _expression_of(node: Node | None) -> Node | None:
    if node is not None and node.type == "condition_clause":
        value = node.child_by_field_name("value")
        return (
            value
            if value is not None
            else (node.named_children[0] if node.named_children else None)
        )
    return unwrap(node)


class TreeBoundReader:
    def __init__(self, facts: TreeFacts) -> None:
        self.facts = facts
        self.loop_variables: list[set[str]] = []
        self.fresh: list[set[str]] = []
        self._depth = 0

    def is_fresh(self, node: Node | None) -> bool:
        if not self.fresh or node is None:
            return False
        return base_name(node) in self.fresh[-1]

    def _constant(self, node: Node | None) -> float | None:
        return const_value(node, self.facts.constants)

    def size(self, node: Node | None) -> Cost:
        node = unwrap(node)
        if node is None:
            return LINEAR
        value = self._constant(node)
        if value is not None:
            return CONSTANT if abs(value) <= CONSTANT_LOOP_LIMIT else LINEAR
        kind = node.type
        if kind == "binary_expression":
            return self._binary_size(node)
        if kind == "unary_expression":
            operand = node.named_children[-1] if node.named_children else None
            return self.size(operand)
        if kind in {"method_invocation", "call_expression"}:
            return self._call_size(node)
        if kind == "identifier":
            single = self.facts.single_values.get(text(node))
            if (
                single is not None
                and single.type in {"binary_expression", "method_invocation", "call_expression"}
                and self._depth < 4
            ):
                self._depth += 1
                try:
                    return self.size(single)
                finally:
                    self._depth -= 1
            return LINEAR
        if kind in {"field_access", "field_expression"} and text(node).endswith(".length"):
            return CONSTANT if base_name(node) in self.facts.constant_arrays else LINEAR
        if kind == "ternary_expression" or kind == "conditional_expression":
            parts = node.named_children[1:]
            return max((self.size(part) for part in parts), default=LINEAR)
        return LINEAR

    def _binary_size(self, node: Node) -> Cost:
        op = operator(node)
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        right_const = self._constant(right) is not None
        if op == "<<":
            return self.size(left) if right_const else EXPONENTIAL
        if op == "*":
            return self.size(left) * self.size(right)
        if op in {"/", ">>", ">>>", "%"}:
            divisor = unwrap(right)
            if (
                divisor is not None
                and divisor.type == "identifier"
                and any(text(divisor) in names for names in self.loop_variables)
            ):
                return LOG
            return self.size(left)
        if op in {"&&", "||", "&", "|", "^"}:
            return self.size(left) | self.size(right)
        return self.size(left) | self.size(right)

    def _call_size(self, node: Node) -> Cost:
        name, receiver = call_parts(node)
        args = node.child_by_field_name("arguments")
        values = list(args.named_children) if args is not None else []
        if name in {"sqrt", "cbrt", "isqrt", "sqrtl"}:
            return SQRT
        if name == "pow" and len(values) == 2:
            if self._constant(values[0]) is not None and self._constant(values[1]) is None:
                return EXPONENTIAL
            exponent = self._constant(values[1])
            if exponent is not None and 1 <= exponent <= 3:
                return self.size(values[0]) ** int(exponent)
            return self.size(values[0])
        if name == "min" and len(values) >= 2:
            return min(self.size(value) for value in values)
        if name == "max" and len(values) >= 2:
            return max(self.size(value) for value in values)
        if name in {"abs", "round", "floor", "ceil", "parseInt", "parseLong"} and values:
            return self.size(values[0])
        if name in _SIZE_METHODS and receiver is not None:
            if base_name(receiver) in self.facts.constant_arrays:
                return CONSTANT
            if receiver.type in {"method_invocation", "call_expression"}:
                inner, _ = call_parts(receiver)
                if inner in _DIGIT_CALLS:
                    return LOG
            return LINEAR
        if name in _LOG_CALLS:
            return LOG
        return LINEAR

    def for_bound(self, node: Node) -> Bound:
        """A counted ``for (init; condition; update)``."""
        condition = _expression_of(node.child_by_field_name("condition"))
        updates = [c for c in node.children_by_field_name("update")]
        init = node.child_by_field_name("init") or node.child_by_field_name("initializer")
        header = (
            f"for ({text(init).rstrip(';')}; {text(condition)}; {', '.join(map(text, updates))})"
        )
        if condition is None:
            return Bound(LINEAR, f"guess: {header} (runs until a break)")
        steps = {
            name: kind for update in updates for name, kind in _update_kinds(update, set()).items()
        }
        for name, kind in steps.items():
            if kind in {"halve", "double"} and name in _identifiers(condition):
                return Bound(LOG, f"{header} (multiplies the counter)")
        starts = _initial_values(init)
        for comparison in _comparisons(condition):
            bound = self._comparison_bound(comparison, steps, starts, header, updates)
            if bound is not None:
                return bound
        return Bound(LINEAR, f"guess: {header}")

    def _comparison_bound(
        self,
        comparison: Node,
        steps: dict[str, str],
        starts: dict[str, Node],
        header: str,
        updates: list[Node],
    ) -> Bound | None:
        left, right = (
            comparison.child_by_field_name("left"),
            comparison.child_by_field_name("right"),
        )
        for counter_side, limit in ((left, right), (right, left)):
            counter_names = _identifiers(counter_side)
            counters = [name for name in counter_names if name in steps]
            if not counters or limit is None:
                continue
            counter = counters[0]
            if _squares(counter_side, counter):
                return Bound(SQRT, f"{header} (up to the square root)")
            step = _step_node(updates, counter)
            if step is not None and self._constant(step) is None:
                inner = unwrap(step)
                if (
                    inner is not None
                    and inner.type == "identifier"
                    and any(text(inner) in names for names in self.loop_variables)
                ):
                    return Bound(LOG, f"{header} (step grows with the outer loop: harmonic)")
            start = starts.get(counter)
            if limit.type == "identifier" and text(limit) in starts:
                limit = starts[text(limit)]  # for (i = 0, end = 1 << n; i < end; i++)
            limit_value = self._constant(limit)
            start_value = self._constant(start) if start is not None else None
            if start is not None and _offset(limit, start, self):
                return Bound(CONSTANT, f"{header} (fixed width)")
            if limit_value is not None and start is not None and start_value is None:
                counting_up = steps[counter] == "up"
                if counting_up:
                    return Bound(self.size(limit), header)
                return Bound(self.size(start), header, amortised=self.is_fresh(start))
            if limit_value is not None and start_value is not None:
                width = abs(limit_value - start_value)
                return Bound(CONSTANT if width <= CONSTANT_LOOP_LIMIT else LINEAR, header)
            cost = self.size(limit)
            if start is not None and start_value is None and steps[counter] == "down":
                cost = cost | self.size(start)
            return Bound(cost, header, amortised=self._fresh_limit(limit))
        return None

    def _fresh_limit(self, node: Node) -> bool:
        limit = unwrap(node)
        if limit is None:
            return False
        if limit.type in {"method_invocation", "call_expression"}:
            _, receiver = call_parts(limit)
            return self.is_fresh(receiver)
        return self.is_fresh(limit)

    def iteration(self, value: Node | None) -> Bound:
        """Iterations of ``for (x : value)``."""
        shown = text(value)
        node = unwrap(value)
        if node is None:
            return Bound(LINEAR, shown)
        root = base_name(node)
        if node.type in {"array_initializer", "initializer_list"} or root in (
            self.facts.constant_arrays
        ):
            return Bound(CONSTANT, shown)
        if root in self.facts.adjacency and node.type in {
            "array_access",
            "subscript_expression",
            "method_invocation",
            "call_expression",
        }:
            return Bound(LINEAR, f"{shown} (one adjacency row)", amortised=True)
        if self.is_fresh(node):
            return Bound(LINEAR, f"{shown} (read in this iteration)", amortised=True)
        return Bound(LINEAR, shown)

    def while_bound(self, condition: Node | None, body: Node | None) -> Bound:
        condition = _expression_of(condition)
        shown = f"while ({text(condition)})"
        if condition is None:
            return Bound(LINEAR, f"guess: {shown}")
        if text(condition) in {"true", "1"}:
            return Bound(LINEAR, f"guess: {shown} (runs until a break)")
        names = _identifiers(condition)
        updates: dict[str, set[str]] = {}
        midpoints = midpoint_names(body) if body is not None else set()
        copies: list[tuple[str, str]] = []
        for scope in (condition, body):
            if scope is None:
                continue
            for node in walk(scope):
                for name, kind in _update_kinds(node, midpoints).items():
                    updates.setdefault(name, set()).add(kind)
                copied = _copy(node)
                if copied is not None:
                    copies.append(copied)
                temporary = _shrinking_temporary(node)
                if temporary:
                    updates.setdefault(temporary, set()).add("mod")
                if node.type in {"method_invocation", "call_expression"}:
                    method, receiver = call_parts(node)
                    if method in JAVA_POP_METHODS and receiver is not None:
                        updates.setdefault(base_name(receiver), set()).add("pop")
        for name, source in copies:
            # t = a % b; a = b; b = t (Euclid with a temporary): b shrinks as t does.
            updates.setdefault(name, set()).update(updates.get(source, set()) & {"halve", "mod"})
        for name in names:
            kinds = updates.get(name, set())
            if kinds & {"halve", "double", "mod"}:
                return Bound(LOG, f"{shown} ({name} halves or doubles)")
            if "midpoint" in kinds or name in midpoints:
                return Bound(LOG, f"{shown} (binary search)")
        if any(_squares(condition, name) for name in names):
            return Bound(SQRT, f"{shown} (up to the square root)")
        for name in names:
            if "pop" in updates.get(name, set()):
                return Bound(LINEAR, f"{shown} (work list)", amortised=True, worklist=name)
        marked = _marked(condition, body)
        if marked:
            return Bound(
                LINEAR, f"{shown} (marks each element it visits)", amortised=True, worklist=marked
            )
        stepped = [name for name in names if updates.get(name, set()) & {"up", "down"}]
        pointers = frozenset(stepped)
        if stepped:
            for comparison in _comparisons(condition):
                sides = [
                    comparison.child_by_field_name("left"),
                    comparison.child_by_field_name("right"),
                ]
                others = [
                    side
                    for side in sides
                    if side is not None and not (_identifiers(side) & set(stepped))
                ]
                if len(others) == 1 and self._constant(others[0]) is None:
                    return Bound(self.size(others[0]), shown, pointers=pointers)
            return Bound(LINEAR, shown, pointers=pointers)
        return Bound(LINEAR, f"guess: {shown}")


_MARKS = frozenset(
    {"decimal_integer_literal", "number_literal", "unary_expression", "true", "false"}
)


def _marked(condition: Node, body: Node | None) -> str:
    """The array a ``while`` loop tests at one element and marks there with a constant
    (``while (a[x] != -1) { ...; a[x] = -1; }``): each element is visited once across all its
    runs unless the array is made afresh. '' otherwise."""
    tested = {text(node): base_name(node) for node in walk(condition) if node.type in _SUBSCRIPTS}
    for node in walk(body) if body is not None else []:
        if node.type == "assignment_expression" and operator(node) == "=":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None and right.type in _MARKS:
                if left.type in _SUBSCRIPTS and base_name(left) in tested.values():
                    return base_name(left)
    return ""


_SUBSCRIPTS = frozenset({"array_access", "subscript_expression"})


def _identifiers(node: Node | None) -> set[str]:
    if node is None:
        return set()
    return {text(n) for n in walk(node) if n.type == "identifier"}


def _comparisons(condition: Node) -> list[Node]:
    return [
        n for n in walk(condition) if n.type == "binary_expression" and operator(n) in _COMPARISONS
    ]


def _squares(node: Node | None, name: str) -> bool:
    if node is None:
        return False
    for inner in walk(node):
        if inner.type == "binary_expression" and operator(inner) == "*":
            left = unwrap(inner.child_by_field_name("left"))
            right = unwrap(inner.child_by_field_name("right"))
            if text(left) == text(right) == name:
                return True
    return False


def _offset(limit: Node, start: Node, reader: TreeBoundReader) -> bool:
    limit = unwrap(limit) or limit
    if limit.type == "binary_expression" and operator(limit) in {"+", "-"}:
        left, right = limit.child_by_field_name("left"), limit.child_by_field_name("right")
        value = reader._constant(right)
        return (
            text(left) == text(unwrap(start))
            and value is not None
            and abs(value) <= CONSTANT_LOOP_LIMIT
        )
    return False


def _initial_values(init: Node | None) -> dict[str, Node]:
    found: dict[str, Node] = {}
    if init is None:
        return found
    for node in walk(init):
        if node.type in {"variable_declarator", "init_declarator"}:
            name_node = node.child_by_field_name("name") or node.child_by_field_name("declarator")
            value = node.child_by_field_name("value")
            if name_node is not None and value is not None:
                found[text(name_node)] = value
        elif node.type == "assignment_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                found[text(left)] = right
    return found


def _step_node(updates: list[Node], counter: str) -> Node | None:
    """The step of ``counter += step`` or ``counter = counter + step``."""
    for update in updates:
        if (
            update.type != "assignment_expression"
            or text(update.child_by_field_name("left")) != counter
        ):
            continue
        right = update.child_by_field_name("right")
        if operator(update) in {"+=", "-="}:
            return right
        right = unwrap(right)
        if operator(update) == "=" and right is not None and right.type == "binary_expression":
            left_operand, right_operand = (
                right.child_by_field_name("left"),
                right.child_by_field_name("right"),
            )
            if text(left_operand) == counter:
                return right_operand
            if text(right_operand) == counter:
                return left_operand
    return None


def _copy(node: Node) -> tuple[str, str] | None:
    """(target, source) of ``a = b`` between two plain variables."""
    if node.type != "assignment_expression" or operator(node) != "=":
        return None
    left, right = node.child_by_field_name("left"), unwrap(node.child_by_field_name("right"))
    if left is None or right is None or left.type != "identifier" or right.type != left.type:
        return None
    return text(left), text(right)


def _shrinking_temporary(node: Node) -> str:
    """The name declared by ``long t = a % b;`` (or ``/ 2``): a value smaller than its source."""
    if node.type not in {"variable_declarator", "init_declarator"}:
        return ""
    value = node.child_by_field_name("value")
    if value is None or not any(
        inner.type == "binary_expression" and operator(inner) in {"%", "/", ">>"}
        for inner in walk(value)
    ):
        return ""
    return text(node.child_by_field_name("name") or node.child_by_field_name("declarator"))


def _update_kinds(node: Node, midpoints: set[str]) -> dict[str, str]:
    """How ``node`` changes a variable: up, down, halve, double, mod or midpoint."""
    if node.type == "update_expression":
        target = node.named_children[0] if node.named_children else None
        if target is not None and target.type == "identifier":
            return {text(target): "down" if "--" in text(node) else "up"}
        return {}
    if node.type != "assignment_expression":
        return {}
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or left.type != "identifier" or right is None:
        return {}
    name, op = text(left), operator(node)
    if op in {"/=", ">>=", ">>>=", "&=", "|="}:
        return {name: "halve"}
    if op in {"*=", "<<="}:
        return {name: "double"}
    if op == "%=":
        return {name: "mod"}
    if op in {"+=", "-="}:
        if any(n.type == "binary_expression" and operator(n) == "&" for n in walk(right)):
            return {name: "halve"}  # i += i & -i: a Fenwick tree walk, one step per bit
        if any(
            n.type == "binary_expression"
            and operator(n) in {"<<", "*"}
            and name not in _identifiers(n)
            and _identifiers(n)
            for n in walk(right)
        ):
            return {name: "up"}
        return {name: "up" if op == "+=" else "down"}
    names = _identifiers(right)
    if names & midpoints or is_midpoint(right):
        return {name: "midpoint"}
    for inner in walk(right):
        if inner.type == "binary_expression":
            inner_op = operator(inner)
            if inner_op in {"/", ">>", ">>>"}:
                return {name: "halve"}
            if inner_op == "%":
                return {name: "mod"}
            if inner_op in {"*", "<<"} and name in names:
                return {name: "double"}
    return {name: "up"}


def is_midpoint(node: Node | None) -> bool:
    node = unwrap(node)
    if node is None or node.type != "binary_expression":
        return False
    op = operator(node)
    if op in {"/", ">>", ">>>"}:
        left = unwrap(node.child_by_field_name("left"))
        return (
            left is not None and left.type == "binary_expression" and operator(left) in {"+", "-"}
        )
    if op in {"+", "-"}:
        return is_midpoint(node.child_by_field_name("right")) or is_midpoint(
            node.child_by_field_name("left")
        )
    return False


def midpoint_names(scope: Node | None) -> set[str]:
    found: set[str] = set()
    if scope is None:
        return found
    for node in walk(scope):
        if node.type in {"variable_declarator", "init_declarator"}:
            if is_midpoint(node.child_by_field_name("value")):
                found.add(
                    text(node.child_by_field_name("name") or node.child_by_field_name("declarator"))
                )
        elif node.type == "assignment_expression" and is_midpoint(
            node.child_by_field_name("right")
        ):
            found.add(text(node.child_by_field_name("left")))
    return found
