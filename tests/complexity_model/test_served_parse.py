"""The served model's prompt and the strict parsing of its answer."""

from __future__ import annotations

import math

import pytest

from complexity_model.ladder import LADDER, UNKNOWN
from complexity_model.served import build_messages, format_answer, parse_answer
from complexity_model.served._logprobs import answer_probability
from complexity_model.served.prompt import TRUNCATED


@pytest.mark.parametrize(
    ("text", "expected", "confidence"),
    [
        ('{"complexity": "O(n log n)", "confidence": 0.8}', "O(n log n)", 0.8),
        ('  {"confidence": 1, "complexity": "O(N^2)"}\n', "O(n^2)", 1.0),
        ('```json\n{"complexity": "O(1)", "confidence": 0.25}\n```', "O(1)", 0.25),
        ('```\n{"complexity": "linear", "confidence": 0}\n```', "O(n)", 0.0),
        (
            '<think>two nested loops</think>\n{"complexity": "O(n²)", "confidence": 0.9}',
            "O(n^2)",
            0.9,
        ),
        (
            '{"complexity": "O(2^n)", "confidence": 0.6, "why": "branching recursion"}',
            "O(2^n)",
            0.6,
        ),
    ],
)
def test_valid_answers_name_their_class(text: str, expected: str, confidence: float) -> None:
    parsed = parse_answer(text)
    assert parsed.ok
    assert parsed.predicted == expected
    assert parsed.stated_confidence == confidence
    assert parsed.reason is None


@pytest.mark.parametrize(
    ("text", "reason_part"),
    [
        ("", "empty"),
        ("The complexity is O(n log n).", "not a JSON object"),
        ('Sure! {"complexity": "O(n)", "confidence": 0.9}', "not a JSON object"),
        ('{"complexity": "O(n)", "confidence": 0.9} and more', "not a JSON object"),
        ('["O(n)", 0.9]', "not a JSON object"),
        ('{"complexity": "O(n!)", "confidence": 0.9}', "not a ladder class"),
        ('{"complexity": "O(n + m)", "confidence": 0.9}', "not a ladder class"),
        ('{"complexity": "O(n) or O(n^2)", "confidence": 0.5}', "more than one class"),
        ('{"complexity": "unknown", "confidence": 0.9}', "answered unknown"),
        ('{"complexity": 2, "confidence": 0.9}', '"complexity"'),
        ('{"class": "O(n)", "confidence": 0.9}', '"complexity"'),
        ('{"complexity": "O(n)"}', '"confidence"'),
        ('{"complexity": "O(n)", "confidence": "high"}', '"confidence"'),
        ('{"complexity": "O(n)", "confidence": true}', '"confidence"'),
        ('{"complexity": "O(n)", "confidence": 1.5}', "outside [0, 1]"),
        ('{"complexity": "O(n)", "confidence": -0.1}', "outside [0, 1]"),
        ('{"complexity": "O(n)", "confidence": 80}', "outside [0, 1]"),
        ('{"complexity": "O(n)", "confidence": NaN}', "not a JSON object"),
        ('{"complexity": "O(n)", "confidence": 1e999}', "outside [0, 1]"),
        ('```json\n{"complexity": "O(n)", "confidence": 0.9}', "not a JSON object"),
        ("\u0120\u010a\u0120garbage tokens )(", "not a JSON object"),
    ],
)
def test_anything_else_is_unknown_with_a_reason(text: str, reason_part: str) -> None:
    parsed = parse_answer(text)
    assert not parsed.ok
    assert parsed.predicted == UNKNOWN
    assert parsed.stated_confidence == 0.0
    assert parsed.reason is not None and reason_part in parsed.reason


def test_format_answer_parses_back_for_every_class() -> None:
    for cls in LADDER:
        parsed = parse_answer(format_answer(cls, 0.7))
        assert (parsed.predicted, parsed.stated_confidence) == (cls, 0.7)


def test_prompt_asks_for_json_over_the_whole_ladder_and_carries_the_code() -> None:
    code = "for i in range(n):\n    total += i\n"
    system, user = build_messages(code, "python")
    assert system["role"] == "system" and "JSON" in system["content"]
    assert user["role"] == "user"
    assert f"```python\n{code}\n```" in user["content"]
    assert all(cls in user["content"] for cls in LADDER)
    assert '{"complexity": "O(n log n)", "confidence": 0.8}' in user["content"]
    assert "```cpp\n" in build_messages("int main(){}", "C++")[1]["content"]


def test_long_code_is_cut_and_marked() -> None:
    code = "x = 1\n" * 1000
    user = build_messages(code, "python", max_code_chars=100)[1]["content"]
    assert f"```python\n{code[:100]}{TRUNCATED}\n```" in user
    assert len(user) < 1000


def _tokens(*pairs: tuple[str, float]) -> dict[str, object]:
    return {"content": [{"token": token, "logprob": value} for token, value in pairs]}


def test_answer_probability_counts_the_class_tokens_only() -> None:
    content = '{"complexity": "O(n)", "confidence": 0.9}'
    logprobs = _tokens(
        ('{"complexity": "', 0.0),
        ("O(", -0.1),
        ("n)", -0.2),
        ('", "confidence": 0.', 0.0),
        ("9", -3.0),
        ("}", 0.0),
    )
    probability = answer_probability(content, logprobs)
    assert probability == pytest.approx(math.exp(-0.3))


def test_answer_probability_refuses_to_guess_offsets() -> None:
    content = '{"complexity": "O(n)", "confidence": 0.9}'
    assert answer_probability(content, None) is None
    assert answer_probability(content, {"content": None}) is None
    # Tokens that do not spell the content exactly.
    assert answer_probability(content, _tokens(('{"complexity": "O(n)"', -0.1))) is None
    assert answer_probability("no json", _tokens(("no json", -0.1))) is None
