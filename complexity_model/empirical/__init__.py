"""Empirical complexity: time a solution at growing input sizes in the sandbox and fit."""

from complexity_model.empirical._engine import Sandboxes
from complexity_model.empirical._fit import FitResult, Point, choose_class
from complexity_model.empirical.judge import EmpiricalComplexityJudge, Measurement

__all__ = [
    "EmpiricalComplexityJudge",
    "FitResult",
    "Measurement",
    "Point",
    "Sandboxes",
    "choose_class",
]
