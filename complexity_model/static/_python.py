"""Python front end: lowers an ``ast`` module to the analysis IR."""

from __future__ import annotations

import ast

from complexity_model.static._cost import CONSTANT, LINEAR, LOG, N_LOG_N, Cost
from complexity_model.static._ir import (
    Bound,
    Branch,
    Call,
    Effect,
    Function,
    LazyFunctions,
    Loop,
    Program,
    Stmt,
    Work,
    advance_only,
    once_per_pass,
    work,
)
from complexity_model.static._library import (
    PYTHON_CONSUMERS,
    PYTHON_FILLS,
    PYTHON_FUNCTIONS,
    PYTHON_MEMO_DECORATORS,
    PYTHON_METHODS,
    PYTHON_READS,
    PYTHON_WRITES,
)
from complexity_model.static._python_aliases import BUILTIN_METHODS
from complexity_model.static._python_bounds import BoundReader
from complexity_model.static._python_entry import find_entry
from complexity_model.static._python_facts import (
    PythonFacts,
    base_name,
    call_name,
    const_value,
    reads_input,
)
from complexity_model.static._python_memo import memo_dimensions, resets_guard, visit_dimensions
from complexity_model.static._python_opaque import Opacity, resolve_getattr
from complexity_model.static._python_syntax import (
    EXITS,
    assigned_in,
    assigned_names,
    early_exit,
    fixed_width_slice,
    is_conversion,
    leaves,
    midpoints,
    prepends,
    rebound_in,
    shape,
    unwrapped,
)

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_MODULES = frozenset({"heapq", "bisect", "math", "itertools", "h", "hq", "bi", "bs"})
_LAZY = frozenset({"map", "filter", "zip", "enumerate", "range", "reversed"})


def lower_python(source: str, entry_point: str | None = None) -> Program:
    """Parse ``source`` (SyntaxError when it is not Python) and lower it: the whole module, or
    the function or method ``entry_point`` names (EntryPointNotFound when there is none)."""
    tree = ast.parse(source)
    return _PythonLowering(tree).program(entry_point)


