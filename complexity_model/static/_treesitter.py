"""Java and C++ front end: lowers a tree-sitter syntax tree to the analysis IR."""

from __future__ import annotations

from functools import cache

from tree_sitter import Language, Node, Parser

from complexity_model.static._cost import CONSTANT, LINEAR, LOG, N_LOG_N, Cost
from complexity_model.static._ir import (
    Bound,
    Branch,
    Call,
    Effect,
    Function,
    LazyFunctions,
    Loop,
    Opaque,
    Program,
    Stmt,
    Work,
    advance_only,
    once_per_pass,
    work,
)
from complexity_model.static._library import (
    CPP_FUNCTIONS,
    CPP_READS,
    CPP_TREE_METHODS,
    CPP_TREE_TYPES,
    CPP_WRITES,
    JAVA_FILL_METHODS,
    JAVA_HASH_TYPES,
    JAVA_IMPLICIT_METHODS,
    JAVA_LINEAR_METHODS,
    JAVA_READ_METHODS,
    JAVA_STATIC_CALLS,
    JAVA_TREE_METHODS,
    JAVA_TREE_TYPES,
    JAVA_WRITE_METHODS,
)
from complexity_model.static._ts_bounds import TreeBoundReader, midpoint_names
from complexity_model.static._ts_copies import copies
from complexity_model.static._ts_entry import (
    class_setup,
    find_entry,
    is_native,
    opaque_call,
    opaque_creation,
)
from complexity_model.static._ts_facts import (
    FUNCTION_TYPES,
    TreeFacts,
    arguments,
    base_name,
    call_parts,
    text,
    walk,
)
from complexity_model.static._ts_lambdas import (
    called_by_name,
    held_function,
    lambda_key,
    per_element,
    referenced_method,
)
from complexity_model.static._ts_recursion import (
    memo_dimensions,
    parameters,
    resets_guard,
    visit_dimensions,
)
from complexity_model.static._ts_syntax import (
    SKIP,
    assigned_in,
    declared_in,
    early_exit,
    leaves,
    reads,
    rebound_in,
    shape,
)

_LOOPS = frozenset(
    {"for_statement", "enhanced_for_statement", "for_range_loop", "while_statement", "do_statement"}
)
# Sequences whose positional insert shifts the elements after it.
_SHIFTED = frozenset(
    {"ArrayList", "List", "Vector", "StringBuilder", "vector", "string", "basic_string"}
)
_NO_COST_TYPES = frozenset(
    {
        "HashMap",
        "HashSet",
        "LinkedHashMap",
        "LinkedHashSet",
        "Map",
        "Set",
        "unordered_map",
        "unordered_set",
        "BitSet",
        "bitset",
    }
)


@cache
def _parser(language: str) -> Parser:
    # A grammar is a compiled parser of a few MB, loaded when the first program in its
    # language is analysed (a service that judges only Python never loads one).
    if language == "java":
        import tree_sitter_java as grammar
    else:
        import tree_sitter_cpp as grammar  # type: ignore[no-redef]
    return Parser(Language(grammar.language()))


