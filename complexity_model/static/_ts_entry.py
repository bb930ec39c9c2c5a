"""Java and C++ entry points, and the calls whose cost the source does not show.

The entry point is resolved as the function-mode harness resolves it: ``Class.method`` is that
class's method, a bare name is a free (C++) function, else a method of ``Solution``. Reflection,
other programs, native libraries and inline assembly run code the analysis cannot see: each
becomes an :class:`Opaque` node, so that hiding loops there earns no time reward.
"""

from __future__ import annotations

from tree_sitter import Node

from complexity_model.static._ir import EntryPointNotFound, Opaque
from complexity_model.static._library import (
    CPP_OPAQUE_CALLS,
    JAVA_OPAQUE_CALLS,
    JAVA_OPAQUE_TYPES,
)
from complexity_model.static._ts_facts import CLASS_TYPES, FUNCTION_TYPES, text, walk

# Callees that are values computed at run time: ``table[i](x)``, ``make()(x)``, ``(*fp)(x)``.
_COMPUTED_CALLEES = frozenset(
    {"subscript_expression", "call_expression", "parenthesized_expression", "pointer_expression"}
)


def find_entry(root: Node, entry_point: str) -> tuple[str, list[Node], Node | None]:
    """The entry point's name, its definitions (overloads) and the class that holds them."""
    name = entry_point.strip().replace("::", ".")
    if "." in name:
        class_name, method = name.rsplit(".", 1)
        owner, methods = _methods(root, class_name, method)
        if not methods:
            raise EntryPointNotFound(f"no method {method!r} in a class {class_name!r}")
        return method, methods, owner
    free = [
        node
        for node in walk(root)
        if node.type == "function_definition"
        and _qualified_name(node) == name
        and _enclosing_class(node) is None
    ]
    if free:
        return name, free, None
    owner, methods = _methods(root, "Solution", name)
    if not methods:
        raise EntryPointNotFound(f"no function {name!r} and no Solution.{name}")
    return name, methods, owner


def class_setup(owner: Node | None) -> list[Node]:
    """Blocks that run when the class is loaded (Java ``static { ... }``)."""
    body = owner.child_by_field_name("body") if owner is not None else None
    if body is None:
        return []
    return [
        block
        for member in body.named_children
        if member.type == "static_initializer"
        for block in member.named_children
    ]


def is_native(function: Node) -> bool:
    """A Java ``native`` method: its body is machine code outside the program."""
    return any(
        child.type == "modifiers" and "native" in text(child).split() for child in function.children
    )


def opaque_call(node: Node, name: str, qualified: str, language: str) -> Opaque | None:
    """Why a call to something that is not the program's own function cannot be costed."""
    line = node.start_point[0] + 1
    function = node.child_by_field_name("function")
    if function is not None and function.type in _COMPUTED_CALLEES:
        return Opaque("calls a function chosen at run time", line)
    known = JAVA_OPAQUE_CALLS if language == "java" else CPP_OPAQUE_CALLS
    if name in known or qualified in known:
        return Opaque(
            f"{qualified or name}() runs code outside the program "
            "(reflection, another program or a native library)",
            line,
        )
    return None


def opaque_creation(node: Node, created: str) -> Opaque | None:
    if created in JAVA_OPAQUE_TYPES:
        return Opaque(f"new {created}: runs code outside the program", node.start_point[0] + 1)
    return None


def _methods(root: Node, class_name: str, method: str) -> tuple[Node | None, list[Node]]:
    owner: Node | None = None
    found: list[Node] = []
    for node in walk(root):
        if node.type in CLASS_TYPES and text(node.child_by_field_name("name")) == class_name:
            owner = node
            body = node.child_by_field_name("body")
            members = body.named_children if body is not None else []
            found += [
                member
                for member in members
                if member.type in FUNCTION_TYPES and _qualified_name(member) == method
            ]
        elif node.type == "function_definition" and _qualified_name(node) == (
            f"{class_name}::{method}"
        ):
            found.append(node)  # a C++ method defined outside its class
    return owner, found


def _qualified_name(function: Node) -> str:
    """``f``, or ``Solution::f`` for a C++ definition outside its class."""
    if function.type != "function_definition":
        return text(function.child_by_field_name("name"))
    declarator = function.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in {
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
    }:
        declarator = declarator.child_by_field_name("declarator")
    return text(declarator)


def _enclosing_class(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in CLASS_TYPES:
        parent = parent.parent
    return parent