class _PythonLowering:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.facts = PythonFacts.collect(tree)
        self.bounds = BoundReader(self.facts)
        self.user_functions = {
            name: defs
            for name, defs in self.facts.functions.items()
            if name not in PYTHON_READS and name not in PYTHON_WRITES
        }
        self.constructors = self.facts.constructors
        self.opacity = Opacity(tree, self.user_functions)
        self.midpoints: set[str] = set()
        self.enclosing_assigned: list[frozenset[str]] = []
        self.enclosing_rebound: list[frozenset[str]] = []
        # The bounds of the loops around the statement being lowered, innermost last.
        self.loop_costs: list[Cost] = []

    def program(self, entry_point: str | None) -> Program:
        definitions: dict[str, list[_Definition]] = {
            **self.user_functions,
            **{name: [init] for name, init in self.constructors.items()},
            **{
                f"{owner}.{method.name}": [method]
                for owner, methods in self.facts.special_methods.items()
                for method in methods
            },
        }
        entry = self.block(self.tree.body)
        notes: list[str] = []
        setup: list[Stmt] = []
        if entry_point is not None:
            root, owner = find_entry(self.tree, entry_point)
            # Keyed by its plain name, so that calls to it from itself count as recursion.
            name = entry_point.strip() if isinstance(root, ast.Lambda) else root.name
            definitions[name] = [root]
            setup = entry + ([Call(owner, (), 0)] if owner in self.constructors else [])
            entry = [Call(name, (), root.lineno)]
            notes.append(f"entry point {entry_point} (line {root.lineno})")
        functions = LazyFunctions(
            list(definitions), lambda key: self._function(key, definitions[key])
        )
        return Program("python", functions, entry, notes, setup)

    def _function(self, name: str, defs: list[_Definition]) -> Function:
        bodies: list[list[Stmt]] = []
        dimensions = visited = 0
        local_names: set[str] = set()
        for definition in defs:
            saved = self.midpoints
            saved_stacks = (
                self.enclosing_assigned,
                self.enclosing_rebound,
                self.bounds.fresh,
                self.bounds.loop_variables,
            )
            (
                self.enclosing_assigned,
                self.enclosing_rebound,
                self.bounds.fresh,
                self.bounds.loop_variables,
            ) = [], [], [], []
            if isinstance(definition, ast.Lambda):
                self.midpoints = set()
                bodies.append(self.expr(definition.body))
            else:
                self.midpoints = midpoints(definition)
                bodies.append(self.block(definition.body))
                found = memo_dimensions(definition, PYTHON_MEMO_DECORATORS)
                # -1 (memoised on its arguments) must not lose to 0 (not memoised) in a max.
                dimensions = found if not dimensions else max(dimensions, found)
                visited = max(visited, visit_dimensions(definition))
                local_names |= assigned_names(definition)
            self.midpoints = saved
            (
                self.enclosing_assigned,
                self.enclosing_rebound,
                self.bounds.fresh,
                self.bounds.loop_variables,
            ) = saved_stacks
            local_names |= {arg.arg for arg in definition.args.args}
        body: list[Stmt] = bodies[0] if len(bodies) == 1 else [Branch(bodies)]
        params = tuple(arg.arg for arg in defs[0].args.args)
        return Function(name, params, body, dimensions, frozenset(local_names), visited)

    # Statements -------------------------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> list[Stmt]:
        lowered: list[Stmt] = []
        for index, stmt in enumerate(body):
            rest = body[index + 1 :]
            if isinstance(stmt, ast.If) and not stmt.orelse and rest and leaves(stmt.body):
                # What follows ``if c: return`` runs only when c is false: it is the else arm,
                # so recursive calls there and in the if are alternatives, not two branches.
                arms = [self._arm(stmt.body), self.block(rest)]
                return lowered + self.expr(stmt.test) + [Branch(arms)]
            items = self.stmt(stmt)
            calls = any(isinstance(item, Call) for item in items)
            if calls and resets_guard(body[index + 1 :]):
                for item in items:
                    if isinstance(item, Call):
                        item.resets_guard = True
            lowered.extend(items)
        return lowered

    def _arm(self, body: list[ast.stmt]) -> list[Stmt]:
        """An ``if``'s arm; in a loop, one that ends by leaving it runs its loops once."""
        lowered = self.block(body)
        if self.enclosing_rebound and body and isinstance(body[-1], ast.Break | ast.Return):
            return once_per_pass(lowered)
        return lowered

    def stmt(self, node: ast.stmt) -> list[Stmt]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return []
        if isinstance(node, ast.Import | ast.ImportFrom):
            return list(self.opacity.imports(node))
        if isinstance(node, ast.For | ast.AsyncFor):
            return self._for(node)
        if isinstance(node, ast.While):
            return self._while(node)
        if isinstance(node, ast.If):
            return self.expr(node.test) + [Branch([self._arm(node.body), self._arm(node.orelse)])]
        if isinstance(node, ast.Try):
            handlers = [self.block(h.body) for h in node.handlers]
            main = self.block(node.body) + self.block(node.orelse)
            return [Branch([main, *handlers])] + self.block(node.finalbody)
        if isinstance(node, ast.With | ast.AsyncWith):
            return self.block(node.body)
        if isinstance(node, ast.Assign):
            return self._assign(node.targets, node.value)
        if isinstance(node, ast.AugAssign):
            return self._fills(node.target) + self.expr(node.value)
        if isinstance(node, ast.AnnAssign):
            return self.expr(node.value) if node.value is not None else []
        if isinstance(node, ast.Delete):
            return [item for target in node.targets for item in self._delete(target)]
        lowered: list[Stmt] = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                lowered.extend(self.expr(child))
        return lowered

    def _assign(self, targets: list[ast.expr], value: ast.expr) -> list[Stmt]:
        if self.bounds.fresh and reads_input(unwrapped(value)):
            self.bounds.fresh[-1].update(
                n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)
            )
        lowered: list[Stmt] = []
        for target in targets:
            lowered.extend(self._fills(target))
            sequence = self.facts.kinds.get(getattr(target, "id", ""), "").endswith(("str", "list"))
            growth = self.loop_costs[-1] if self.loop_costs else CONSTANT
            if (
                isinstance(target, ast.Name)
                and growth.degree >= 1
                and not growth.exponential
                and prepends(target.id, value, sequence)
            ):
                # ``s = c + s`` builds a new string (list) each time, as long as the loop has
                # run (only ``s = s + c`` and ``s += c`` on a string may grow in place).
                label = f"prepending to {target.id} copies it"
                lowered.extend(work(growth, label, target.lineno))
        return lowered + self.expr(value)

    def _fills(self, target: ast.expr) -> list[Stmt]:
        if isinstance(target, ast.Subscript | ast.Attribute):
            return [Effect("fill", base_name(target))]
        if isinstance(target, ast.Tuple | ast.List):
            return [fill for element in target.elts for fill in self._fills(element)]
        return []

    def _delete(self, target: ast.expr) -> list[Stmt]:
        """``del xs[0]`` shifts the whole list, as ``xs.pop(0)`` does (``del d[k]`` does not)."""
        if not isinstance(target, ast.Subscript):
            return []
        kind = self.facts.kinds.get(base_name(target), "")
        if kind in {"hashed", "deque"} or kind.startswith("constant"):
            return []
        index = target.slice
        if isinstance(index, ast.Slice):  # del xs[:k] shifts the rest; del xs[-k:] does not
            index = index.lower if index.lower is not None else ast.Constant(0)
        shifts = const_value(index, {}) == 0
        return work(LINEAR, "del xs[0]", target.lineno) if shifts else []

    def _for(self, node: ast.For | ast.AsyncFor) -> list[Stmt]:
        targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        bound = self.bounds.iteration(node.iter)
        setup = self.expr(node.iter)
        local = frozenset(targets | assigned_in(node.body))
        self.bounds.loop_variables.append(targets)
        self.bounds.fresh.append(set())
        self.enclosing_assigned.append(local)
        self.enclosing_rebound.append(frozenset(targets | rebound_in(node.body)))
        self.loop_costs.append(bound.cost)
        body = self.block(node.body)
        self.loop_costs.pop()
        self.enclosing_assigned.pop()
        self.enclosing_rebound.pop()
        self.bounds.fresh.pop()
        self.bounds.loop_variables.pop()
        bound = early_exit(node.body, bound)
        counting = isinstance(node.iter, ast.Call) and call_name(node.iter.func) == "range"
        loop = Loop(bound, body, node.lineno, local, over_elements=not counting)
        return setup + [loop] + self.block(node.orelse)

    def _while(self, node: ast.While) -> list[Stmt]:
        bound = early_exit(node.body, self.bounds.while_bound(node))
        if bound.worklist and any(
            bound.worklist in names for names in self.enclosing_assigned[-1:]
        ):
            # The work list is rebuilt in every pass of the enclosing loop: no amortising.
            bound = Bound(bound.cost, bound.reason)
        bound = advance_only(bound, self.enclosing_rebound[-1] if self.enclosing_rebound else None)
        local = frozenset(assigned_in(node.body))
        self.bounds.loop_variables.append(set())
        self.bounds.fresh.append(set())
        self.enclosing_assigned.append(local)
        self.enclosing_rebound.append(frozenset(rebound_in(node.body)))
        self.loop_costs.append(bound.cost)
        body = self.expr(node.test) + self.block(node.body)
        self.loop_costs.pop()
        self.enclosing_assigned.pop()
        self.enclosing_rebound.pop()
        self.bounds.fresh.pop()
        self.bounds.loop_variables.pop()
        return [Loop(bound, body, node.lineno, local)] + self.block(node.orelse)

    # Expressions ------------------------------------------------------------------------

    def expr(self, node: ast.expr | None) -> list[Stmt]:
        if node is None:
            return []
        if isinstance(node, ast.Lambda):
            # Called somewhere, at least once: a loop hidden in a lambda is never free.
            return self.expr(node.body)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self._comprehension(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Name):
            return self._reference(node)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            # self.helper as a value may be called wherever it goes (see _reference); other
            # attributes (helper.cache_clear, f.__name__) call nothing by being read.
            if node.attr in self.user_functions and self._program_object(node.value, node.attr):
                return [Call(node.attr, (), node.lineno)]
            return []
        lowered: list[Stmt] = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                lowered.extend(self.expr(child))
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            if not fixed_width_slice(node.slice, self.facts) and not self.bounds.digits(node.value):
                lowered.extend(work(LINEAR, "slice copy", line))
        elif isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators, strict=False):
                if isinstance(op, ast.In | ast.NotIn) and self._is_sequence(right):
                    lowered.extend(work(LINEAR, "membership test on a sequence", line))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for seq, count in ((node.left, node.right), (node.right, node.left)):
                is_sequence = isinstance(seq, ast.List) or (
                    isinstance(seq, ast.Constant) and isinstance(seq.value, str | bytes)
                )
                if is_sequence and not isinstance(count, ast.List):
                    lowered.extend(work(self.bounds.size(count), "sequence repetition", line))
        return lowered

    def _reference(self, node: ast.Name) -> list[Stmt]:
        """A function of the program used as a value (``handlers = [slow, fast]``) may be
        called wherever the value goes: its cost counts here."""
        if isinstance(node.ctx, ast.Load) and node.id in self.user_functions:
            return [Call(node.id, (), node.lineno)]
        opaque = self.opacity.reference(node)
        return [opaque] if opaque is not None else []

    def _is_sequence(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            kind = self.facts.kinds.get(node.id)
            if kind is not None or node.id not in self.facts.parameters:
                return kind == "list"
            # A parameter of no known kind may be the input list (or a string): scanned,
            # unless every caller hands it a set or a dict.
            passed = self.opacity.bindings.passed(node.id)
            return not passed or not all(self._hashed(value) for value in passed)
        if isinstance(node, ast.Subscript):
            return isinstance(node.slice, ast.Slice)
        return isinstance(node, ast.ListComp) or (
            isinstance(node, ast.List) and len(node.elts) > 64
        )

    def _hashed(self, value: ast.expr | None) -> bool:
        if isinstance(value, ast.Name):
            return self.facts.kinds.get(value.id) == "hashed"
        return self.facts.kind_of(value) == "hashed"

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> list[Stmt]:
        if isinstance(node, ast.DictComp):
            inner = self.expr(node.key) + self.expr(node.value)
        else:
            inner = self.expr(node.elt)
        generators = node.generators
        if len(generators) == 1 and reads_input(generators[0].iter) and not inner:
            return [Effect("read")]
        body = inner
        for generator in reversed(generators):
            targets = {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
            conditions = [item for cond in generator.ifs for item in self.expr(cond)]
            loop = Loop(
                self.bounds.iteration(generator.iter),
                conditions + body,
                getattr(node, "lineno", 0),
                frozenset(targets),
            )
            body = self.expr(generator.iter) + [loop]
        return body

    def _call(self, node: ast.Call) -> list[Stmt]:
        func = self.opacity.bindings.resolve(resolve_getattr(node.func))
        name = call_name(func)
        line = node.lineno
        receiver = func.value if isinstance(func, ast.Attribute) else None
        lowered = self.expr(receiver) if receiver is not None else []
        opaque = self.opacity.call(node, func)
        if opaque is not None:
            return lowered + self._args(node) + [opaque]
        if isinstance(func, ast.Lambda):
            return self._args(node) + self.expr(func)
        if name in PYTHON_READS:
            return lowered + self._args(node) + [Effect("read")]
        if name in PYTHON_WRITES:
            return lowered + self._args(node) + [Effect("write")]
        if name in EXITS:
            return lowered
        user = self._user_call(node, name, receiver)
        special = self._special_calls(name, line) if receiver is None else []
        if user is not None:
            user.amortised = any(self.bounds.is_fresh(arg) for arg in node.args)
            return lowered + self._args(node) + [user, *special]
        if special:
            return lowered + self._args(node) + special
        if name in PYTHON_CONSUMERS or name == "sorted":
            return lowered + self._consume(node, name)
        if name in {"map", "filter", "reduce"}:
            return lowered + self._mapped(node)
        lowered += self._args(node)
        module_call = receiver is None or base_name(receiver) in _MODULES
        if name in PYTHON_FUNCTIONS and module_call:
            lowered += work(PYTHON_FUNCTIONS[name], name, line)
        elif name == "pow" and len(node.args) == 3:
            lowered += work(LOG, "modular power", line)
        elif name == "deepcopy" or (name == "copy" and receiver is None):
            lowered += work(LINEAR, "copy", line)
        elif receiver is not None:
            methods = self._method(name, node, receiver)
            if self.bounds.is_fresh(receiver):
                for item in methods:
                    if isinstance(item, Work):
                        item.amortised = True
            lowered += methods
        return lowered

    def _method(self, name: str, node: ast.Call, receiver: ast.expr) -> list[Stmt]:
        owner = base_name(receiver)
        kind = self.facts.kinds.get(owner, "")
        line = node.lineno
        if name in PYTHON_FILLS:
            effects: list[Stmt] = [Effect("fill", owner)]
            if name in PYTHON_METHODS and kind != "hashed" and kind != "deque":
                effects += work(PYTHON_METHODS[name], f".{name}()", line)
            return effects
        if name == "pop" and node.args and kind not in {"hashed", "deque"}:
            first = const_value(node.args[0], self.facts.constants)
            return work(LINEAR, ".pop(0)", line) if first == 0 else []
        if name in PYTHON_METHODS:
            if kind.startswith("constant") or (kind == "hashed" and name != "copy"):
                return []
            if name == "sort" and kind == "":
                return work(N_LOG_N, ".sort()", line)
            return work(PYTHON_METHODS[name], f".{name}()", line)
        return []

    def _special_calls(self, class_name: str, line: int) -> list[Stmt]:
        """A new object of a program's class brings its operators and comparisons along."""
        return [
            Call(f"{class_name}.{method.name}", (), line, implicit=True)
            for method in self.facts.special_methods.get(class_name, [])
        ]

    def _user_call(self, node: ast.Call, name: str, receiver: ast.expr | None) -> Call | None:
        if receiver is None and name in self.constructors:
            return Call(name, (), node.lineno)
        if name not in self.user_functions:
            return None
        if receiver is not None and not self._program_object(receiver, name):
            return None
        definition = self.user_functions[name][0]
        params = [arg.arg for arg in definition.args.args]
        if receiver is not None and params and params[0] in {"self", "cls"}:
            params = params[1:]
        shapes = tuple(
            shape(arg, params[index] if index < len(params) else "", self.midpoints)
            for index, arg in enumerate(node.args)
        )
        return Call(name, shapes, node.lineno)

    def _program_object(self, receiver: ast.expr, method: str) -> bool:
        """Whether ``receiver.method(...)`` calls the program's method ``method``: on self, an
        object of its classes, or any object when no builtin type has such a method."""
        if isinstance(receiver, ast.Call) and call_name(receiver.func) in self.facts.classes:
            return True
        kind = self.facts.kinds.get(base_name(receiver), "")
        return (
            base_name(receiver) in {"self", "cls"}
            or kind.startswith("instance:")
            or method not in BUILTIN_METHODS
        )

    def _args(self, node: ast.Call) -> list[Stmt]:
        """The arguments' cost; a function passed as one counts as called (see _reference)."""
        return [item for arg in node.args for item in self.expr(arg)] + self._keywords(node)

    def _keywords(self, node: ast.Call) -> list[Stmt]:
        lowered: list[Stmt] = []
        for keyword in node.keywords:
            items = self.expr(keyword.value)
            if keyword.arg == "key" and items:
                # sort, min, max and nlargest call their key function once per element.
                items = [Loop(Bound(LINEAR, "key function, once per element"), items, node.lineno)]
            lowered.extend(items)
        return lowered

    def _consume(self, node: ast.Call, name: str) -> list[Stmt]:
        """A builtin that walks its argument once (sum, min, list, sorted, str.join)."""
        line = node.lineno
        keywords = self._keywords(node)
        if not node.args:
            return keywords
        if name in {"min", "max"} and len(node.args) >= 2:
            return keywords + self._args(node)
        source = node.args[0]
        extra = [item for arg in node.args[1:] for item in self.expr(arg)] + keywords
        sorting = work(N_LOG_N, "sorted()", line) if name == "sorted" else []
        if reads_input(source):
            return extra + [Effect("read")] + sorting
        if isinstance(source, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            lowered = self.expr(source)
        elif isinstance(source, ast.Call) and call_name(source.func) in _LAZY:
            lowered = self._lazy(source)
        else:
            bound = self.bounds.iteration(source)
            lowered = self.expr(source) + work(bound.cost, f"{name}() over a collection", line)
            if bound.cost == CONSTANT:
                sorting = []
        return extra + lowered + sorting

    def _lazy(self, node: ast.Call) -> list[Stmt]:
        if call_name(node.func) in {"map", "filter"}:
            return self._mapped(node)
        bound = self.bounds.iteration(node)
        return self._args(node) + [Loop(bound, [], node.lineno)]

    def _mapped(self, node: ast.Call) -> list[Stmt]:
        if len(node.args) < 2:
            return self._args(node)
        function, *sources = node.args
        if all(reads_input(source) for source in sources) and is_conversion(function):
            return [Effect("read")]
        body = self.expr(function)
        setup = [item for source in sources for item in self.expr(source)]
        return setup + [Loop(self.bounds.iteration(sources[0]), body, node.lineno)]
