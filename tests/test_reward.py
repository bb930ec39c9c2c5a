"""Code extraction from completions and the gated reward (judge_service.reward)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from judge_service.reward import RewardConfig, compute_reward, extract_code, strip_reasoning

DEFAULT = RewardConfig()


def cfg(**fields: object) -> RewardConfig:
    return RewardConfig.model_validate(fields)


# --- extraction -------------------------------------------------------------------------------


TWO_BLOCKS = "First try:\n```python\nprint(1)\n```\nBetter:\n```python\nprint(2)\n```\nDone."


def test_last_block_is_the_default() -> None:
    assert extract_code(TWO_BLOCKS, "python", DEFAULT) == "print(2)\n"


def test_first_block() -> None:
    assert extract_code(TWO_BLOCKS, "python", cfg(extraction="first_block")) == "print(1)\n"


def test_whole_returns_the_completion() -> None:
    assert extract_code(TWO_BLOCKS, "python", cfg(extraction="whole")) == TWO_BLOCKS


def test_whole_drops_reasoning_and_blank_is_none() -> None:
    config = cfg(extraction="whole")
    assert extract_code("<think>hmm</think>print(3)", "python", config) == "print(3)"
    assert extract_code("  \n", "python", config) is None


def test_tilde_fences_and_info_string_extras() -> None:
    text = "~~~python title=main.py\nx = 1\n~~~\n"
    assert extract_code(text, "python", DEFAULT) == "x = 1\n"
    assert extract_code("````{.python}\ny = 2\n````\n", "python", DEFAULT) == "y = 2\n"


def test_language_block_preferred_over_unlabelled() -> None:
    text = "```python\nanswer()\n```\nExample input:\n```\n3 4\n```\n"
    assert extract_code(text, "python", DEFAULT) == "answer()\n"


@pytest.mark.parametrize(
    ("language", "label"),
    [
        ("python", "py"),
        ("python", "python3"),
        ("python", "Python"),
        ("cpp", "c++"),
        ("cpp", "cc"),
        ("cpp", "cxx"),
        ("cpp", "cpp"),
        ("javascript", "js"),
        ("javascript", "node"),
        ("go", "golang"),
        ("rust", "rs"),
        ("java", "java"),
        ("c", "c"),
    ],
)
def test_language_aliases(language: str, label: str) -> None:
    text = f"```{label}\nCODE\n```\n```\nother\n```\n"
    assert extract_code(text, language, DEFAULT) == "CODE\n"


def test_other_language_blocks_ignored() -> None:
    text = (
        "```cpp\nint main() {}\n```\n```\nprint('unlabelled')\n```\n```bash\npython main.py\n```\n"
    )
    assert extract_code(text, "python", DEFAULT) == "print('unlabelled')\n"
    assert extract_code(text, "cpp", DEFAULT) == "int main() {}\n"
    # c is not cpp: a c++ block is another language for a C submission
    assert extract_code("```cpp\nint x;\n```\n", "c", DEFAULT) is None


def test_only_other_language_blocks_is_none_even_without_require_fence() -> None:
    text = "Here it is in Java:\n```java\nclass Main {}\n```\n"
    assert extract_code(text, "python", cfg(require_fence=False)) is None


def test_unfenced_fallback_without_require_fence() -> None:
    text = "\n\nimport sys\nprint(sys.stdin.read())\n\n"
    assert extract_code(text, "python", DEFAULT) == "import sys\nprint(sys.stdin.read())\n"


def test_unfenced_is_format_failure_with_require_fence() -> None:
    assert extract_code("print(1)\n", "python", cfg(require_fence=True)) is None
    fenced = "```python\nprint(1)\n```"
    assert extract_code(fenced, "python", cfg(require_fence=True)) == "print(1)\n"


def test_unclosed_final_fence_runs_to_the_end() -> None:
    text = "```python\nprint(1)\n```\nNow faster:\n```python\ndef f():\n    return 2\n"
    assert extract_code(text, "python", DEFAULT) == "def f():\n    return 2\n"


def test_closing_fence_must_be_as_long_and_bare() -> None:
    text = "````markdown\n```python\nnot this\n```\n````\n```python\nthis\n```\n"
    assert extract_code(text, "python", cfg(extraction="first_block")) == "this\n"
    # a line opening a labelled block inside a block does not close it
    text = "```\na\n```python\nb\n```\n"
    assert extract_code(text, "python", DEFAULT) == "a\n```python\nb\n"


def test_indented_fence_is_dedented() -> None:
    text = "1. Code:\n   ```python\n   def f():\n       return 1\n   ```\n"
    assert extract_code(text, "python", DEFAULT) == "def f():\n    return 1\n"


def test_inline_triple_backticks_are_not_fences() -> None:
    assert extract_code("use ```print(1)``` here", "python", DEFAULT) == (
        "use ```print(1)``` here\n"
    )


def test_think_sections_stripped_before_searching() -> None:
    text = (
        "<think>Maybe\n```python\nwrong()\n```\n</think>\nAnswer:\n```python\nright()\n```\n"
        "<THINK>\n```python\nalso_wrong()\n```\n</THINK>"
    )
    assert extract_code(text, "python", DEFAULT) == "right()\n"


def test_think_closed_but_opened_in_prompt() -> None:
    text = "reasoning\n```python\nwrong()\n```\n</think>\n```python\nright()\n```"
    assert extract_code(text, "python", DEFAULT) == "right()\n"


def test_unclosed_think_is_all_reasoning() -> None:
    truncated = "<think>\n```python\ndraft()\n```\nstill thinking"
    assert extract_code(truncated, "python", DEFAULT) is None
    assert strip_reasoning("code\n<think>cut off") == "code\n"


@pytest.mark.parametrize(
    "completion",
    ["", "   \n\t\n", "<think>only reasoning</think>", "```python\n```", "```python\n\n  \n```\n"],
)
def test_nothing_usable_is_none(completion: str) -> None:
    assert extract_code(completion, "python", DEFAULT) is None


def test_empty_block_is_skipped() -> None:
    text = "```python\nreal()\n```\n```python\n```\n"
    assert extract_code(text, "python", DEFAULT) == "real()\n"


# --- reward -----------------------------------------------------------------------------------


def test_time_counted_only_at_full_pass_rate() -> None:
    full = compute_reward(extracted=True, pass_rate=1.0, time_reward=0.5, config=DEFAULT)
    assert (full.format, full.correctness, full.time, full.total) == (0.0, 1.0, 0.5, 1.5)

    partial = compute_reward(extracted=True, pass_rate=0.75, time_reward=1.0, config=DEFAULT)
    assert (partial.correctness, partial.time, partial.total) == (0.75, 0.0, 0.75)


def test_no_time_signal_counts_no_time() -> None:
    out = compute_reward(extracted=True, pass_rate=1.0, time_reward=None, config=DEFAULT)
    assert (out.time, out.total) == (0.0, 1.0)


def test_weights_and_format_ok() -> None:
    config = cfg(format_ok=0.1, correctness_weight=2.0, time_weight=0.5)
    out = compute_reward(extracted=True, pass_rate=1.0, time_reward=1.0, config=config)
    assert (out.format, out.correctness, out.time) == (0.1, 2.0, 0.5)
    assert out.total == pytest.approx(2.6)
    out = compute_reward(extracted=True, pass_rate=0.5, time_reward=1.0, config=config)
    assert (out.correctness, out.time) == (1.0, 0.0)


def test_all_or_nothing() -> None:
    config = cfg(correctness_mode="all_or_nothing")
    almost = compute_reward(extracted=True, pass_rate=0.99, time_reward=1.0, config=config)
    assert (almost.correctness, almost.time, almost.total) == (0.0, 0.0, 0.0)
    full = compute_reward(extracted=True, pass_rate=1.0, time_reward=1.0, config=config)
    assert (full.correctness, full.time, full.total) == (1.0, 1.0, 2.0)


def test_format_penalty_when_not_extracted() -> None:
    out = compute_reward(extracted=False, pass_rate=None, time_reward=None, config=DEFAULT)
    assert (out.format, out.correctness, out.time, out.total) == (-1.0, 0.0, 0.0, -1.0)
    # whatever the pass rate and time reward, nothing extracted earns only the penalty
    out = compute_reward(
        extracted=False, pass_rate=1.0, time_reward=1.0, config=cfg(format_penalty=-0.5)
    )
    assert (out.correctness, out.time, out.total) == (0.0, 0.0, -0.5)


def test_pass_rate_none_is_a_system_error_not_a_reward() -> None:
    with pytest.raises(ValueError, match="system error"):
        compute_reward(extracted=True, pass_rate=None, time_reward=1.0, config=DEFAULT)


@pytest.mark.parametrize("pass_rate", [-0.1, 1.01, float("nan")])
def test_pass_rate_out_of_range(pass_rate: float) -> None:
    with pytest.raises(ValueError, match="pass_rate"):
        compute_reward(extracted=True, pass_rate=pass_rate, time_reward=None, config=DEFAULT)


def test_non_finite_time_reward_rejected() -> None:
    with pytest.raises(ValueError, match="time_reward"):
        compute_reward(extracted=True, pass_rate=1.0, time_reward=float("inf"), config=DEFAULT)


def test_config_defaults_and_validation() -> None:
    assert DEFAULT.model_dump() == {
        "format_ok": 0.0,
        "format_penalty": -1.0,
        "correctness_weight": 1.0,
        "correctness_mode": "pass_rate",
        "time_weight": 1.0,
        "time_decay": 0.5,
        "extraction": "last_block",
        "require_fence": False,
    }
    assert all(f.description for f in RewardConfig.model_fields.values())
    with pytest.raises(ValidationError):
        cfg(correctness_mode="partial")
    with pytest.raises(ValidationError):
        cfg(extraction="middle_block")
    with pytest.raises(ValidationError):
        cfg(time_wieght=1.0)
    with pytest.raises(ValidationError):
        cfg(format_penalty=float("-inf"))
    with pytest.raises(ValidationError):
        cfg(time_decay=1.0)
