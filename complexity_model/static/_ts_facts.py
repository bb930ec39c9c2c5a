"""Tree-sitter helpers and whole-file facts for the Java and C++ front ends: constants,
declared types, adjacency structures, functions and input/output helper classes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from tree_sitter import Node

_NUMBER = re.compile(r"^(0[xX][0-9a-fA-F]+|[0-9][0-9_]*\.?[0-9_]*(?:[eE][+-]?[0-9]+)?)[lLuUfFdD]*$")
# Helper classes that read or write: calls to their methods are input or output.
_IO_CLASS = re.compile(
    r"reader|scanner|writer|input|output|kattio|tokenizer|printer|^fs$|"
    r"^io$|fastio|^in$|^out$|stream",
    re.IGNORECASE,
)
_CPP_DEFINE = re.compile(
    r"^\s*#\s*define\s+(\w+)\s+\(?\s*([0-9][0-9eE+.xX]*)[lLuU]*\s*\)?\s*$", re.MULTILINE
)

FUNCTION_TYPES = frozenset({"method_declaration", "function_definition", "constructor_declaration"})
CLASS_TYPES = frozenset(
    {
        "class_declaration",
        "struct_specifier",
        "class_specifier",
        "enum_declaration",
        "interface_declaration",
        "record_declaration",
    }
)


def text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def walk(node: Node, skip: frozenset[str] = frozenset()) -> Iterator[Node]:
    """Every named node under ``node`` (itself included) in document order, leaving out the
    nodes of ``skip`` types below it and what they hold."""
    yield node
    # A tree cursor makes no list of children per node: this walk is a third of the analyser.
    cursor = node.walk()
    if not cursor.goto_first_child():
        return
    depth = 1
    while True:
        current = cursor.node
        if current is not None and current.is_named and current.type not in skip:
            yield current
            if cursor.goto_first_child():
                depth += 1
                continue
        while not cursor.goto_next_sibling():
            cursor.goto_parent()
            depth -= 1
            if depth == 0:
                return


def operator(node: Node) -> str:
    found = node.child_by_field_name("operator")
    if found is not None:
        return text(found)
    for child in node.children:
        if not child.is_named:
            token = text(child)
            if token not in {"(", ")", "[", "]", ",", ";", "{", "}"}:
                return token
    return ""


def unwrap(node: Node | None) -> Node | None:
    """The expression inside parentheses and casts."""
    while node is not None and node.type in {"parenthesized_expression", "cast_expression"}:
        inner = node.child_by_field_name("value") or (
            node.named_children[-1] if node.named_children else None
        )
        if inner is None or inner is node:
            break
        node = inner
    return node


def call_parts(node: Node) -> tuple[str, Node | None]:
    """(method name, receiver) of a Java ``method_invocation`` or C++ ``call_expression``."""
    if node.type == "method_invocation":
        return text(node.child_by_field_name("name")), node.child_by_field_name("object")
    function = node.child_by_field_name("function")
    if function is None:
        return "", None
    if function.type == "field_expression":
        return text(function.child_by_field_name("field")), function.child_by_field_name("argument")
    if function.type == "qualified_identifier":
        return text(function).split("::")[-1], None
    if function.type == "template_function":
        return text(function.child_by_field_name("name")).split("::")[-1], None
    return text(function), None


def arguments(node: Node) -> list[Node]:
    args = node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


def base_name(node: Node | None) -> str:
    """The variable at the root of ``a``, ``a[i]``, ``a.get(i)``, ``this.a[i].b``."""
    while node is not None:
        if node.type == "identifier":
            return text(node)
        if node.type in {"array_access"}:
            node = node.child_by_field_name("array")
        elif node.type == "subscript_expression":
            node = node.child_by_field_name("argument")
        elif node.type == "field_access":
            obj = node.child_by_field_name("object")
            node = node.child_by_field_name("field") if text(obj) == "this" else obj
        elif node.type == "field_expression":
            node = node.child_by_field_name("argument")
        elif node.type in {"method_invocation", "call_expression"}:
            _, receiver = call_parts(node)
            node = receiver
        elif node.type in {"parenthesized_expression", "cast_expression", "pointer_expression"}:
            node = (
                unwrap(node)
                if node.type != "pointer_expression"
                else (node.named_children[-1] if node.named_children else None)
            )
        else:
            return ""
    return ""


def declarator_name(node: Node | None) -> str:
    """The declared name inside a (possibly nested) C++ declarator or Java declarator."""
    while node is not None:
        if node.type in {"identifier", "field_identifier"}:
            return text(node)
        inner = node.child_by_field_name("declarator") or node.child_by_field_name("name")
        if inner is None and node.type == "parenthesized_declarator" and node.named_children:
            inner = node.named_children[0]  # int (*h)(int): a function pointer named h
        if inner is None:
            named = [c for c in node.named_children if c.type in {"identifier", "field_identifier"}]
            return text(named[0]) if named else ""
        node = inner
    return ""


def type_name(node: Node | None) -> str:
    """``PriorityQueue`` for ``PriorityQueue<Integer>``, ``set`` for ``std::set<int>``,
    ``array`` for any array type."""
    if node is None:
        return ""
    if node.type in {"array_type"}:
        return "array"
    if node.type in {"generic_type", "template_type"}:
        first = node.child_by_field_name("name") or (
            node.named_children[0] if node.named_children else None
        )
        return text(first).split("::")[-1]
    if node.type == "qualified_identifier":
        inner = node.child_by_field_name("name")
        return type_name(inner) if inner is not None else text(node).split("::")[-1]
    return text(node).split("::")[-1]


def const_value(node: Node | None, constants: dict[str, float]) -> float | None:
    node = unwrap(node)
    if node is None:
        return None
    kind = node.type
    if kind in {
        "decimal_integer_literal",
        "hex_integer_literal",
        "number_literal",
        "decimal_floating_point_literal",
        "octal_integer_literal",
        "binary_integer_literal",
    }:
        return _number(text(node))
    if kind in {"identifier", "field_access", "qualified_identifier"}:
        name = text(node).split(".")[-1].split("::")[-1]
        return constants.get(name)
    if kind == "unary_expression":
        operand = node.child_by_field_name("operand") or node.child_by_field_name("argument")
        value = const_value(operand, constants)
        if value is None:
            return None
        return -value if operator(node) == "-" else value
    if kind == "binary_expression":
        left = const_value(node.child_by_field_name("left"), constants)
        right = const_value(node.child_by_field_name("right"), constants)
        if left is None or right is None:
            return None
        return _binary(operator(node), left, right)
    return None


def _number(literal: str) -> float | None:
    cleaned = literal.replace("_", "").replace("'", "")
    if not _NUMBER.match(cleaned):
        return None
    cleaned = cleaned.rstrip("lLuUfFdD") if not cleaned.lower().startswith("0x") else cleaned
    try:
        return float(int(cleaned, 16)) if cleaned.lower().startswith("0x") else float(cleaned)
    except ValueError:
        return None


def _binary(op: str, left: float, right: float) -> float | None:
    try:
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/" and right:
            return left / right
        if op == "%" and right:
            return left % right
        if op == "<<" and 0 <= right <= 64:
            return left * 2**right
        if op in {">>", ">>>"} and 0 <= right <= 64:
            return left / 2**right
    except OverflowError:
        return None
    return None


# The node types TreeFacts._visit reads, by branch; most nodes are none of them.
_DECLARATOR_KINDS = frozenset({"variable_declarator", "init_declarator"})
_DECLARATION_KINDS = frozenset(
    {
        "declaration",
        "field_declaration",
        "parameter_declaration",
        "formal_parameter",
        "local_variable_declaration",
    }
)
_CALL_KINDS = frozenset({"method_invocation", "call_expression"})
_RANGE_FOR_KINDS = frozenset({"enhanced_for_statement", "for_range_loop"})
_FACT_KINDS = (
    CLASS_TYPES
    | FUNCTION_TYPES
    | _DECLARATOR_KINDS
    | _DECLARATION_KINDS
    | _CALL_KINDS
    | _RANGE_FOR_KINDS
    | {"assignment_expression", "update_expression", "lambda_expression"}
)


@dataclass
class TreeFacts:
    constants: dict[str, float] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    adjacency: set[str] = field(default_factory=set)
    constant_arrays: set[str] = field(default_factory=set)
    single_values: dict[str, Node] = field(default_factory=dict)
    functions: dict[str, list[Node]] = field(default_factory=dict)
    io_methods: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    lambdas: list[Node] = field(default_factory=list)

    @classmethod
    def collect(cls, root: Node, source: str) -> TreeFacts:
        facts = cls()
        assigned: dict[str, list[Node | None]] = {}
        for node in walk(root):
            kind = node.type
            if kind in _FACT_KINDS:
                facts._visit(node, kind, assigned)
        for name, value in _CPP_DEFINE.findall(source):
            number = _number(value)
            if number is not None:
                assigned.setdefault(name, [])
                facts.constants[name] = number
        for name, values in assigned.items():
            if name in facts.constants and not values:
                continue
            numbers = [const_value(v, facts.constants) if v is not None else None for v in values]
            if numbers and all(n is not None for n in numbers):
                facts.constants[name] = max(abs(n) for n in numbers if n is not None)
            if len(values) == 1 and values[0] is not None:
                facts.single_values[name] = values[0]
        return facts

    def _visit(self, node: Node, kind: str, assigned: dict[str, list[Node | None]]) -> None:
        if kind in CLASS_TYPES:
            name = text(node.child_by_field_name("name"))
            self.classes.add(name)
            if _IO_CLASS.search(name):
                body = node.child_by_field_name("body")
                if body is not None:
                    for member in body.named_children:
                        if member.type in FUNCTION_TYPES:
                            self.io_methods.add(self._function_name(member))
        elif kind in FUNCTION_TYPES:
            self.functions.setdefault(self._function_name(node), []).append(node)
        elif kind in _DECLARATOR_KINDS:
            name = declarator_name(
                node.child_by_field_name("declarator") or node.child_by_field_name("name")
            )
            value = node.child_by_field_name("value")
            declaration = node.parent
            if declaration is not None:
                declared = type_name(declaration.child_by_field_name("type"))
                if declared:
                    self.types.setdefault(name, declared)
            if value is not None and value.type in {"array_initializer", "initializer_list"}:
                if len(value.named_children) <= 64:
                    self.constant_arrays.add(name)
            assigned.setdefault(name, []).append(value)
        elif kind in _DECLARATION_KINDS:
            declared = type_name(node.child_by_field_name("type"))
            for child in node.named_children:
                if child.type in {
                    "identifier",
                    "array_declarator",
                    "reference_declarator",
                    "pointer_declarator",
                }:
                    name = declarator_name(child)
                    self.types.setdefault(name, declared)
                elif child.type == "function_declarator" and kind == "declaration":
                    # ``vector<int> v(xs);`` in a body declares v (C++ parses a function).
                    parent = node.parent
                    if parent is not None and parent.type == "compound_statement":
                        name = declarator_name(child.child_by_field_name("declarator"))
                        self.types.setdefault(name, declared)
                    if kind in {"formal_parameter", "parameter_declaration"}:
                        assigned.setdefault(name, []).append(None)
            if kind == "formal_parameter":
                assigned.setdefault(text(node.child_by_field_name("name")), []).append(None)
        elif kind == "assignment_expression":
            left = node.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                value = node.child_by_field_name("right") if operator(node) == "=" else None
                assigned.setdefault(text(left), []).append(value)
        elif kind == "update_expression":
            target = node.named_children[0] if node.named_children else None
            if target is not None and target.type == "identifier":
                assigned.setdefault(text(target), []).append(None)
        elif kind in _CALL_KINDS:
            name, receiver = call_parts(node)
            if name in {"add", "push_back", "emplace_back", "insert"} and receiver is not None:
                if receiver.type in {"array_access", "subscript_expression"} or (
                    receiver.type in {"method_invocation", "call_expression"}
                    and call_parts(receiver)[0] == "get"
                ):
                    self.adjacency.add(base_name(receiver))
        elif kind == "lambda_expression":
            self.lambdas.append(node)
        elif kind in _RANGE_FOR_KINDS:
            name = text(node.child_by_field_name("name")) or declarator_name(
                node.child_by_field_name("declarator")
            )
            assigned.setdefault(name, []).append(None)

    @staticmethod
    def _function_name(node: Node) -> str:
        if node.type == "function_definition":
            declarator = node.child_by_field_name("declarator")
            name = declarator_name(declarator).split("::")[-1]
            if not name and declarator is not None:  # operator< and the like
                operators = [n for n in walk(declarator) if n.type == "operator_name"]
                name = text(operators[0]).replace(" ", "") if operators else ""
            return name
        return text(node.child_by_field_name("name"))
