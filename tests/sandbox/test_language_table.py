"""The README's language table is the engine's (scripts/language_table.py writes it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from judge_service.sandbox.languages import LANGUAGES, canonical_language, language_labels

ROOT = Path(__file__).resolve().parents[2]


def test_readme_table_is_current() -> None:
    check = subprocess.run(
        [sys.executable, "scripts/language_table.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_every_language_is_a_row_with_its_version() -> None:
    readme = (ROOT / "README.md").read_text()
    for spec in LANGUAGES.values():
        assert spec.title and spec.version, spec.name
        assert f"| {spec.title} | `{spec.name}`" in readme, spec.name


@pytest.mark.parametrize(
    ("sent", "meant"),
    [
        ("nodejs", "javascript"),
        ("typescript", "typescript"),
        ("csharp", "csharp"),
        ("R", "r"),
        ("cpp", "cpp"),
        ("python", "python"),
        ("bash", "bash"),
        ("sql", "sql"),
        ("verilog", "verilog"),
        ("racket", "racket"),
        ("go_test", "go_test"),
        ("pytest", "pytest"),
        ("D_ut", "d_ut"),
        ("junit", "junit"),
        ("jest", "jest"),
    ],
)
def test_sandbox_fusion_names_are_names(sent: str, meant: str) -> None:
    assert canonical_language(sent) == meant
    assert sent.lower() in language_labels(meant)


@pytest.mark.parametrize("refused", ["kotlin_script", "julia", "lean"])
def test_languages_not_run_here_are_unknown(refused: str) -> None:
    assert canonical_language(refused) is None


def test_each_image_has_a_dockerfile() -> None:
    for spec in LANGUAGES.values():
        assert (ROOT / "sandbox_images" / spec.image_name / "Dockerfile").is_file(), spec.name
        if spec.parent_image:
            assert spec.parent_image in {s.image_name for s in LANGUAGES.values()}