def lower_tree_sitter(source: str, language: str, entry_point: str | None = None) -> Program:
    """Parse Java or C++ ``source``; ValueError when it has no code or too many syntax errors.

    The whole program (``main``) is lowered, or the method ``entry_point`` names
    (EntryPointNotFound when there is none)."""
    tree = _parser(language).parse(source.encode("utf-8", "replace"))
    root = tree.root_node
    if root.has_error or not root.named_children:
        errors = statements = 0
        for node in walk(root):
            kind = node.type
            errors += kind == "ERROR" or node.is_missing
            statements += kind.endswith(("statement", "declaration"))
        if statements == 0 or errors > max(2, statements // 10):
            raise ValueError(f"{errors} syntax errors in {statements} statements")
    return _TreeLowering(root, source, language).program(entry_point)


class _TreeLowering:
    def __init__(self, root: Node, source: str, language: str) -> None:
        self.root = root
        self.language = language
        self.facts = TreeFacts.collect(root, source)
        self.bounds = TreeBoundReader(self.facts)
        self.user_functions = {
            name: nodes
            for name, nodes in self.facts.functions.items()
            if name not in self.facts.io_methods and name
        }
        self.midpoints: set[str] = set()
        # The bounds of the loops around the statement being lowered, innermost last.
        self.loop_costs: list[Cost] = []
        self.enclosing_assigned: list[frozenset[str]] = []
        self.enclosing_rebound: list[frozenset[str]] = []
        self.params: tuple[str, ...] = ()
        # Each lambda is a function of its own, by its start (see _ts_lambdas).
        self.lambdas: dict[int, str] = {}
        for node in self.facts.lambdas:
            key = lambda_key(node, language)
            if key in self.user_functions:
                key = lambda_key(node, "")
            self.user_functions[key] = [node]
            self.lambdas[node.start_byte] = key

    def program(self, entry_point: str | None) -> Program:
        if entry_point is not None:
            return self._entry_program(entry_point)
        names = [name for name in self.user_functions if name != "main"]
        functions = LazyFunctions(
            names, lambda name: self._function(name, self.user_functions[name])
        )
        main = self.user_functions.get("main")
        notes: list[str] = []
        if main:
            entry = self._function("main", main).body
        else:
            notes.append("no main: every function counts as an entry point")
            entry = [Branch([[Call(name, (), 0)] for name in functions])]
        return Program(self.language, functions, entry + self._implicit_calls(), notes)

    def _implicit_calls(self) -> list[Stmt]:
        """compareTo, hashCode, operator<: run wherever a collection or an operator needs
        them (see Call.implicit)."""
        return [
            Call(name, (), self.user_functions[name][0].start_point[0] + 1, implicit=True)
            for name in self.user_functions
            if name in JAVA_IMPLICIT_METHODS or name.startswith("operator")
        ]

    def _entry_program(self, entry_point: str) -> Program:
        name, definitions, owner = find_entry(self.root, entry_point)
        self.user_functions[name] = definitions
        functions = LazyFunctions(
            list(self.user_functions), lambda key: self._function(key, self.user_functions[key])
        )
        owner_name = text(owner.child_by_field_name("name")) if owner is not None else ""
        setup = [stmt for block in class_setup(owner) for stmt in self.statement(block)]
        if owner_name in self.user_functions:
            setup.append(Call(owner_name, (), 0))  # its constructor
        line = definitions[0].start_point[0] + 1
        return Program(
            self.language,
            functions,
            [Call(name, (), line), *self._implicit_calls()],
            [f"entry point {entry_point} (line {line})"],
            setup,
        )

    def _function(self, name: str, nodes: list[Node]) -> Function:
        bodies: list[list[Stmt]] = []
        local_names: set[str] = set()
        dimensions = visited = 0
        params: tuple[str, ...] = ()
        for node in nodes:
            saved = (
                self.midpoints,
                self.enclosing_assigned,
                self.enclosing_rebound,
                self.bounds.fresh,
                self.bounds.loop_variables,
                self.params,
            )
            body = node.child_by_field_name("body")
            params = parameters(node)
            self.params = params
            self.midpoints = midpoint_names(body)
            self.enclosing_assigned, self.enclosing_rebound = [], []
            self.bounds.fresh, self.bounds.loop_variables = [], []
            if body is None and is_native(node):
                bodies.append([Opaque("a native method", node.start_point[0] + 1)])
            else:
                bodies.append(self.statement(body) if body is not None else [])
            (
                self.midpoints,
                self.enclosing_assigned,
                self.enclosing_rebound,
                self.bounds.fresh,
                self.bounds.loop_variables,
                self.params,
            ) = saved
            found = memo_dimensions(node, set(params))
            # -1 (memoised in a map) must not lose to 0 (not memoised) in a max.
            dimensions = found if not dimensions else max(dimensions, found)
            visited = max(visited, visit_dimensions(node))
            local_names |= set(params) | declared_in(body)
        merged: list[Stmt] = bodies[0] if len(bodies) == 1 else [Branch(bodies)]
        return Function(name, params, merged, dimensions, frozenset(local_names), visited)

    # Statements ---------------------------------------------------------------------------

    def _arm(self, node: Node | None) -> list[Stmt]:
        """An ``if``'s arm; in a loop, one that ends by leaving it runs its loops once."""
        lowered = self.statement(node)
        last = node
        while last is not None and last.type in {"block", "compound_statement", "else_clause"}:
            last = last.named_children[-1] if last.named_children else None
        exits = last is not None and last.type in {"break_statement", "return_statement"}
        if self.enclosing_rebound and exits:
            return once_per_pass(lowered)
        return lowered

    def statement(self, node: Node | None) -> list[Stmt]:
        if node is None or node.type in SKIP or node.type in FUNCTION_TYPES:
            return []
        kind = node.type
        if kind in {"block", "compound_statement"}:
            return self._block(node.named_children)
        if kind in _LOOPS:
            return self._loop(node)
        if kind == "if_statement":
            condition = node.child_by_field_name("condition")
            arms = [self._arm(node.child_by_field_name("consequence"))]
            alternative = node.child_by_field_name("alternative")
            if alternative is not None:
                arms.append(self._arm(alternative))
            return self.expression(condition) + [Branch(arms)]
        if kind == "else_clause":
            return self._block(node.named_children)
        if kind in {"switch_expression", "switch_statement"}:
            body = node.child_by_field_name("body")
            arms = [
                self._block(arm.named_children)
                for arm in (body.named_children if body is not None else [])
            ]
            return self.expression(node.child_by_field_name("condition")) + [Branch(arms)]
        if kind in {
            "try_statement",
            "try_with_resources_statement",
            "labeled_statement",
            "synchronized_statement",
            "catch_clause",
            "finally_clause",
        }:
            return self._block(node.named_children)
        return self.expression(node)

    def _block(self, children: list[Node]) -> list[Stmt]:
        lowered: list[Stmt] = []
        for index, child in enumerate(children):
            rest = children[index + 1 :]
            consequence = child.child_by_field_name("consequence")
            if (
                child.type == "if_statement"
                and rest
                and leaves(consequence)
                and child.child_by_field_name("alternative") is None
            ):
                # What follows ``if (c) return;`` runs only when c is false: the else arm.
                arms = [self._arm(consequence), self._block(rest)]
                condition = self.expression(child.child_by_field_name("condition"))
                return lowered + condition + [Branch(arms)]
            items = self.statement(child)
            calls = any(isinstance(item, Call) for item in items)
            if calls and resets_guard(children[index + 1 :]):
                for item in items:
                    if isinstance(item, Call):
                        item.resets_guard = True
            lowered.extend(items)
        return lowered

    def _loop(self, node: Node) -> list[Stmt]:
        body = node.child_by_field_name("body")
        kind = node.type
        setup: list[Stmt] = []
        variables: set[str] = set()
        if kind == "for_statement":
            bound = self.bounds.for_bound(node)
            init = node.child_by_field_name("init") or node.child_by_field_name("initializer")
            setup = self.expression(init)
            variables = declared_in(init) | {
                text(u.named_children[0])
                for u in node.children_by_field_name("update")
                if u.named_children
            }
        elif kind in {"enhanced_for_statement", "for_range_loop"}:
            value = node.child_by_field_name("value") or node.child_by_field_name("right")
            bound = self.bounds.iteration(value)
            setup = self.expression(value)
            variables = {text(node.child_by_field_name("name"))} | declared_in(
                node.child_by_field_name("declarator")
            )
        else:
            bound = self.bounds.while_bound(node.child_by_field_name("condition"), body)
            bound = advance_only(
                bound, self.enclosing_rebound[-1] if self.enclosing_rebound else None
            )
            if bound.worklist and any(
                bound.worklist in names for names in self.enclosing_assigned[-1:]
            ):
                bound = Bound(bound.cost, bound.reason)
        bound = early_exit(body, bound)
        local = frozenset(variables | declared_in(body))
        self.bounds.loop_variables.append(variables)
        self.bounds.fresh.append(set())
        self.enclosing_assigned.append(local | assigned_in(body))
        self.enclosing_rebound.append(frozenset(variables | rebound_in(body)))
        self.loop_costs.append(bound.cost)
        lowered = self.statement(body)
        self.loop_costs.pop()
        for field_name in ("condition", "update"):
            for part in node.children_by_field_name(field_name):
                lowered = self.expression(part) + lowered
        self.enclosing_assigned.pop()
        self.enclosing_rebound.pop()
        self.bounds.fresh.pop()
        self.bounds.loop_variables.pop()
        elements = kind in {"enhanced_for_statement", "for_range_loop"}
        return setup + [Loop(bound, lowered, node.start_point[0] + 1, local, elements)]

    # Expressions ------------------------------------------------------------------------

    def expression(self, node: Node | None) -> list[Stmt]:
        if node is None:
            return []
        lowered: list[Stmt] = []
        stack = [node]
        while stack:
            current = stack.pop()
            kind = current.type
            if kind in {"lambda_expression", "method_reference"}:
                lowered.extend(self._function_value(current))
                continue
            if kind in SKIP or kind in FUNCTION_TYPES:
                continue
            growth = self.loop_costs[-1] if self.loop_costs else CONSTANT
            lowered.extend(copies(current, self.language, self.facts.types, growth))
            if kind in {"method_invocation", "call_expression"}:
                lowered.extend(self._call(current))
            elif kind == "object_creation_expression":
                created = text(current.child_by_field_name("type")).split("<")[0]
                if created in self.user_functions:
                    lowered.append(Call(created, (), current.start_point[0] + 1))
                opaque = opaque_creation(current, created)
                if opaque is not None:
                    lowered.append(opaque)
            elif kind == "gnu_asm_expression":
                lowered.append(Opaque("inline assembly", current.start_point[0] + 1))
            elif kind in {"assignment_expression", "update_expression"}:
                target = current.child_by_field_name("left") or (
                    current.named_children[0] if current.named_children else None
                )
                if target is not None and target.type != "identifier":
                    lowered.append(Effect("fill", base_name(target)))
            elif kind in {"variable_declarator", "init_declarator"}:
                self._note_fresh(current)
            elif kind in {"shift_expression", "binary_expression"} and self.language == "cpp":
                lowered.extend(self._stream(current))
            stack.extend(reversed(current.named_children))
        return lowered

    def _function_value(self, node: Node) -> list[Stmt]:
        """A lambda or method reference counts as called where it is written."""
        if node.type == "lambda_expression":
            key = self.lambdas.get(node.start_byte, "")
            if not key or called_by_name(key):
                return []
        else:
            key = referenced_method(node)
            if key not in self.user_functions:
                return []
        line = node.start_point[0] + 1
        call = Call(key, (), line)
        times = per_element(node)
        if times is None:
            return [call]
        return [Loop(Bound(times, "applies a function to every element"), [call], line)]

    def _note_fresh(self, declarator: Node) -> None:
        value = declarator.child_by_field_name("value")
        if self.bounds.fresh and value is not None and value.type == "method_invocation":
            name, _ = call_parts(value)
            if name in JAVA_READ_METHODS or name in self.facts.io_methods:
                target = declarator.child_by_field_name("name")
                self.bounds.fresh[-1].add(text(target))

    def _stream(self, node: Node) -> list[Stmt]:
        left = node.child_by_field_name("left")
        while left is not None and left.type in {"binary_expression", "shift_expression"}:
            left = left.child_by_field_name("left")
        name = text(left).split("::")[-1]
        if name in CPP_READS:
            return [Effect("read")]
        if name in CPP_WRITES:
            return [Effect("write")]
        return []

    def _call(self, node: Node) -> list[Stmt]:
        name, receiver = call_parts(node)
        line = node.start_point[0] + 1
        owner = base_name(receiver)
        owner_type = self.facts.types.get(owner, "")
        function = node.child_by_field_name("function")
        qualified = (
            text(function)
            if function is not None
            else (f"{text(receiver)}.{name}" if receiver is not None else name)
        )
        if name in self.facts.io_methods or name in JAVA_READ_METHODS or name in CPP_READS:
            return [Effect("write" if name in JAVA_WRITE_METHODS else "read")]
        if name in JAVA_WRITE_METHODS or name in CPP_WRITES:
            return (
                [Effect("write")]
                if receiver is None
                or owner
                in {
                    "System",
                    "out",
                    "pw",
                    "writer",
                    "output",
                    "sb",
                    "bw",
                    "w",
                    "o",
                    "printer",
                    "cout",
                }
                or "out" in text(receiver).lower()
                or owner_type not in _NO_COST_TYPES
                and name != "append"
                else []
            )
        if name == "start" and "run" in self.user_functions:
            return [Call("run", (), line)]
        user = self._user_call(node, name, receiver, owner_type)
        if user is not None:
            return [user]
        held = (
            self.facts.single_values.get(owner)
            if receiver is not None and (receiver.type == "identifier")
            else None
        )
        if held is not None and held.start_byte in self.lambdas:
            return [Call(self.lambdas[held.start_byte], (), line)]  # r.run(), f.apply(x)
        function_value = held_function(
            name, receiver, owner_type, self.facts.types.keys(), self.language
        )
        if function_value is not None:
            value = self.facts.single_values.get(name if receiver is None else owner)
            target = text(value).lstrip("&") if value is not None else ""
            if target in self.user_functions:
                return [Call(target, (), line)]  # h = g; h(x)
            return [Opaque(function_value, line)]
        opaque = opaque_call(node, name, qualified, self.language)
        if opaque is not None:
            return [opaque]
        if qualified in JAVA_STATIC_CALLS:
            return work(JAVA_STATIC_CALLS[qualified], qualified, line)
        if self.language == "cpp" and receiver is None and name in CPP_FUNCTIONS:
            return work(CPP_FUNCTIONS[name], name, line)
        if receiver is None or reads(receiver, self.facts.io_methods):
            return []  # work on a line just read counts as reading it
        effects: list[Stmt] = []
        if name in JAVA_FILL_METHODS:
            effects.append(Effect("fill", owner))
        cost = self._method_cost(name, owner_type, receiver)
        if name in {"add", "insert"} and owner_type in _SHIFTED and len(arguments(node)) >= 2:
            cost = LINEAR  # list.add(0, x), v.insert(v.begin(), x): the rest moves up
        if cost is not None:
            items = work(cost, f"{owner_type or 'object'}.{name}", line)
            for item in items:
                if isinstance(item, Work) and self.bounds.is_fresh(receiver):
                    item.amortised = True
            effects.extend(items)
        return effects

    def _method_cost(self, name: str, owner_type: str, receiver: Node) -> Cost | None:
        if owner_type in JAVA_TREE_TYPES and name in JAVA_TREE_METHODS:
            return LOG
        if owner_type in CPP_TREE_TYPES and name in CPP_TREE_METHODS:
            return LOG
        if name in {"sort", "sorted"}:
            return N_LOG_N
        if owner_type in _NO_COST_TYPES or owner_type in JAVA_HASH_TYPES:
            return None
        if name in {"equals", "compareTo", "toString"}:
            return None
        if name in JAVA_LINEAR_METHODS:
            return LINEAR
        if name in {"remove", "indexOf"} and owner_type in {
            "ArrayList",
            "List",
            "LinkedList",
            "Vector",
            "vector",
            "String",
        }:
            return LINEAR
        if name in {"substr", "find", "erase"} and owner_type in {"string", "vector"}:
            return LINEAR
        return None

    def _user_call(
        self, node: Node, name: str, receiver: Node | None, owner_type: str
    ) -> Call | None:
        if name not in self.user_functions or name == "main":
            return None
        if receiver is not None and text(receiver) not in {"this", "super"}:
            static_receiver = receiver.type == "identifier" and text(receiver)[:1].isupper()
            if static_receiver and text(receiver) not in self.facts.classes:
                return None
            created = text(receiver.child_by_field_name("type")).split("<")[0]
            if receiver.type == "object_creation_expression" and created not in (
                self.facts.classes
            ):
                return None  # new Long(x).hashCode() is Long's, not the program's
            if owner_type and owner_type not in self.facts.classes:
                return None
        target = self.user_functions[name][0]
        target_params = parameters(target)
        args = arguments(node)
        shapes = tuple(
            shape(arg, target_params[index] if index < len(target_params) else "", self.midpoints)
            for index, arg in enumerate(args)
        )
        call = Call(name, shapes, node.start_point[0] + 1)
        call.amortised = any(self.bounds.is_fresh(arg) for arg in args)
        return call
