"""SandboxFusion's language names mapped to engine languages, by the engine's language table."""

from __future__ import annotations

from judge_service.exceptions import InvalidJobError
from judge_service.sandbox.languages import LANGUAGES, canonical_language


def engine_language(name: str) -> str:
    """The engine language ``name`` means; InvalidJobError naming the choices otherwise.

    SandboxFusion's names (``nodejs``, ``R``...) are names in the table; its languages not run
    here (kotlin_script, julia, pytest...) are not.
    """
    language = canonical_language(name)
    if language is None:
        raise InvalidJobError(
            f"language {name!r} is not supported here; choose one of {', '.join(LANGUAGES)}"
        )
    return language
