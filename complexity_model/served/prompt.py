"""The prompt and the answer format of the served model, shared by the client and training.

The fine-tuning script (:mod:`complexity_model.train`) trains on exactly the messages that
:func:`build_messages` makes and on :func:`format_answer` as the target, so a fine-tuned model
is asked at serving time the same question it learned to answer.
"""

from __future__ import annotations

import json

from complexity_model.ladder import LADDER

__all__ = ["MAX_CODE_CHARS", "SYSTEM_PROMPT", "TRUNCATED", "build_messages", "format_answer"]

# About 4k tokens of code: CodeComplex's long Java programs are mostly fast-input boilerplate,
# and the part that decides the class is rarely that far in.
MAX_CODE_CHARS = 12_000
TRUNCATED = "\n... (truncated)"

SYSTEM_PROMPT = (
    "You are an expert in algorithm analysis. You classify the worst-case time complexity of "
    "a program as a function of its input size n. You answer with one JSON object and "
    "nothing else."
)

_CLASSES = ", ".join(LADDER)
_QUESTION = (
    "What is the worst-case time complexity of this {language} program in terms of the input "
    f"size n? Choose exactly one of: {_CLASSES}.\n"
    'Answer with JSON only, for example {{"complexity": "O(n log n)", "confidence": 0.8}}, '
    "where confidence is your probability (0 to 1) that the class is right."
)


def build_messages(
    code: str, language: str, *, max_code_chars: int = MAX_CODE_CHARS
) -> list[dict[str, str]]:
    """Chat messages (system, user) asking for the time class of ``code`` as JSON.

    Code longer than ``max_code_chars`` is cut (its head kept) and marked as truncated, so one
    huge submission cannot overflow the model's context.
    """
    if len(code) > max_code_chars:
        code = code[:max_code_chars] + TRUNCATED
    language = language.strip() or "unknown-language"
    fence = language.lower().replace("+", "p")
    user = f"```{fence}\n{code}\n```\n\n{_QUESTION.format(language=language)}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def format_answer(complexity: str, confidence: float = 1.0) -> str:
    """The answer the model is asked for, as a training target or a test server's reply."""
    return json.dumps({"complexity": complexity, "confidence": confidence})
