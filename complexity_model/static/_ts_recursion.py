"""Recursion patterns in Java and C++: parameters, memo tables, guards undone after a call."""

from __future__ import annotations

from tree_sitter import Node

from complexity_model.static._ts_facts import base_name, call_parts, declarator_name, text, walk

_UNDO_METHODS = frozenset(
    {"remove", "pop", "pop_back", "removeLast", "erase", "poll", "clear", "pollLast"}
)
_LOOKUPS = frozenset({"containsKey", "contains", "count", "find", "get"})


def parameters(function: Node) -> tuple[str, ...]:
    found = function.child_by_field_name("parameters")
    if found is None:
        declarator = function.child_by_field_name("declarator")
        while declarator is not None and found is None:
            found = declarator.child_by_field_name("parameters")
            declarator = declarator.child_by_field_name("declarator")
    if found is None:
        return ()
    names = []
    for param in found.named_children:
        name = param.child_by_field_name("name")
        names.append(
            text(name)
            if name is not None
            else declarator_name(param.child_by_field_name("declarator"))
        )
    return tuple(names)


def memo_dimensions(function: Node, params: set[str]) -> int:
    """0 when not memoised, -1 when memoised in a map, else the memo table's rank."""
    body = function.child_by_field_name("body")
    if body is None:
        return 0
    for node in walk(body):
        if node.type != "if_statement":
            continue
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        if condition is None or consequence is None:
            continue
        tables = _lookups(condition, params)
        returned = {
            base_name(n)
            for n in walk(consequence)
            if n.type == "return_statement"
            for n in n.named_children
        }
        returned |= {
            base_name(inner)
            for n in walk(consequence)
            if n.type == "return_statement"
            for inner in walk(n)
        }
        for table, rank in tables.items():
            if table in returned:
                return rank
    return 0


def visit_dimensions(function: Node) -> int:
    """The rank of the visited mark the function returns early on and then sets, or 0
    (``if (grid[r][c] != '1') return;`` then ``grid[r][c] = '0';``: a flood fill)."""
    body = function.child_by_field_name("body")
    if body is None:
        return 0
    marked = {
        base_name(node.child_by_field_name("left"))
        for node in walk(body)
        if node.type == "assignment_expression"
    }
    marked |= {
        base_name(call_parts(node)[1])
        for node in walk(body)
        if node.type in {"method_invocation", "call_expression"}
        and call_parts(node)[0] in {"add", "insert"}
    }
    for stmt in body.named_children:
        condition = stmt.child_by_field_name("condition")
        consequence = stmt.child_by_field_name("consequence")
        if stmt.type != "if_statement" or condition is None or not _exits_with_nothing(consequence):
            continue
        for table, rank in _lookups(condition, set()).items():
            if table in marked:
                return max(rank, 1)
    return 0


def _exits_with_nothing(node: Node | None) -> bool:
    """``return;``, ``return 0;``, ``{ return false; }``: leaving without a stored answer."""
    while node is not None and node.type in {"block", "compound_statement"}:
        if len(node.named_children) != 1:
            return False
        node = node.named_children[0]
    if node is None or node.type != "return_statement":
        return False
    values = node.named_children
    return not values or values[0].type in {
        "decimal_integer_literal",
        "number_literal",
        "true",
        "false",
        "null_literal",
    }


def _lookups(condition: Node, params: set[str]) -> dict[str, int]:
    tables: dict[str, int] = {}
    for node in walk(condition):
        if node.type in {"array_access", "subscript_expression"} and (
            node.parent is None or node.parent.type not in {"array_access", "subscript_expression"}
        ):
            depth = 0
            inner: Node | None = node
            while inner is not None and inner.type in {"array_access", "subscript_expression"}:
                depth += 1
                inner = inner.child_by_field_name("array") or inner.child_by_field_name("argument")
            name = base_name(node)
            if name and name not in params:
                tables[name] = max(tables.get(name, 0), depth)
        elif node.type in {"method_invocation", "call_expression"}:
            method, receiver = call_parts(node)
            name = base_name(receiver)
            if method in _LOOKUPS and name and name not in params:
                tables.setdefault(name, -1)
    return tables


def resets_guard(following: list[Node]) -> bool:
    """Whether the statements after a call undo state (``used[i] = false``, ``pop_back()``)."""
    for stmt in following[:3]:
        for node in walk(stmt):
            if node.type == "assignment_expression":
                left = node.child_by_field_name("left")
                right = node.child_by_field_name("right")
                if left is not None and left.type in {"array_access", "subscript_expression"}:
                    if right is not None and text(right) in {"false", "0", "true", "1"}:
                        return True
                if text(node.child_by_field_name("operator")) in {"-=", "^="}:
                    return True
            elif node.type == "update_expression" and "--" in text(node):
                return True
            elif node.type in {"method_invocation", "call_expression"}:
                if call_parts(node)[0] in _UNDO_METHODS:
                    return True
    return False
