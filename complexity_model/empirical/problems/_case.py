"""One benchmark problem: its generator and solutions whose class is known by construction."""

from __future__ import annotations

from dataclasses import dataclass, field

from complexity_model.problem import ComplexityProblem, ReferenceSolution

__all__ = ["Case", "problem_of"]


@dataclass(frozen=True)
class Case:
    id: str
    entry_point: str | None
    """The function to call; None for a stdin problem (the whole program runs)."""
    generator: str
    solutions: dict[str, str]
    """Ladder class -> Python solution of that class."""
    optimal: str
    cpp: dict[str, str] = field(default_factory=dict)
    """Ladder class -> C++ solution of that class (stdin problems)."""
    reference: str = ""
    """Another Python solution of the optimal class, used as the problem's reference, so that
    the benchmark's optimal solution is judged against a different program; empty: the
    optimal solution is the reference."""

    def pairs(self) -> list[tuple[str, str, str]]:
        """(language, class, source) of every solution."""
        return [("python", cls, code) for cls, code in self.solutions.items()] + [
            ("cpp", cls, code) for cls, code in self.cpp.items()
        ]


def problem_of(case: Case) -> ComplexityProblem:
    """The problem of a case, with its reference (or optimal) solution."""
    if case.reference:
        reference = ReferenceSolution(language="python", code=case.reference)
    elif case.optimal in case.solutions:
        reference = ReferenceSolution(language="python", code=case.solutions[case.optimal])
    else:
        reference = ReferenceSolution(language="cpp", code=case.cpp[case.optimal])
    return ComplexityProblem(
        id=f"empirical-{case.id}",
        mode="stdin" if case.entry_point is None else "function",
        entry_point=case.entry_point,
        reference=reference,
        optimal_complexity=case.optimal,
        input_generator=case.generator,
        memory_limit_mb=1024,
    )
