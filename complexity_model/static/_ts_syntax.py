"""Syntax-level helpers of the Java and C++ front end: how a recursive call's argument
relates to the parameter, loops that always exit, names a body declares or binds."""

from __future__ import annotations

from tree_sitter import Node

from complexity_model.static._cost import Cost
from complexity_model.static._ir import ArgShape, Bound
from complexity_model.static._library import JAVA_READ_METHODS
from complexity_model.static._ts_bounds import is_midpoint
from complexity_model.static._ts_facts import CLASS_TYPES, call_parts, operator, text, walk

# Nodes whose insides are not the enclosing code's statements.
SKIP = (
    frozenset(
        {
            "lambda_expression",
            "lambda_expression_body",
            "class_body",
            "comment",
            "line_comment",
            "block_comment",
        }
    )
    | CLASS_TYPES
)
EXITS = frozenset({"return_statement", "break_statement", "throw_statement"})


def reads(node: Node, io_methods: set[str]) -> bool:
    """Whether ``node`` is a call that reads input (``br.readLine()``, ``in.next()``)."""
    if node.type != "method_invocation":
        return False
    name, receiver = call_parts(node)
    if name in JAVA_READ_METHODS or name in io_methods:
        return True
    return receiver is not None and reads(receiver, io_methods)


def shape(arg: Node, param: str, midpoints: set[str]) -> ArgShape:
    names = {text(n) for n in walk(arg) if n.type == "identifier"}
    operators = {_infix(n) for n in walk(arg) if n.type == "binary_expression"}
    if "<<" in operators and operators & {"|", "^", "&", "+", "-"}:
        return "bitmask"
    if names & midpoints or is_midpoint(arg):
        return "halved"
    for inner in walk(arg):
        if inner.type == "binary_expression":
            op = text(inner.child_by_field_name("operator")) or _infix(inner)
            if op in {"/", ">>", ">>>"}:
                return "halved"
            if op == "%":
                return "reduced_mod"
    if arg.type == "identifier" and text(arg) == param:
        return "same"
    if arg.type in {"array_access", "subscript_expression"} and param in names:
        return "chased"
    if arg.type == "binary_expression" and _infix(arg) in {"+", "-"}:
        return "stepped"
    if arg.type == "update_expression":
        return "stepped"
    return "other"


def _infix(node: Node) -> str:
    for child in node.children:
        if not child.is_named:
            return text(child)
    return ""


def early_exit(body: Node | None, bound: Bound) -> Bound:
    if body is None:
        return bound
    children = body.named_children if body.type in {"block", "compound_statement"} else [body]
    if any(child.type in EXITS for child in children) and bound.cost != Cost():
        return Bound(Cost(), f"{bound.reason} (always exits on the first pass)")
    return bound


def leaves(node: Node | None) -> bool:
    if node is not None and node.type in {"block", "compound_statement"}:
        node = node.named_children[-1] if node.named_children else None
    return node is not None and node.type in {"return_statement", "throw_statement"}


def declared_in(node: Node | None) -> set[str]:
    if node is None:
        return set()
    names: set[str] = set()
    for inner in walk(node, skip=SKIP):
        if inner.type in {"variable_declarator", "init_declarator"}:
            target = inner.child_by_field_name("name") or inner.child_by_field_name("declarator")
            names.add(text(target).split("[")[0])
        elif inner.type == "declaration":
            for child in inner.named_children:
                if child.type in {"identifier", "array_declarator"}:
                    names.add(text(child).split("[")[0])
    return names


def rebound_in(node: Node | None) -> set[str]:
    """Names given a fresh value (declared or ``=``), not just advanced (``++``, ``+=``)."""
    if node is None:
        return set()
    return {
        text(inner.child_by_field_name("left"))
        for inner in walk(node, skip=SKIP)
        if inner.type == "assignment_expression" and operator(inner) == "="
    } | declared_in(node)


def assigned_in(node: Node | None) -> set[str]:
    if node is None:
        return set()
    return {
        text(inner.child_by_field_name("left"))
        for inner in walk(node, skip=SKIP)
        if inner.type == "assignment_expression"
    } | declared_in(node)
