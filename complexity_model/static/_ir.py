"""The language-neutral program shape the analysis runs on.

Each front end (Python's ``ast``, tree-sitter for Java and C++) lowers a program to these
nodes: loops with the cost of their bound, branches, library work of known cost, calls to the
program's own functions, and the side effects (reading input, writing output, filling a
collection) that tell independent test cases apart from loops over the input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from complexity_model.static._cost import CONSTANT, Cost

# How a recursive call's argument relates to the caller's parameter in the same position.
# "chased" follows a link stored at the parameter (``find(parent[x])``, a union-find walk).
# "bitmask" sets or clears bits of a subset mask (``mask | 1 << i``): 2^n possible values.
ArgShape = Literal["same", "halved", "stepped", "reduced_mod", "chased", "bitmask", "other"]
EffectKind = Literal["read", "write", "fill"]


@dataclass(frozen=True)
class Bound:
    """How many times a loop runs, and why the front end thinks so."""

    cost: Cost
    reason: str
    # The loop walks one row of an adjacency structure (``adj[u]``) or data read inside the
    # enclosing iteration: across the enclosing loop its iterations add up to one input size.
    amortised: bool = False
    # For a work-list loop (``while queue: queue.pop()``), the collection it drains.
    worklist: str = ""
    # Counters a ``while`` loop steps towards its condition: when none of them is reset in the
    # enclosing loop, they only ever advance (two pointers) and the loop is amortised.
    pointers: frozenset[str] = frozenset()


@dataclass
class Loop:
    bound: Bound
    body: list[Stmt]
    line: int
    # Names the body (re)binds each iteration: filling one of them is not filling outer state.
    local_names: frozenset[str] = frozenset()
    # Visits the elements of a collection (``for child in node.children``) rather than counting.
    over_elements: bool = False


@dataclass
class Branch:
    arms: list[list[Stmt]]


@dataclass
class Work:
    """A library operation or builtin whose cost is known (sorting, a heap push, a slice)."""

    cost: Cost
    label: str
    line: int
    # Works on data read in the enclosing iteration (see Bound.amortised).
    amortised: bool = False


@dataclass
class Call:
    callee: str
    shapes: tuple[ArgShape, ...]
    line: int
    # The call undoes its guard afterwards (``used[i] = False``): backtracking, not a DFS.
    resets_guard: bool = False
    # Passes data read in the enclosing iteration (see Bound.amortised).
    amortised: bool = False
    # A special method the language calls where an operator, comparison, hash table or loop
    # uses the object: where and how often is not in the source, so a costly one counts about
    # once per element, once for the whole program, wherever this call stands.
    implicit: bool = False


@dataclass
class Effect:
    kind: EffectKind
    name: str = ""


@dataclass
class Opaque:
    """Code whose cost cannot be read from the source: a string run by ``exec``, a call
    dispatched on a computed name, a native library. A program that reaches one has no class."""

    reason: str
    line: int


Stmt = Loop | Branch | Work | Call | Effect | Opaque


@dataclass
class Function:
    name: str
    params: tuple[str, ...]
    body: list[Stmt]
    # Dimensions of the memo table (0: not memoised): the states the recursion can visit.
    memo_dimensions: int = 0
    local_names: frozenset[str] = frozenset()
    # Dimensions of the visited mark it returns early on and then sets (``if seen[r][c]:
    # return``; ``seen[r][c] = True``): unless a call undoes the mark, each state runs once.
    visit_dimensions: int = 0


class LazyFunctions(Mapping[str, Function]):
    """The program's functions, each lowered on first use: the analysis only asks for the
    ones the entry point reaches, so unused template code costs nothing."""

    def __init__(self, names: list[str], lower: Callable[[str], Function]) -> None:
        self._names = names
        self._lower = lower
        self._lowered: dict[str, Function] = {}

    def __getitem__(self, name: str) -> Function:
        if name not in self._lowered:
            if name not in self._names:
                raise KeyError(name)
            self._lowered[name] = self._lower(name)
        return self._lowered[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass
class Program:
    language: str
    functions: Mapping[str, Function]
    entry: list[Stmt]
    notes: list[str] = field(default_factory=list)
    # Code that runs once before the entry point whatever the input (module level, the
    # constructor of the entry point's class): searched for opaque code, its cost not counted.
    setup: list[Stmt] = field(default_factory=list)


class EntryPointNotFound(LookupError):
    """The problem names an entry point that the code does not define."""


def advance_only(bound: Bound, rebound_in_enclosing: frozenset[str] | None) -> Bound:
    """``bound`` marked amortised when it is a two-pointer loop: it sits in another loop and
    none of its counters is reset there, so all its passes together advance them once."""
    if rebound_in_enclosing is None or not bound.pointers or bound.amortised:
        return bound
    if bound.pointers & rebound_in_enclosing or bound.cost.exponential:
        return bound
    return Bound(bound.cost, f"{bound.reason} (two pointers: counters never reset)", amortised=True)


def work(cost: Cost, label: str, line: int) -> list[Stmt]:
    """A one-element body with ``label``'s work, or nothing when it is constant."""
    return [] if cost == CONSTANT else [Work(cost, label, line)]


def once_per_pass(arm: list[Stmt]) -> list[Stmt]:
    """``arm``, the branch of an ``if`` that then leaves the loop around it (``if c: ...;
    break``), with its loops marked amortised: they run at most once per run of that loop, so
    its iterations do not multiply them."""
    for stmt in arm:
        if isinstance(stmt, Loop) and not stmt.bound.amortised and not stmt.bound.cost.exponential:
            stmt.bound = Bound(
                stmt.bound.cost,
                f"{stmt.bound.reason} (then leaves the enclosing loop: runs once)",
                amortised=True,
            )
        elif isinstance(stmt, Branch):
            for inner in stmt.arms:
                once_per_pass(inner)
    return arm
