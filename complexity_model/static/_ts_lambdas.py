"""Java and C++ lambdas and method references: code that runs where the value is called.

Each lambda is lowered as a function of its own. A C++ lambda bound to a name is called by
that name (``dfs(v)``); any other lambda, and a method reference to one of the program's
methods, counts as called where it is written, once per element when it is handed to a call
that applies it to every element (``forEach``, ``map``, ``std::for_each``), so that a loop
hidden in a lambda is never free.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from tree_sitter import Node

from complexity_model.static._cost import LINEAR, N_LOG_N, Cost
from complexity_model.static._ts_facts import call_parts, declarator_name, text

_DECLARATORS = frozenset({"variable_declarator", "init_declarator"})
# Calls that apply a function argument to every element, and how often in all.
_PER_ELEMENT: dict[str, Cost] = {
    **dict.fromkeys(
        (
            "forEach",
            "forEachOrdered",
            "map",
            "mapToInt",
            "mapToLong",
            "mapToDouble",
            "mapToObj",
            "flatMap",
            "filter",
            "reduce",
            "anyMatch",
            "allMatch",
            "noneMatch",
            "removeIf",
            "replaceAll",
            "peek",
            "iterate",
            "generate",
            "setAll",
            "for_each",
            "transform",
            "count_if",
            "find_if",
            "all_of",
            "any_of",
            "none_of",
            "accumulate",
            "remove_if",
            "partition",
        ),
        LINEAR,
    ),
    **dict.fromkeys(("sort", "stable_sort", "sorted", "parallelSort", "max", "min"), N_LOG_N),
}


def lambda_key(node: Node, language: str) -> str:
    """The function name a lambda is lowered under: its variable's for a named C++ lambda
    (calls by that name reach it), else one made from its position."""
    parent = node.parent
    if language == "cpp" and parent is not None and parent.type in _DECLARATORS:
        name = declarator_name(parent.child_by_field_name("declarator"))
        if name:
            return name
    return f"lambda@{node.start_point[0] + 1}:{node.start_point[1]}"


def called_by_name(key: str) -> bool:
    return not key.startswith("lambda@")


def per_element(node: Node) -> Cost | None:
    """How many times the call that ``node`` (a lambda or method reference) is an argument of
    applies it, when it applies it to every element; None otherwise."""
    arguments = node.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or arguments.type != "argument_list":
        return None
    if call.type not in {"method_invocation", "call_expression"}:
        return None
    return _PER_ELEMENT.get(call_parts(call)[0])


def referenced_method(node: Node) -> str:
    """``helper`` for ``this::helper`` or ``Solution::helper``."""
    names = [child for child in node.named_children if child.type == "identifier"]
    return text(names[-1]) if names else ""


# Java's functional interfaces: a variable of one of these types holds a function.
_JAVA_FUNCTIONAL = re.compile(
    r"(?:Int|Long|Double|Obj|To\w+?)?(?:Bi)?"
    r"(?:Function|UnaryOperator|BinaryOperator|Predicate|Consumer|Supplier)|Runnable|Callable"
)


def held_function(
    name: str, receiver: Node | None, owner_type: str, declared: Collection[str], language: str
) -> str | None:
    """Why the call runs a function held in a variable or parameter (``fn(x)`` for a C++
    ``std::function`` or function pointer, ``fn.apply(x)`` in Java), which may be any function:
    a helper handed an O(n) lambda and calling it per element is O(n^2), not O(n). None when
    the call is not one."""
    if language == "cpp" and receiver is None and name in declared:
        return f"calls {name}, a variable or parameter that may hold any function"
    if (
        language == "java"
        and receiver is not None
        and _JAVA_FUNCTIONAL.fullmatch(owner_type.rsplit(".", 1)[-1])
    ):
        return f"calls {text(receiver)}.{name}, a function held in a variable or parameter"
    return None
