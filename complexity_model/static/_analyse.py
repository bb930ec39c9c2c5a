"""Cost of a lowered program: loops multiply, sequences take the maximum, calls cost their callee.

Recursion is summarised per function from its recursive call sites: memoised functions cost
their state space, a call inside a loop over an adjacency row is a graph search, two or more
calls that shrink the argument by a constant branch exponentially, halving ones divide and
conquer, and a single call repeats the body linearly (or logarithmically when it halves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from complexity_model.static._cost import (
    CONSTANT,
    EXPONENTIAL,
    LINEAR,
    LOG,
    Cost,
)
from complexity_model.static._ir import (
    Branch,
    Call,
    Function,
    Loop,
    Opaque,
    Program,
    Stmt,
    Work,
)

_MAX_MEMO_DIMENSIONS = 3


@dataclass
class _Eval:
    cost: Cost = CONSTANT
    # The cost with amortised loops counted once per enclosing iteration (see Bound.amortised).
    free: Cost = CONSTANT
    effects: set[tuple[str, str]] = field(default_factory=set)

    def merge(self, other: _Eval) -> None:
        self.cost = self.cost | other.cost
        self.free = self.free | other.free
        self.effects |= other.effects


@dataclass
class _Site:
    shapes: tuple[str, ...]
    loop_factor: Cost
    in_amortised_loop: bool
    in_element_loop: bool
    resets_guard: bool
    branch_path: tuple[tuple[int, int], ...]


@dataclass
class _Frame:
    function: str
    loops: list[Loop] = field(default_factory=list)
    branch_path: list[tuple[int, int]] = field(default_factory=list)


class Analysis:
    """Walks a :class:`Program` once; ``total`` and ``evidence`` hold the result."""

    def __init__(self, program: Program) -> None:
        self._functions = program.functions
        self._summaries: dict[str, _Eval] = {}
        # Recursions that run once per state across all calls (memoised, guarded by a mark).
        self._once_per_state: set[str] = set()
        self._sites: dict[str, list[_Site]] = {}
        self._frames: list[_Frame] = [_Frame("<entry>")]
        self._next_branch = 0
        self._loops: dict[int, dict[str, Any]] = {}
        self._library: list[str] = []
        self._recursion: dict[str, str] = {}
        self._test_case_loops: set[int] = set()
        self._max_nesting = 0
        self._guesses = 0
        self._opaque: list[str] = []
        self._implicit: dict[str, Cost] = {}
        result = self._block(program.entry)
        self.total: Cost = result.cost
        for cost in self._implicit.values():
            self.total = self.total | cost
        if program.setup:
            # A walk of its own: the setup's loops and calls must not count towards the total.
            setup = Program(program.language, program.functions, program.setup)
            self._opaque += Analysis(setup).opaque

    @property
    def evidence(self) -> dict[str, Any]:
        loops = [self._loops[line] for line in sorted(self._loops)]
        return {
            "loops": loops,
            "max_loop_nesting": self._max_nesting,
            "recursion": dict(self._recursion),
            "library_calls": sorted(set(self._library)),
            "test_case_loops": sorted(self._test_case_loops),
            "implicit_calls": {
                name: cost.describe() for name, cost in self._implicit.items() if cost != CONSTANT
            },
            "total": self.total.describe(),
        }

    @property
    def guesses(self) -> int:
        return self._guesses

    @property
    def opaque(self) -> list[str]:
        """What the entry point reaches and the analysis cannot see into, one line each."""
        return self._opaque

    def _block(self, body: list[Stmt]) -> _Eval:
        result = _Eval()
        for stmt in body:
            result.merge(self._stmt(stmt))
        return result

    def _stmt(self, stmt: Stmt) -> _Eval:
        if isinstance(stmt, Loop):
            return self._loop(stmt)
        if isinstance(stmt, Branch):
            return self._branch(stmt)
        if isinstance(stmt, Work):
            self._library.append(f"{stmt.label}: {stmt.cost.describe()}")
            return _Eval(stmt.cost, _per_item(stmt.cost) if stmt.amortised else stmt.cost)
        if isinstance(stmt, Call):
            return self._call(stmt)
        if isinstance(stmt, Opaque):
            self._opaque.append(f"line {stmt.line}: {stmt.reason}")
            return _Eval()
        return _Eval(effects={(stmt.kind, stmt.name)})

    def _branch(self, branch: Branch) -> _Eval:
        result = _Eval()
        branch_id = self._next_branch
        self._next_branch += 1
        frame = self._frames[-1]
        for index, arm in enumerate(branch.arms):
            frame.branch_path.append((branch_id, index))
            result.merge(self._block(arm))
            frame.branch_path.pop()
        return result

    def _loop(self, loop: Loop) -> _Eval:
        frame = self._frames[-1]
        frame.loops.append(loop)
        nesting = sum(1 for f in self._frames for lp in f.loops if lp.bound.cost != CONSTANT)
        self._max_nesting = max(self._max_nesting, nesting)
        body = self._block(loop.body)
        frame.loops.pop()
        kinds = {kind for kind, _ in body.effects}
        outer_fill = any(
            kind == "fill" and name not in loop.local_names for kind, name in body.effects
        )
        bound = loop.bound.cost
        reason = loop.bound.reason
        if {"read", "write"} <= kinds and not outer_fill and bound.degree >= 1:
            # Reads its own input and answers it, keeping nothing: one test case per pass. A
            # loop that halves (an interactive binary search asking a query per pass) is not
            # a run of test cases: the input does not say how many it runs.
            self._test_case_loops.add(loop.line)
            bound, reason = CONSTANT, f"{reason} (independent test cases)"
        if reason.startswith("guess"):
            self._guesses += 1
        self._loops.setdefault(
            loop.line, {"line": loop.line, "bound": bound.describe(), "reason": reason}
        )
        spread = bound * body.free
        free = body.free if loop.bound.amortised else spread
        return _Eval(spread | body.cost, free, body.effects)

    def _call(self, call: Call) -> _Eval:
        function = self._functions.get(call.callee)
        if function is None:
            return _Eval()
        for depth, frame in enumerate(self._frames):
            if frame.function == call.callee:
                self._record_site(call, depth)
                return _Eval()
        summary = self._summarise(function)
        if call.implicit:
            # Where and how often the language calls it is not in the source: about once
            # per element of the collections it serves, once for the whole program.
            costly = summary.cost != CONSTANT
            self._implicit[call.callee] = LINEAR * summary.cost if costly else CONSTANT
            return _Eval()
        effects = {
            (kind, name)
            for kind, name in summary.effects
            if not (kind == "fill" and name in function.local_names)
        }
        free = _per_item(summary.cost) if call.amortised else summary.free
        if call.callee in self._once_per_state and self._reset_in_loop(summary.effects):
            free = summary.cost  # its memo or marks start afresh in each pass
        return _Eval(summary.cost, free, effects)

    def _reset_in_loop(self, effects: set[tuple[str, str]]) -> bool:
        filled = {name for kind, name in effects if kind == "fill"}
        return any(filled & loop.local_names for loop in self._frames[-1].loops)

    def _record_site(self, call: Call, depth: int) -> None:
        loops = [lp for frame in self._frames[depth:] for lp in frame.loops]
        factor = CONSTANT
        for lp in loops:
            factor = factor * lp.bound.cost
        self._sites.setdefault(call.callee, []).append(
            _Site(
                shapes=call.shapes,
                loop_factor=factor,
                in_amortised_loop=any(lp.bound.amortised for lp in loops),
                in_element_loop=any(lp.over_elements for lp in loops),
                resets_guard=call.resets_guard,
                branch_path=tuple(self._frames[-1].branch_path)
                if depth == len(self._frames) - 1
                else (),
            )
        )

    def _summarise(self, function: Function) -> _Eval:
        cached = self._summaries.get(function.name)
        if cached is not None:
            return cached
        self._frames.append(_Frame(function.name))
        body = self._block(function.body)
        self._frames.pop()
        sites = self._sites.pop(function.name, [])
        if sites:
            kind, multiplier, per_call = self._recursion_kind(function, sites, body)
            self._recursion[function.name] = kind
            cost = multiplier * per_call
            # Visiting each state once, callers in a loop share the states: per call it costs
            # one state's work, and the whole search at least once.
            once = function.name in self._once_per_state
            summary = _Eval(cost, per_call if once else cost, body.effects)
        else:
            summary = body
        self._summaries[function.name] = summary
        return summary

    def _recursion_kind(
        self, function: Function, sites: list[_Site], body: _Eval
    ) -> tuple[str, Cost, Cost]:
        varying = {
            index for site in sites for index, shape in enumerate(site.shapes) if shape != "same"
        }
        if function.memo_dimensions:
            dimensions = function.memo_dimensions
            if dimensions < 0:  # memoised on its arguments: each varying one is a dimension
                dimensions = max(len(varying), 1)
            dimensions = min(dimensions, _MAX_MEMO_DIMENSIONS)
            states = Cost(degree=LINEAR.degree * dimensions)
            # Not shared with callers' loops (unlike a visited mark): an index can range over a
            # product or over values (dp[i * m + j][k]), so the table's rank undercounts states
            # and the loops around the call make up for it.
            if any("bitmask" in site.shapes for site in sites):
                return "memoised over subsets (bitmask state)", EXPONENTIAL, body.free
            return f"memoised over {dimensions} dimension(s)", states, body.free
        if function.visit_dimensions and not any(site.resets_guard for site in sites):
            dimensions = min(function.visit_dimensions, _MAX_MEMO_DIMENSIONS)
            self._once_per_state.add(function.name)
            return (
                f"search marking {dimensions}-dimensional states visited",
                Cost(degree=LINEAR.degree * dimensions),
                body.free,
            )
        looped = [site for site in sites if site.loop_factor != CONSTANT]
        if looped:
            if any(site.in_amortised_loop for site in looped):
                self._once_per_state.add(function.name)
                return "graph search (call per adjacent node)", LINEAR, body.free
            if all(site.resets_guard for site in looped):
                return "backtracking (branching in a loop)", EXPONENTIAL, CONSTANT
            # A parameter is shared state too: the calls pass the same collection on. Calls on a
            # collection's elements (a tree's children) need no mark to visit each once.
            own = function.local_names - set(function.params)
            counting = not any(site.in_element_loop for site in looped)
            if counting and not any(
                kind == "fill" and name not in own for kind, name in body.effects
            ):
                return "branching in a loop, nothing marked visited", EXPONENTIAL, CONSTANT
            self._guesses += 1
            return "search guarded by a visited mark", LINEAR, body.cost
        branching = max(sum(1 for other in sites if _compatible(site, other)) for site in sites)
        shapes = {_site_shape(site) for site in sites}
        if shapes == {"chased"} and branching == 1:
            return "union-find root walk", LOG, body.cost
        if shapes <= {"halved", "reduced_mod"}:
            if branching >= 2:
                if body.cost >= LINEAR:
                    return "divide and conquer", LOG, body.cost
                return "divide and conquer over halves", LINEAR, body.cost
            return "halving recursion", LOG, body.cost
        if branching >= 2:
            return f"branching recursion ({branching} calls)", EXPONENTIAL, CONSTANT
        return "linear recursion", LINEAR, body.cost


def _per_item(cost: Cost) -> Cost:
    """``cost`` less one factor of n: work on data read in this iteration, which the
    enclosing loop's iterations add up to one input size."""
    if cost.exponential or cost.degree < 1:
        return cost
    return Cost(degree=cost.degree - 1, log_power=cost.log_power)


def _site_shape(site: _Site) -> str:
    for shape in ("bitmask", "halved", "reduced_mod", "stepped", "chased"):
        if shape in site.shapes:
            return shape
    return "other"


def _compatible(first: _Site, second: _Site) -> bool:
    """Whether both call sites can run in one invocation (not in different arms of an if)."""
    arms = dict(first.branch_path)
    return all(arms.get(branch, arm) == arm for branch, arm in second.branch_path)
