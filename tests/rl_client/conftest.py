"""A live ``judge serve`` (real HTTP, real Docker sandboxes, SQLite) for the client's tests,
and one whose sandboxes cannot start (every item is a system error)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.api._cluster import ApiServer, serving

SUM_PROBLEM = {
    "id": "sum",
    "tests": [{"input": f"{i} {i + 1}\n", "output": str(2 * i + 1)} for i in range(5)],
    "optimal_complexity": "O(1)",
}
SUM_OK = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_WRONG = "a, b = map(int, input().split())\nprint(a - b)\n"


def fenced(code: str) -> str:
    return f"Here is my answer.\n```python\n{code}```\n"


@contextmanager
def sqlite_service(root: Path, **env: str) -> Iterator[ApiServer]:
    """A live service on a SQLite database in ``root``, with ``env`` on top; empirical timing
    off (the static complexity judge answers), so a test does not wait on timing runs it does
    not look at."""
    base = {
        "JUDGE_DATABASE_URL": f"sqlite:///{root}/judge.db",
        "JUDGE_COMPLEXITY_EMPIRICAL": "false",
    }
    with serving({**base, **env}, root / "serve.log") as api:
        yield api


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """The service with the ``sum`` problem stored."""
    root: Path = tmp_path_factory.mktemp("service")
    with sqlite_service(root, JUDGE_SANDBOXES_PER_LANGUAGE="2") as api:
        import httpx

        assert httpx.post(f"{api.url}/v1/problems", json=SUM_PROBLEM).status_code == 200
        yield api


@pytest.fixture(scope="module")
def broken_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """Sandboxes down: the images do not exist, so every judged item is a system error."""
    root: Path = tmp_path_factory.mktemp("broken")
    env = {
        "JUDGE_DATABASE_URL": f"sqlite:///{root}/judge.db",
        "JUDGE_IMAGE_PREFIX": "judge-no-such-image-",
    }
    with serving(env, root / "serve.log") as api:
        import httpx

        assert httpx.post(f"{api.url}/v1/problems", json=SUM_PROBLEM).status_code == 200
        yield api
