"""``judge bench``'s table and its argument checks (the measurements themselves are bench/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from _table import BEGIN, END, Row, markdown, replace_block  # noqa: E402


def test_a_row_gives_its_ratio_against_the_reference_or_none_without_one() -> None:
    faster = Row("w", 150.0, 300.0, "programs/s", "floor", "cmd")
    assert faster.ratio == 0.5
    assert Row("w", 1.0, None, "s", "", "cmd").ratio is None
    assert Row("w", 1.0, 0.0, "s", "x", "cmd").ratio is None


def test_the_table_has_one_line_per_workload_with_its_reference_and_command() -> None:
    rows = [
        Row("HumanEval", 120.0, 300.0, "programs/s", "bare floor", "python a.py", goal=">= 0.40x"),
        Row("Static", 3.5, None, "ms", "", "judge complexity evaluate"),
    ]
    lines = markdown(rows).splitlines()
    assert len(lines) == 2 + len(rows)
    assert lines[2].startswith("| HumanEval | 120 programs/s | 300 programs/s (bare floor) | 0.40x")
    assert "`python a.py`" in lines[2] and ">= 0.40x" in lines[2]
    assert lines[3].startswith("| Static | 3.5 ms | - | - |")


def test_the_readme_block_between_the_markers_is_replaced_and_the_rest_kept() -> None:
    text = f"intro\n{BEGIN}\nold table\n{END}\nafter\n"
    once = replace_block(text, "| new |\n")
    assert once == f"intro\n{BEGIN}\n| new |\n{END}\nafter\n"
    assert replace_block(once, "| newer |") == f"intro\n{BEGIN}\n| newer |\n{END}\nafter\n"
    with pytest.raises(ValueError, match="no <!-- judge bench: begin -->"):
        replace_block("no markers here", "| t |")


def test_an_unknown_workload_is_refused_before_anything_runs() -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH / "suite.py"), "--only", "humaneval,nonsense"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "unknown workload(s) ['nonsense']" in run.stderr


def test_an_old_checkout_that_is_not_one_is_refused_before_anything_runs(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, str(BENCH / "suite.py"), "--only", "submit", "--old", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert f"--old {tmp_path}: not a checkout of this project" in run.stderr
