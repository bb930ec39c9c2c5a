"""The static analyser on hand-written programs of known class, bad input, and the evaluation
script end to end on a few rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from complexity_model.ladder import LADDER, UNKNOWN
from complexity_model.static import StaticComplexityJudge
from judge_service.cli import app
from tests.complexity_model._programs import CPP, JAVA, PYTHON

CASES = [
    pytest.param(language, expected, code, id=f"{language}: {name}")
    for language, programs in (("python", PYTHON), ("java", JAVA), ("cpp", CPP))
    for name, (expected, code) in programs.items()
]


@pytest.fixture(scope="module")
def judge() -> StaticComplexityJudge:
    return StaticComplexityJudge()


@pytest.mark.parametrize(("language", "expected", "code"), CASES)
def test_known_programs_get_their_class(
    judge: StaticComplexityJudge, language: str, expected: str, code: str
) -> None:
    estimate = judge.estimate(code, language)
    assert estimate.predicted == expected, estimate.evidence
    assert estimate.method == "static"
    assert 0.0 < estimate.confidence <= 1.0


def test_every_ladder_class_is_covered_by_the_hand_written_set() -> None:
    assert {expected for _, expected, _ in (case.values for case in CASES)} == set(LADDER)


def test_evidence_names_loops_library_calls_and_recursion(judge: StaticComplexityJudge) -> None:
    nested = judge.estimate(PYTHON["all pairs"][1], "python").evidence
    assert nested["max_loop_nesting"] == 2
    assert {loop["bound"] for loop in nested["loops"]} == {"n"}
    sorting = judge.estimate(JAVA["Arrays.sort"][1], "java").evidence
    assert "Arrays.sort: n log n" in sorting["library_calls"]
    recursion = judge.estimate(PYTHON["branching recursion"][1], "python").evidence
    assert recursion["recursion"]["ways"].startswith("branching recursion")
    halving = judge.estimate(PYTHON["halving loop"][1], "python").evidence
    assert halving["loops"][0]["bound"] == "log n"


def test_constant_bounds_and_early_exits_count_as_constant(judge: StaticComplexityJudge) -> None:
    early = "n = int(input())\nfor i in range(n):\n    print(i)\n    break\n"
    assert judge.estimate(early, "python").predicted == "O(1)"
    cpp = "int main() { int s = 0; for (int d = 0; d < 4; d++) s += d; return s; }\n"
    assert judge.estimate(cpp, "cpp").predicted == "O(1)"


def test_test_case_loop_does_not_multiply_but_a_filling_loop_does(
    judge: StaticComplexityJudge,
) -> None:
    filling = (
        "n = int(input())\na = []\nfor _ in range(n):\n    a.append(int(input()))\nprint(a[0])\n"
    )
    assert judge.estimate(filling, "python").predicted == "O(n)"
    tests = judge.estimate(PYTHON["independent test cases"][1], "python")
    assert tests.evidence["test_case_loops"] == [1]


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("def broken(:\n    pass", "python"),
        ("", "java"),
        ("}}}} class {{{ int ) ( ;;", "java"),
        ("\x00\x01\x02 garbage", "cpp"),
        ("main = print 1", "haskell"),
        ("print(1)", ""),
    ],
)
def test_unsupported_or_unparsable_code_is_unknown(
    judge: StaticComplexityJudge, code: str, language: str
) -> None:
    estimate = judge.estimate(code, language)
    assert estimate.predicted == UNKNOWN
    assert estimate.confidence == 0.0
    assert estimate.evidence["reason"]


def test_language_aliases(judge: StaticComplexityJudge) -> None:
    assert judge.estimate(CPP["std::sort"][1], "C++").predicted == "O(n log n)"
    assert judge.estimate(PYTHON["sort then scan"][1], "Python3").predicted == "O(n log n)"


def _rows_file(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"{language}-{index}",
            "language": language,
            "code": code,
            "complexity": expected,
            "label": expected,
        }
        for index, (language, expected, code) in enumerate(case.values for case in CASES)
        if language in {"python", "java"}
    ]
    rows.append(
        {
            "id": "garbage",
            "language": "python",
            "code": "def (:",
            "complexity": "O(n)",
            "label": "linear",
        }
    )
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def test_evaluate_command_prints_and_writes_the_metrics(tmp_path: Path) -> None:
    data = _rows_file(tmp_path)
    out = tmp_path / "numbers.json"
    result = CliRunner().invoke(
        app, ["complexity", "evaluate", "--data", str(data), "--json", str(out)]
    )
    assert result.exit_code == 0, result.output
    for heading in (
        "exact-class accuracy",
        "macro-F1",
        "within-one accuracy",
        "precision",
        "confusion",
        "time per program",
        "static / python",
        "static / java",
    ):
        assert heading in result.output
    numbers = json.loads(out.read_text(encoding="utf-8"))
    python = numbers["languages"]["python"]
    # Every hand-written program is right; the garbage row is unknown and so wrong.
    assert python["count"] == len(PYTHON) + 1
    assert python["accuracy"] == pytest.approx(len(PYTHON) / (len(PYTHON) + 1))
    assert python["confusion"]["O(n)"][UNKNOWN] == 1
    assert numbers["languages"]["java"]["accuracy"] == 1.0
    assert numbers["languages"]["all"]["count"] == len(PYTHON) + len(JAVA) + 1


def test_evaluate_runs_as_a_module(tmp_path: Path) -> None:
    data = _rows_file(tmp_path)
    completed = subprocess.run(
        [sys.executable, "-m", "complexity_model.evaluate", "--data", str(data), "--limit", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "== static / python: 3 programs" in completed.stdout


def test_served_backend_needs_its_endpoint(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["complexity", "evaluate", "--data", str(_rows_file(tmp_path)), "--backend", "served"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 2
    assert "needs --base-url and --model" in result.output
