"""Growth rates as ``2^n`` flag, polynomial degree and log power, and their arithmetic.

Sequential code costs the maximum of its parts; a loop multiplies its bound by its body. Every
input size (n, m, k, a string's length) counts as the same ``n``, as the CodeComplex labels do.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from complexity_model.ladder import LADDER

_O1, _LOG, _N, _NLOGN, _N2, _N3, _EXP = LADDER


@dataclass(frozen=True, order=True)
class Cost:
    """``2^n`` when ``exponential``, else ``n^degree * log(n)^log_power``."""

    exponential: bool = False
    degree: Fraction = Fraction(0)
    log_power: int = 0

    def __mul__(self, other: Cost) -> Cost:
        return Cost(
            self.exponential or other.exponential,
            self.degree + other.degree,
            self.log_power + other.log_power,
        )

    def __pow__(self, exponent: int) -> Cost:
        return Cost(self.exponential, self.degree * exponent, self.log_power * exponent)

    def __or__(self, other: Cost) -> Cost:
        """The larger of two costs (what running both one after the other costs)."""
        return max(self, other)

    def ladder_class(self) -> str:
        if self.exponential:
            return _EXP
        if self.degree >= 3:
            return _N3
        if self.degree >= 2:
            return _N2
        if self.degree >= 1:
            return _NLOGN if self.log_power and self.degree == 1 else _N
        if self.degree > 0:
            # sqrt(n) and the like sit between log n and n: the labels call them linear.
            return _N
        return _LOG if self.log_power else _O1

    def describe(self) -> str:
        if self.exponential:
            return "2^n"
        parts = []
        if self.degree:
            parts.append("n" if self.degree == 1 else f"n^{self.degree}")
        if self.log_power:
            parts.append("log n" if self.log_power == 1 else f"log^{self.log_power} n")
        return " ".join(parts) or "1"


CONSTANT = Cost()
LOG = Cost(log_power=1)
SQRT = Cost(degree=Fraction(1, 2))
LINEAR = Cost(degree=Fraction(1))
N_LOG_N = Cost(degree=Fraction(1), log_power=1)
QUADRATIC = Cost(degree=Fraction(2))
EXPONENTIAL = Cost(exponential=True)
