"""The result cache never answers for a different program: its key is the code as submitted.

Whitespace a normaliser would drop can change what a program does (a backslash followed by
spaces is a SyntaxError; spaces or a tab inside a multi-line string are output; a leading blank
line moves every line number; a program can read its own source), so each spelling below is
judged, in either order, on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from judge_service.api import create_app
from judge_service.settings import Settings
from judge_service.store import code_hash
from judge_service.store.models import SubmissionRow

pytestmark = pytest.mark.integration

PROBLEMS = [
    {"id": "two", "tests": [{"input": "", "output": "2"}]},
    {"id": "a-tab", "tests": [{"input": "", "output": "a\t\n"}], "checker": {"kind": "exact"}},
    {"id": "line-one", "tests": [{"input": "", "output": "1"}]},
    {"id": "no-cr", "tests": [{"input": "", "output": "0"}]},
]

# (problem, [(code, verdicts it may get)]): every code of a case normalises to the same text.
BROKEN = ("CE", "RE")
CASES = {
    "line-continuation": (
        "two",
        [("x = 1 + \\\n1\nprint(x)\n", ("AC",)), ("x = 1 + \\   \n1\nprint(x)\n", BROKEN)],
    ),
    "string-literal-line-end": (
        "a-tab",
        [
            ('print("""a   \n""", end="")\n', ("WA",)),
            ('print("""a\t\n""", end="")\n', ("AC",)),
            ('print("""a\n""", end="")\n', ("WA",)),
        ],
    ),
    "leading-blank-line": (
        "line-one",
        [
            ("\nimport sys; print(sys._getframe().f_lineno)\n", ("WA",)),
            ("import sys; print(sys._getframe().f_lineno)\n", ("AC",)),
        ],
    ),
    "crlf": (
        "no-cr",
        [
            ('print(open(__file__, "rb").read().count(13))\r\n', ("WA",)),
            ('print(open(__file__, "rb").read().count(13))\n', ("AC",)),
        ],
    ),
}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        sandboxes_per_language=1,
        complexity_empirical=False,
        api_keys=["secret"],
    )
    with TestClient(create_app(settings), headers={"Authorization": "Bearer secret"}) as c:
        for problem in PROBLEMS:
            assert c.post("/v1/problems", json=problem).status_code == 200
        yield c


def _judge(client: TestClient, problem: str, codes: list[str]) -> list[dict[str, Any]]:
    items = [{"problem_id": problem, "language": "python", "code": code} for code in codes]
    response = client.post("/v1/judge", json={"submissions": items})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


@pytest.mark.parametrize("order", ["forward", "reverse"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_each_spelling_gets_its_own_verdict_one_request_at_a_time(
    client: TestClient, case: str, order: str
) -> None:
    problem, spellings = CASES[case]
    for code, verdicts in spellings if order == "forward" else spellings[::-1]:
        [result] = _judge(client, problem, [code])
        assert result["verdict"] in verdicts and not result["cached"], (code, result)


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_spelling_gets_its_own_verdict_in_one_batch(client: TestClient, case: str) -> None:
    problem, spellings = CASES[case]
    codes = [code for code, _ in spellings]
    for (code, verdicts), result in zip(spellings, _judge(client, problem, codes), strict=True):
        assert result["verdict"] in verdicts, (code, result)
    again = _judge(client, problem, codes)
    for (code, verdicts), result in zip(spellings, again, strict=True):
        assert result["verdict"] in verdicts and result["cached"], (code, result)


def test_a_stored_submission_keeps_the_hash_of_its_code(client: TestClient) -> None:
    codes = [code for code, _ in CASES["line-continuation"][1]]
    _judge(client, "two", codes)
    store = client.app.state.judge.store  # type: ignore[attr-defined]
    with store.engine.connect() as connection:
        stored = connection.execute(select(SubmissionRow.code_hash).order_by(SubmissionRow.id))
        assert list(stored.scalars()) == [code_hash(code) for code in codes]
