"""A correct program is AC whatever else the batch holds: runaway loops beside correct code in
eight languages, and the 500-item contract batch (Python, C++ and Java), each judged three
times on embedded defaults (SQLite, the in-process dispatcher, the default slots and sandboxes).

Before CPU slots, every sandbox ran at once: 32 per language on 2 cores, and correct Java and R
came back TLE on the wall clock. Every round changes a comment in every program, so nothing is
answered from the result cache: each round is judged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.sandbox._cgroup_cpu import usable_cpus
from judge_service.settings import Settings
from tests.api._contract_batch import SUM, contract_batch

pytestmark = pytest.mark.integration

ROUNDS = 3
SUM_1S = {**SUM, "id": "sum-1s", "time_limit_ms": 1000}
# The loops' problem: one test, one second of CPU for each loop.
ONE_TEST_1S = {**SUM_1S, "id": "one-test-1s", "tests": SUM["tests"][:1]}
# A correct sum of two integers per language, and the comment syntax a round's mark goes in.
CORRECT: dict[str, tuple[str, str]] = {
    "python": ("a, b = map(int, input().split())\nprint(a + b)\n", "#"),
    "c": (
        '#include <stdio.h>\nint main(void) { long a, b; scanf("%ld %ld", &a, &b);'
        ' printf("%ld\\n", a + b); return 0; }\n',
        "//",
    ),
    "cpp": (
        "#include <iostream>\nint main() { long a, b; std::cin >> a >> b;"
        " std::cout << a + b << '\\n'; }\n",
        "//",
    ),
    "java": (
        "import java.util.*;\npublic class Main { public static void main(String[] x) {"
        " Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong();"
        " System.out.println(a + b); } }\n",
        "//",
    ),
    "javascript": (
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
        "console.log(a + b);\n",
        "//",
    ),
    "go": (
        'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n'
        "\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n",
        "//",
    ),
    "rust": (
        "use std::io::Read;\nfn main() { let mut s = String::new();"
        " std::io::stdin().read_to_string(&mut s).unwrap();"
        " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();"
        ' println!("{}", v[0] + v[1]); }\n',
        "//",
    ),
    "r": (
        'a <- scan(file("stdin"), what = integer(), quiet = TRUE)\n'
        'cat(a[1] + a[2], "\\n", sep = "")\n',
        "#",
    ),
}
# The sum each program prints: a wrong one prints it plus one.
SUMS = {language: "a + b" for language in CORRECT} | {"rust": "v[0] + v[1]", "r": "a[1] + a[2]"}
LOOP = "int main() { volatile unsigned long i = 0; for (;;) i++; }\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/judge.db"))) as test:
        assert test.post("/v1/problems", json=SUM).status_code == 200
        assert test.post("/v1/problems", json=SUM_1S).status_code == 200
        assert test.post("/v1/problems", json=ONE_TEST_1S).status_code == 200
        yield test


def _loops_beside_correct_code(mark: str) -> tuple[list[dict[str, Any]], list[str]]:
    """16 C++ loops first (they take the slots first), then in each of 8 languages four
    correct programs and one that adds one too many."""
    items = [
        {"problem_id": "one-test-1s", "language": "cpp", "code": f"{LOOP}// {mark} loop {index}\n"}
        for index in range(16)
    ]
    expected = ["TLE"] * 16
    for language, (code, comment) in CORRECT.items():
        for index in range(5):
            wrong = index == 4
            body = code.replace(SUMS[language], f"{SUMS[language]} + 1") if wrong else code
            items.append(
                {
                    "problem_id": "sum-1s",
                    "language": language,
                    "code": f"{body}{comment} {mark} {index}\n",
                }
            )
            expected.append("WA" if wrong else "AC")
    return items, expected


def _judged(client: TestClient, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for index, item in enumerate(items):
        item["id"] = f"s{index}"
    response = client.post("/v1/judge", json={"submissions": items})
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    assert [result["id"] for result in results] == [item["id"] for item in items]
    return results


def _wrong(
    results: list[dict[str, Any]], expected: list[str], items: list[dict[str, Any]]
) -> list[Any]:
    return [
        (
            item["language"],
            want,
            result["status"],
            result["verdict"],
            result.get("error"),
            [
                (test["verdict"], test.get("limit"), test["time_ms"])
                for test in result.get("tests") or []
            ][:2],
        )
        for item, result, want in zip(items, results, expected, strict=True)
        if (result["status"], result["verdict"]) != ("ok", want)
    ]


def test_runaway_loops_beside_correct_code_in_eight_languages(client: TestClient) -> None:
    for round_number in range(ROUNDS):
        items, expected = _loops_beside_correct_code(f"round {round_number}")
        results = _judged(client, items)
        assert not _wrong(results, expected, items), (
            round_number,
            _wrong(results, expected, items),
        )
        assert all(result["tests"][0]["limit"] == "cpu" for result in results[:16])
    slots = client.get("/health").json()["queue"]["cpu_slots"]
    assert slots["count"] == usable_cpus() and slots["held"] == 0
    assert slots["waited_s"] > 0  # the loops held the slots: the others waited, warm


def test_the_500_item_contract_batch_is_judged_right_every_round(client: TestClient) -> None:
    items, expected = contract_batch(500)
    for round_number in range(ROUNDS):
        marked = [
            {
                **item,
                "code": item["code"]
                + ("\n# " if item["language"] == "python" else "\n// ")
                + f"round {round_number}\n",
            }
            for item in items
        ]
        results = _judged(client, marked)
        assert not any(result["cached"] for result in results)
        assert not _wrong(results, expected, marked), (
            round_number,
            _wrong(results, expected, marked)[:10],
        )
