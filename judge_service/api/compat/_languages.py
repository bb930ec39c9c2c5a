"""SandboxFusion's language names (and the engine's own aliases) mapped to engine languages."""

from __future__ import annotations

from judge_service.exceptions import InvalidJobError
from judge_service.reward import LANGUAGE_ALIASES
from judge_service.sandbox.languages import LANGUAGES

# SandboxFusion's names for the languages our images run. "c" and "javascript" are not
# SandboxFusion names but are accepted; its other languages (php, bash, pytest, ...) are not run.
SANDBOXFUSION_NAMES: dict[str, str] = {
    "python": "python",
    "cpp": "cpp",
    "c": "c",
    "java": "java",
    "go": "go",
    "nodejs": "javascript",
    "javascript": "javascript",
    "rust": "rust",
}


def engine_language(name: str) -> str:
    """The engine language ``name`` means; InvalidJobError naming the choices otherwise."""
    wanted = name.strip().lower()
    language = SANDBOXFUSION_NAMES.get(wanted)
    if language is None:
        language = next(
            (engine for engine, aliases in LANGUAGE_ALIASES.items() if wanted in aliases), None
        )
    if language is None or language not in LANGUAGES:
        raise InvalidJobError(
            f"language {name!r} is not supported here; choose one of "
            f"{', '.join(SANDBOXFUSION_NAMES)}"
        )
    return language
