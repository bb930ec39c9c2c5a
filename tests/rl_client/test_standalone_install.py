"""rl_client installs on its own, with httpx and nothing of the service, and never imports it.

The install test builds ``./rl_client`` into a fresh virtual environment (pip fetches httpx and
the build backend from the package index) and imports every module there."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rl_client"
SERVICE_PACKAGES = ("judge_service", "complexity_model")
# What a base install must not pull in (the service's stack).
FORBIDDEN = {"fastapi", "celery", "sqlalchemy", "docker", "torch", "uvicorn", "alembic", "redis"}
# Optional extras a module may need; anything else missing is a packaging bug.
EXTRAS = {"typer", "rich", "matplotlib", "torch", "transformers", "pyarrow", "datasets", "trl"}

_PROBE = """
import importlib, json, pkgutil, sys
import rl_client
report = {"file": rl_client.__file__, "missing": {}}
for info in pkgutil.walk_packages(rl_client.__path__, "rl_client."):
    try:
        importlib.import_module(info.name)
    except ModuleNotFoundError as error:
        report["missing"][info.name] = error.name
report["modules"] = sorted(sys.modules)
print(json.dumps(report))
"""


def test_no_module_of_rl_client_imports_the_service() -> None:
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in SERVICE_PACKAGES, f"{path} imports {name}"


def test_fresh_venv_install_pulls_httpx_and_nothing_of_the_service(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(PACKAGE)],
        check=True,
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
    )
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    installed = {item["name"].lower() for item in json.loads(listed.stdout)}
    assert "httpx" in installed and "judge-rl-client" in installed
    assert not installed & FORBIDDEN, installed & FORBIDDEN
    assert not installed & {"judge-service", "pydantic"}, installed
    # Run outside the repository, so that nothing of the working tree is importable.
    probe = subprocess.run(
        [python, "-c", _PROBE],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
    )
    report = json.loads(probe.stdout)
    assert report["file"].startswith(str(env_dir)), report["file"]
    loaded = {name.split(".")[0] for name in report["modules"]}
    assert not loaded & {*SERVICE_PACKAGES, *FORBIDDEN}, loaded & {*SERVICE_PACKAGES, *FORBIDDEN}
    for module, missing in report["missing"].items():
        assert missing.split(".")[0] in EXTRAS, f"{module} needs {missing}"
    assert "rl_client.trl" not in report["missing"] and "rl_client.verl" not in report["missing"]
    assert sys.version_info >= (3, 11)
