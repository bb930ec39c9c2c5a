"""One submission through /v1/judge, as the API tests send it."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def judge_one(client: TestClient, submission: dict[str, Any]) -> dict[str, Any]:
    """The result of judging ``submission`` alone (the HTTP call must succeed)."""
    response = client.post("/v1/judge", json={"submissions": [submission]})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["results"][0]
    return result
