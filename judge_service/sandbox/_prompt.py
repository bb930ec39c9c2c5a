"""The helpers a HumanEval-style prompt defines, as the tests' own code.

A prompt such as HumanEval/32's defines ``poly`` before the entry point, and the problem's
tests call it (``assert abs(poly(coeffs, candidate(coeffs))) < 1e-4``). The program the
candidate sends continues the prompt, so it may also *redefine* ``poly`` (to return 0, say),
and tests run beside the program's definitions would then check the answer with the
candidate's own helper. With the problem's prompt, assert-mode tests that name one of its
helpers get the prompt's definitions: every top-level import, function, class and assignment
of the prompt except the entry point, put before the test code, so that they run in the test
process (the runner), never in the candidate's.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from judge_service.sandbox.errors import InvalidJobError

_DEFINITIONS = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Assign,
    ast.AnnAssign,
)


@lru_cache(maxsize=1024)
def prompt_helpers(prompt: str, entry_point: str) -> tuple[str, frozenset[str]]:
    """The prompt's helper code and the names it defines (imports included); ``InvalidJobError``
    when the prompt is not Python."""
    try:
        module = ast.parse(prompt)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise InvalidJobError(f"the problem's prompt is not valid Python: {error}") from None
    kept = [
        node
        for node in module.body
        if isinstance(node, _DEFINITIONS) and _defined(node) != {entry_point.partition(".")[0]}
    ]
    names = frozenset(name for node in kept for name in _defined(node))
    return "\n".join(ast.unparse(node) for node in kept), names


@lru_cache(maxsize=4096)
def with_helpers(test_code: str, helpers: str, names: frozenset[str]) -> str:
    """``test_code`` preceded by the helpers when it names one of them (a test that does not
    keeps its text, and so its plan: see ``_assert_plan``)."""
    if not helpers:
        return test_code
    try:
        used = {node.id for node in ast.walk(ast.parse(test_code)) if isinstance(node, ast.Name)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return test_code  # judged as it is: the runner reports the syntax error
    return f"{helpers}\n\n{test_code}" if used & names else test_code


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
    return {
        name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)
    }
