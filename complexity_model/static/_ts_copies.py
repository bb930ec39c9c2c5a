"""Copies the tree-sitter front end reads as work: a C++ container built or assigned from
another (``vector<int> v(xs)``, ``v = xs``) and a Java ``String`` grown by concatenation
(``s += t``, ``s = s + t``, ``s = c + s``), which copies the whole string each time."""

from __future__ import annotations

from collections.abc import Mapping

from tree_sitter import Node

from complexity_model.static._cost import LINEAR, Cost
from complexity_model.static._ir import Stmt, work
from complexity_model.static._ts_facts import text, type_name

__all__ = ["copies"]

# C++ types whose copy constructor and copy assignment copy every element.
CPP_CONTAINERS = frozenset(
    {
        "vector",
        "string",
        "basic_string",
        "deque",
        "list",
        "set",
        "multiset",
        "map",
        "multimap",
        "unordered_set",
        "unordered_map",
        "unordered_multiset",
        "unordered_multimap",
        "priority_queue",
        "queue",
        "stack",
        "bitset",
    }
)


def copies(node: Node, language: str, types: Mapping[str, str], growth: Cost) -> list[Stmt]:
    """The copy ``node`` makes, as work; nothing for any other node. A container copy is
    linear; a string concatenation costs the string's length, which grows by a piece each
    pass of the loop around it (``growth``, its bound): it counts only in a loop of at least
    linear bound, since one over the digits of a number builds a string of a few letters."""
    line = node.start_point[0] + 1
    if language == "cpp":
        copied = _cpp_copied(node, types)
        return work(LINEAR, f"copies {copied}", line) if copied else []
    if language == "java" and node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        if left is None or left.type != "identifier":
            return []
        name = text(left)
        if _declared_type(node, name, types) != "String":
            return []
        op = _operator(node)
        right = node.child_by_field_name("right")
        grows = op == "+=" or (op == "=" and right is not None and name in _summands(right))
        if grows and growth.degree >= 1 and not growth.exponential:
            return work(growth, f"String concatenation copies {name}", line)
    return []


_REFERENCES = frozenset({"reference_declarator", "pointer_declarator"})


def _cpp_copied(node: Node, types: Mapping[str, str]) -> str:
    def container(candidate: Node | None) -> bool:
        return (
            candidate is not None
            and candidate.type == "identifier"
            and types.get(text(candidate)) in CPP_CONTAINERS
        )

    if node.type == "declaration":
        if type_name(node.child_by_field_name("type")) not in CPP_CONTAINERS:
            return ""
        for declarator in node.children_by_field_name("declarator"):
            if declarator.type == "function_declarator":
                # ``vector<int> v(xs);`` parses as a function declaration taking a type ``xs``.
                parameters = declarator.child_by_field_name("parameters")
                for parameter in parameters.named_children if parameters is not None else []:
                    kinds = [child.type for child in parameter.named_children]
                    name = text(parameter)
                    if kinds == ["type_identifier"] and types.get(name) in CPP_CONTAINERS:
                        return name
            elif declarator.type == "init_declarator":
                target = declarator.child_by_field_name("declarator")
                if target is not None and target.type in _REFERENCES:
                    continue  # ``const vector<int>& v = xs`` copies nothing
                value = declarator.child_by_field_name("value")
                if container(value):
                    return text(value)
                if value is not None and value.type == "argument_list":
                    for argument in value.named_children:
                        if container(argument):
                            return text(argument)
        return ""
    if node.type == "assignment_expression" and _operator(node) == "=":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if container(left) and container(right) and right is not None:
            return text(right)
    return ""


def _operator(node: Node) -> str:
    found = node.child_by_field_name("operator")
    return text(found) if found is not None else ""


def _summands(node: Node) -> set[str]:
    """The names added together in ``a + b + c`` (parentheses looked through)."""
    if node.type == "parenthesized_expression" and node.named_children:
        return _summands(node.named_children[0])
    if node.type == "binary_expression" and _operator(node) == "+":
        names: set[str] = set()
        for side in ("left", "right"):
            part = node.child_by_field_name(side)
            if part is not None:
                names |= _summands(part)
        return names
    return {text(node)} if node.type == "identifier" else set()


def _declared_type(node: Node, name: str, types: Mapping[str, str]) -> str:
    """The type of ``name`` where ``node`` uses it: the last declaration before it in a block
    that holds it (two blocks may declare ``t`` as a String and an int), else the file's."""
    scope: Node | None = node
    while scope is not None and scope.type not in {"method_declaration", "constructor_declaration"}:
        scope = scope.parent
    if scope is None:
        return types.get(name, "")
    found = ""
    stack = [scope]
    while stack:
        current = stack.pop()
        if current.start_byte > node.start_byte:
            continue
        if current.type in {"local_variable_declaration", "formal_parameter"}:
            holder = current.parent
            visible = holder is not None and holder.end_byte >= node.end_byte
            named = {
                text(child.child_by_field_name("name"))
                for child in current.named_children
                if child.type == "variable_declarator"
            } | (
                {text(current.child_by_field_name("name"))}
                if current.type == "formal_parameter"
                else set()
            )
            if visible and name in named:
                found = type_name(current.child_by_field_name("type"))
        stack.extend(reversed(current.named_children))
    return found or types.get(name, "")
