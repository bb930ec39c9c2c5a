"""Static complexity analysis for Python, Java and C++ (see :class:`StaticComplexityJudge`)."""

from complexity_model.static.judge import SUPPORTED_LANGUAGES, StaticComplexityJudge

__all__ = ["SUPPORTED_LANGUAGES", "StaticComplexityJudge"]
