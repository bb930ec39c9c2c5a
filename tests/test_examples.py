"""The README's first commands, as a newcomer runs them: the example program is AC, and the
example marked wrong is WA (never the other way round, and never a judge failure)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _judge_run(program: str) -> subprocess.CompletedProcess[str]:
    judge = Path(sys.executable).with_name("judge")
    command = [str(judge), "run", str(EXAMPLES / program), "--lang", "python"]
    command += ["--tests", str(EXAMPLES / "sum_tests.jsonl")]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.integration
def test_the_readme_first_example_is_accepted() -> None:
    done = _judge_run("sum.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: AC, passed 3/3" in done.stdout


@pytest.mark.integration
def test_the_readme_wrong_example_is_a_wrong_answer_on_every_test() -> None:
    done = _judge_run("sum_wrong.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "verdict: WA, passed 0/3" in done.stdout


def test_the_readme_runs_the_examples_it_ships() -> None:
    readme = (ROOT / "README.md").read_text()
    for program in ("sum.py", "sum_wrong.py"):
        assert f"judge run examples/{program} --lang python --tests examples/sum_tests.jsonl" in (
            readme
        )
        assert (EXAMPLES / program).is_file()
