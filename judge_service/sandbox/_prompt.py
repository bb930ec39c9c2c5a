"""The helpers a HumanEval-style prompt defines, as the tests' own code.

A prompt such as HumanEval/32's defines ``poly`` before the entry point, and the problem's
tests call it (``assert abs(poly(coeffs, candidate(coeffs))) < 1e-4``). The program the
candidate sends continues the prompt, so it may also *redefine* ``poly`` (to return 0, say),
and tests run beside the program's definitions would then check the answer with the
candidate's own helper. With the problem's prompt, assert-mode tests that name one of the
names it binds get the prompt's code but the entry point (see :func:`prompt_helpers`), put
before the test code, so that it runs in the test process (the runner), never in the
candidate's.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from judge_service.sandbox.errors import InvalidJobError

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def prompt_helpers(language: str, prompt: str, entry_point: str) -> tuple[str, frozenset[str]]:
    """The prompt's helper code and the names it binds, for a language whose assert mode runs
    tests apart from the program (Python, JavaScript; nothing for the others);
    ``InvalidJobError`` when the prompt cannot be read."""
    if language == "python":
        return _python_helpers(prompt, entry_point)
    if language == "javascript":
        return _javascript_helpers(prompt, entry_point)
    return "", frozenset()


def with_helpers(language: str, test_code: str, helpers: str, names: frozenset[str]) -> str:
    """``test_code`` preceded by the helpers when it names one of them (a test that does not
    keeps its text, and so its plan: see ``_assert_plan``)."""
    if not helpers:
        return test_code
    used = _python_names(test_code) if language == "python" else _javascript_names(test_code)
    return f"{helpers}\n\n{test_code}" if used & names else test_code


@lru_cache(maxsize=1024)
def _python_helpers(prompt: str, entry_point: str) -> tuple[str, frozenset[str]]:
    """Python: the helper code and the names it binds at module level.

    The helpers are every statement before the entry point's definition (a helper may be
    defined under ``try`` or ``if``; a statement after the entry point may call it) and the
    definitions and imports after it."""
    try:
        module = ast.parse(prompt)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise InvalidJobError(f"the problem's prompt is not valid Python: {error}") from None
    entry = entry_point.partition(".")[0]
    kept: list[ast.stmt] = []
    after_entry = False
    for node in module.body:
        if isinstance(node, _SCOPES) and node.name == entry:
            after_entry = True
        elif not after_entry or isinstance(node, (*_SCOPES, ast.Import, ast.ImportFrom)):
            kept.append(node)
    names = frozenset(name for node in kept for name in _bound(node))
    return "\n".join(ast.unparse(node) for node in kept), names


@lru_cache(maxsize=4096)
def _python_names(test_code: str) -> frozenset[str]:
    try:
        tree = ast.parse(test_code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()  # judged as it is: the runner reports the syntax error
    return frozenset(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))


@lru_cache(maxsize=1024)
def _javascript_helpers(prompt: str, entry_point: str) -> tuple[str, frozenset[str]]:
    """JavaScript: the prompt up to the entry point's declaration (a HumanEval-X prompt stops
    inside it), and the names its top-level declarations bind. The test wrapper's proxies are
    parameters of an enclosing function, so the helpers' declarations shadow them."""
    name = re.escape(entry_point.partition(".")[0])
    function = rf"(?:async\s+)?function\s*\*?\s*{name}\b"
    binding = rf"(?:const|let|var)\s+{name}\b"
    declaration = re.search(rf"^[ \t]*(?:export\s+)?(?:{function}|{binding})", prompt, re.MULTILINE)
    if declaration is None:
        raise InvalidJobError(f"the problem's prompt does not declare {entry_point!r}")
    helpers = prompt[: declaration.start()]
    names = frozenset(match.group(1) for match in _JS_DECLARATION.finditer(helpers))
    return helpers.strip(), names


# Top-level declarations (at the start of a line): what a HumanEval-X prompt's helpers are.
_JS_DECLARATION = re.compile(
    r"^(?:export\s+)?(?:(?:async\s+)?function\s*\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)


@lru_cache(maxsize=4096)
def _javascript_names(test_code: str) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Za-z_$][\w$]*", test_code))


def _bound(node: ast.AST) -> set[str]:
    """Names ``node`` binds in the scope it runs in (not inside the functions it defines)."""
    if isinstance(node, _SCOPES):
        return {node.name}
    if isinstance(node, ast.Lambda):
        return set()
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Store) else set()
    names = {node.name} if isinstance(node, ast.ExceptHandler) and node.name else set()
    for child in ast.iter_child_nodes(node):
        names |= _bound(child)
    return names
