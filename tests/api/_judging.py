"""What the API tests share in process: an app on SQLite, and one submission through
/v1/judge, as the API tests send it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.settings import Settings


def sqlite_client(tmp_path: Path, **overrides: Any) -> TestClient:
    """A client of an app on a SQLite database in ``tmp_path``, one sandbox per language and
    empirical timing off, with ``overrides`` on top (the app starts in ``with``)."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        sandboxes_per_language=1,
        complexity_empirical=False,
        **overrides,
    )
    return TestClient(create_app(settings))


def judge_one(client: TestClient, submission: dict[str, Any]) -> dict[str, Any]:
    """The result of judging ``submission`` alone (the HTTP call must succeed)."""
    response = client.post("/v1/judge", json={"submissions": [submission]})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["results"][0]
    return result
