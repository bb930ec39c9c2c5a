"""Derived generators in the sandbox: a stdin problem with tests only, timed end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from complexity_model.cli import app
from complexity_model.derive.judge import DerivingJudge
from complexity_model.empirical import EmpiricalComplexityJudge
from complexity_model.problem import ComplexityProblem

CONTEST = (
    Path(__file__).resolve().parents[2] / "complexity_model" / "data" / "contest_problems.jsonl"
)


def _row(problem_id: str) -> dict[str, object]:
    rows = [json.loads(line) for line in CONTEST.read_text().splitlines()]
    return next(row for row in rows if row["id"] == problem_id)


@pytest.mark.integration
@pytest.mark.parametrize("label", ["O(n)", "O(n^2)"])
def test_a_problem_with_tests_only_is_timed_on_a_derived_generator(
    judge: EmpiricalComplexityJudge, label: str
) -> None:
    row = _row("cc-equal-letter-pairs")
    problem = ComplexityProblem.model_validate(row)
    assert problem.input_generator is None
    solution = next(s for s in row["solutions"] if s["label"] == label)  # type: ignore[attr-defined]
    estimate = DerivingJudge(judge).estimate(solution["code"], "python", problem)
    assert estimate.predicted == label, estimate.evidence
    generator = estimate.evidence["generator"]
    assert generator["derived"] is True and generator["spec"]["nodes"][0]["node"] == "str"


@pytest.mark.integration
def test_derive_command_saves_a_validated_generator(tmp_path: Path) -> None:
    row = _row("cc-best-window")
    path = tmp_path / "problems.jsonl"
    path.write_text(json.dumps(row) + "\n")
    result = CliRunner().invoke(app, ["derive", str(path)])
    assert result.exit_code == 0, result.output
    assert "derived 1 of 1" in result.output
    saved = json.loads(path.read_text())
    assert saved["input_generator_derived"] is True
    namespace: dict[str, object] = {}
    exec(saved["input_generator"], namespace)
    text = namespace["generate"](50)  # type: ignore[operator]
    n, k = map(int, text.split("\n")[0].split())
    assert n == 50 and 1 <= k <= 50
