"""Hostile and malformed client input (issue 10, items 6 and 7): nothing a client sends may give
a 500, stall the event loop, lose a batch or destroy a sandbox.

A bad request is a 4xx naming the field; a bad item of a /v1 batch is that item's error alone.
Bodies are sent as Python's ``json`` writes them (NaN, Infinity, lone-surrogate escapes), which
is what a careless client sends; httpx's own encoder refuses them.
"""

from __future__ import annotations

import base64
import gc
import json
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.api.compat._openrlhf import completion_of
from judge_service.reward import RewardConfig, extract_code
from judge_service.sandbox.languages import java_class_name
from judge_service.settings import Settings
from tests.api._cluster import ApiServer, postgres_database, serving

pytestmark = pytest.mark.integration

SUM = {
    "id": "sum",
    "tests": [{"input": f"{i} {i + 1}\n", "output": str(2 * i + 1)} for i in range(3)],
}
PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
SPECIAL_TOKEN_BOMB = "x" + "<|a|> " * 12000 + "y"
THINK_BOMB = "<think>" * 12000
# Hostile inputs as functions of a scale: a linear pass takes about 4x as long on 4x the input,
# a quadratic one 16x. Ratios, not seconds, so that a busy host fails nothing.
SCALE = 4
MAX_GROWTH = 9.0


def _grows_linearly(make: Callable[[int], Any], run: Callable[[Any], object]) -> None:
    def best_of_three(size: int) -> float:
        data = make(size)
        times = []
        for _ in range(3):
            started = time.perf_counter()
            run(data)
            times.append(time.perf_counter() - started)
        return min(times)

    small, large = best_of_three(1), best_of_three(SCALE)
    # A floor for the small run: below a millisecond the ratio is timer noise.
    assert large <= MAX_GROWTH * max(small, 1e-3), (small, large)


def _settings(tmp_path: Path, **fields: Any) -> Settings:
    defaults: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path}/judge.db",
        "sandboxes_per_language": 1,
        "complexity_empirical": False,
    }
    return Settings(**{**defaults, **fields})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as c:
        assert c.post("/v1/problems", json=SUM).status_code == 200
        yield c


def _post(client: TestClient | httpx.Client, path: str, body: Any) -> httpx.Response:
    """POST ``body`` encoded by ``json.dumps``: NaN, Infinity and ``\\ud800`` pass as written."""
    return client.post(path, content=json.dumps(body), headers={"Content-Type": "application/json"})


def _submit_body(completion: str, tests: Any = None, **config: Any) -> dict[str, Any]:
    if tests is None:
        tests = [{"input": {"stdin": "1 2\n"}, "output": {"stdout": "3"}}]
    return {
        "dataset": "inline",
        "id": 7,
        "completion": completion,
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": "python",
            "provided_data": {"id": 7, "test": tests},
            **config,
        },
    }


def _named(response: httpx.Response, *fields: str) -> str:
    """The response's text, after checking that it is a 4xx naming every one of ``fields``."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:500])
    for name in fields:
        assert name in response.text, (name, response.text[:500])
    return response.text


def _destroyed(client: TestClient) -> int:
    return int(client.app.state.judge.dispatcher.pool.stats.sandboxes_destroyed)  # type: ignore[attr-defined]


# ---- item 6: quadratic regexes ---------------------------------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "completion",
    [
        pytest.param(lambda k: "<think>" * 3000 * k, id="think-opens"),
        pytest.param(lambda k: "<think " * 3000 * k, id="think-open-without-end"),
        pytest.param(lambda k: "<think>" * 25_000 * k + "</think>" * 25_000 * k, id="think-nested"),
        pytest.param(lambda k: "```\n" * 50_000 * k, id="unclosed-fences"),
        pytest.param(lambda k: "````python\n```\n" * 12_500 * k, id="nested-fences"),
        pytest.param(
            lambda k: "```" + "`" * 125_000 * k + "x\n" + " " * 125_000 * k, id="long-fence-line"
        ),
    ],
)
def test_code_extraction_is_linear_on_hostile_completions(completion: Callable[[int], str]) -> None:
    def extract(text: str) -> None:
        for extraction in ("last_block", "whole"):
            extract_code(text, "python", RewardConfig(extraction=extraction))

    _grows_linearly(completion, extract)


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("query", "prompt"),
    [
        pytest.param(lambda k: "x" + "<|a|> " * 3000 * k + "y", lambda k: "", id="special-tokens"),
        pytest.param(
            lambda k: "a" + "<｜x｜>" * 12_500 * k + "b" + " " * 50_000 * k,
            lambda k: "",
            id="fullwidth-tokens",
        ),
        pytest.param(
            lambda k: "q" * 50_000 * k + "</s>" * 12_500 * k,
            lambda k: "q" * 25_000 * k + "x",
            id="prompt-not-found",
        ),
    ],
)
def test_prompt_stripping_is_linear(
    query: Callable[[int], str], prompt: Callable[[int], str]
) -> None:
    _grows_linearly(lambda k: (query(k), prompt(k)), lambda pair: completion_of(*pair))


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "code",
    [
        pytest.param(lambda k: "class " + "a" * 50_000 * k, id="one-long-declaration"),
        pytest.param(lambda k: "xclass a {" * 12_500 * k, id="bodies-without-class-keyword"),
        pytest.param(lambda k: "class a " * 12_500 * k + "{", id="declarations-sharing-a-brace"),
    ],
)
def test_java_class_name_is_linear(code: Callable[[int], str]) -> None:
    assert java_class_name(code(1)) == "Main"
    _grows_linearly(code, java_class_name)


def test_prompt_stripping_still_drops_trailing_special_tokens() -> None:
    query = "Q: add\n```python\nprint(1)\n```<|im_end|> <|endoftext|>\n<pad><pad>"
    assert completion_of(query, "Q: add\n") == "```python\nprint(1)\n```"
    assert completion_of("x <|a|> y<|b|>", "") == "x <|a|> y"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ApiServer]:
    env = {
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp_path}/judge.db",
        "JUDGE_SANDBOXES_PER_LANGUAGE": "1",
        "JUDGE_COMPLEXITY_EMPIRICAL": "false",
    }
    with serving(env, tmp_path / "serve.log") as api:
        yield api


@pytest.mark.timeout(120)
def test_health_is_not_stalled_while_regex_bombs_are_in_flight(server: ApiServer) -> None:
    bombs = [
        # An unknown problem: the prompt is stripped all the same, and nothing runs.
        ("/openrlhf/reward", {"query": [SPECIAL_TOKEN_BOMB], "labels": ["no-such-problem"]}),
        (
            "/v1/judge",
            {
                "submissions": [
                    {"problem_id": "sum", "language": "python", "completion": THINK_BOMB}
                ]
            },
        ),
        ("/submit", _submit_body(THINK_BOMB)),
    ]
    with httpx.Client(base_url=server.url, timeout=60) as http:
        assert http.post("/v1/problems", json=SUM).status_code == 200
        until = time.monotonic() + 2  # each bomb sent again and again until then

        def keep_firing(path: str, body: Any) -> list[tuple[int, float]]:
            answers = []
            with httpx.Client(base_url=server.url, timeout=60) as own:
                while not answers or time.monotonic() < until:
                    started = time.perf_counter()
                    status = _post(own, path, body).status_code
                    answers.append((status, time.perf_counter() - started))
            return answers

        # A full collection in this process (its heap holds the whole test session) would stall
        # the measuring thread for 100 ms and read as the server's latency.
        gc.freeze()
        try:
            with ThreadPoolExecutor(len(bombs)) as pool:
                futures = [pool.submit(keep_firing, path, body) for path, body in bombs]
                latencies = []
                while not all(future.done() for future in futures):
                    started = time.perf_counter()
                    assert http.get("/health").status_code == 200
                    latencies.append(time.perf_counter() - started)
                    time.sleep(0.01)
                answers = [answer for future in futures for answer in future.result()]
        finally:
            gc.unfreeze()
    assert all(status < 500 for status, _ in answers), answers
    assert max(seconds for _, seconds in answers) < 5, answers
    # A bomb parsed on the event loop stalled it for seconds; a busy host adds tens of ms. The
    # bound tells the two apart without measuring the service's speed.
    assert max(latencies) < 1.0, sorted(latencies)[-5:]


def test_an_optimal_complexity_longer_than_a_class_name_is_422(client: TestClient) -> None:
    # Reading "O(" * 8000 as a complexity class took 6 s (quadratic) for every submission.
    problem = {**SUM, "id": "oc", "optimal_complexity": "O(" * 8000}
    _named(_post(client, "/v1/problems", problem), "optimal_complexity")


def test_completions_over_the_cap_are_rejected_by_name(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, max_completion_chars=1000))) as client:
        client.post("/v1/problems", json=SUM)
        long = "```python\n" + PY_SUM + "```\n" + "#" * 1000
        fine = {"problem_id": "sum", "language": "python", "completion": f"```python\n{PY_SUM}```"}
        items = [{**fine, "completion": long}, fine]
        results = _post(client, "/v1/judge", {"submissions": items}).json()["results"]
        assert results[0]["status"] == "error" and "completion" in results[0]["error"]
        assert (results[1]["status"], results[1]["verdict"]) == ("ok", "AC")
        _named(_post(client, "/submit", _submit_body(long)), "completion", "1000")
        reward = {"query": ["ok", long], "labels": ["sum", "sum"]}
        _named(_post(client, "/openrlhf/reward", reward), "query", "1")


# ---- item 7: malformed input -----------------------------------------------------------------
@pytest.mark.parametrize("field", ["run_timeout", "compile_timeout"])
@pytest.mark.parametrize(
    "value", [float("inf"), float("nan"), -1.0, float("-inf")], ids=["inf", "nan", "neg", "-inf"]
)
def test_run_code_non_finite_or_negative_timeouts_are_422_naming_the_field(
    client: TestClient, field: str, value: float
) -> None:
    body = {"code": "print(1)", "language": "python", field: value}
    _named(_post(client, "/run_code", body), field)


def test_run_code_timeout_written_as_1e999_is_422(client: TestClient) -> None:
    body = '{"code": "print(1)", "language": "python", "run_timeout": 1e999}'
    response = client.post("/run_code", content=body, headers={"Content-Type": "application/json"})
    _named(response, "run_timeout")


def test_run_code_huge_finite_timeouts_are_cut_to_the_maximum(client: TestClient) -> None:
    body = {
        "code": "print(1)",
        "language": "python",
        "run_timeout": 1e308,
        "compile_timeout": 1e300,
    }
    response = _post(client, "/run_code", body)
    assert response.status_code == 200 and response.json()["status"] == "Success", response.text


@pytest.mark.parametrize("value", [float("inf"), float("nan")], ids=["inf", "nan"])
def test_non_finite_memory_limits_are_422(client: TestClient, value: float) -> None:
    body = {"code": "print(1)", "language": "python", "memory_limit_MB": value}
    _named(_post(client, "/run_code", body), "memory_limit_MB")
    problem = {**SUM, "id": "nan", "memory_limit_mb": value}
    _named(_post(client, "/v1/problems", problem), "memory_limit_mb")


@pytest.mark.parametrize("field", ["run_timeout", "compile_timeout"])
@pytest.mark.parametrize("value", [float("inf"), float("nan"), -5.0], ids=["inf", "nan", "neg"])
def test_submit_non_finite_or_negative_timeouts_are_422(
    client: TestClient, field: str, value: float
) -> None:
    body = _submit_body(f"```python\n{PY_SUM}```", **{field: value})
    _named(_post(client, "/submit", body), field)


def test_non_finite_numbers_inside_free_form_json_are_rejected_by_path(client: TestClient) -> None:
    problem = {**SUM, "id": "inf", "tests": [{"input": "1 2\n", "output": "3", "weight": 1e400}]}
    _named(_post(client, "/v1/problems", problem), "tests")
    checker = {**SUM, "id": "tol", "checker": {"kind": "float", "abs_tol": float("nan")}}
    _named(_post(client, "/v1/problems", checker), "checker")


def _batch(client: TestClient, path: str, items: list[Any]) -> httpx.Response:
    return _post(client, path, {"submissions": items})


def _hostile_items() -> list[dict[str, Any]]:
    good = {"problem_id": "sum", "language": "python", "code": PY_SUM}
    bad_output = {**SUM, "id": "s2", "tests": [{"input": "1 2\n", "output": "3\ud800"}]}
    return [
        {**good, "id": "good"},
        {"id": "bad-output", "problem": bad_output, "language": "python", "code": PY_SUM},
        {**good, "id": "bad-problem-id", "problem_id": "sum\ud800"},
        {**good, "id": "bad-key", "\udfff": 1},
        {
            **good,
            "id": "nan",
            "problem": {**SUM, "tests": [{"input": "1", "output": float("nan")}]},
        },
        {**good, "id": "late"},
    ]


def _check_hostile_results(results: list[dict[str, Any]]) -> None:
    assert [r["id"] for r in results] == [item["id"] for item in _hostile_items()]
    by_id = {r["id"]: r for r in results}
    assert (by_id["good"]["status"], by_id["good"]["verdict"]) == ("ok", "AC")
    assert (by_id["late"]["status"], by_id["late"]["verdict"]) == ("ok", "AC")
    assert "problem: tests.0.output" in by_id["bad-output"]["error"]
    assert "problem_id" in by_id["bad-problem-id"]["error"]
    assert "surrogate" in by_id["bad-key"]["error"]
    assert "problem: tests.0.output: nan" in by_id["nan"]["error"]
    for name in ("bad-output", "bad-problem-id", "bad-key", "nan"):
        assert by_id[name]["status"] == "error", by_id[name]


def test_lone_surrogates_and_nan_fail_their_item_alone_in_a_sync_batch(client: TestClient) -> None:
    response = _batch(client, "/v1/judge", _hostile_items())
    assert response.status_code == 200, response.text[:500]
    _check_hostile_results(response.json()["results"])


def _finished(client: TestClient, job_id: str) -> dict[str, Any]:
    for _ in range(300):
        status: dict[str, Any] = client.get(f"/v1/submissions/{job_id}").json()
        if status["status"] in ("done", "failed"):
            return status
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_lone_surrogates_and_nan_lose_nothing_in_an_async_job(tmp_path: Path, store: str) -> None:
    with postgres_database() as postgres:
        url = postgres if store == "postgresql" else f"sqlite:///{tmp_path}/judge.db"
        settings = _settings(tmp_path, database_url=url)
        with TestClient(create_app(settings)) as client:
            client.post("/v1/problems", json=SUM)
            accepted = _batch(client, "/v1/submissions", _hostile_items())
            assert accepted.status_code == 202, accepted.text[:500]
            job = _finished(client, accepted.json()["job_id"])
            assert (job["status"], job["completed"]) == ("done", len(_hostile_items())), job
            _check_hostile_results(job["results"])


def test_lone_surrogates_in_single_requests_are_422_naming_the_field(client: TestClient) -> None:
    _named(_post(client, "/v1/problems", {**SUM, "id": "p\ud800"}), "id")
    bad_test = {**SUM, "id": "p2", "tests": [{"input": "1", "output": "\udc80"}]}
    _named(_post(client, "/v1/problems", bad_test), "tests")
    _named(_post(client, "/run_code", {"code": "print('\ud800')", "language": "python"}), "code")
    body = _submit_body(
        "```python\nprint(3)\n```", [{"input": {"stdin": "1"}, "output": {"stdout": "\ud800"}}]
    )
    _named(_post(client, "/submit", body), "provided_data")
    _named(_post(client, "/submit", {**body, "id": "\ud800"}), "id")
    reward = {"query": ["\ud800"], "labels": ["sum"]}
    _named(_post(client, "/openrlhf/reward", reward), "query")


@pytest.mark.parametrize(
    "test",
    [
        pytest.param("[" * 100_000 + "]" * 100_000, id="nested-100000"),
        pytest.param(
            '[{"input": {"stdin": "1"}, "output": {"stdout": "2"}}, ' + "1" * 5000 + "]",
            id="5000-digits",
        ),
        pytest.param('[{"input": {"stdin": "1"}, "output": {"stdout": NaN}}]', id="nan"),
        pytest.param(
            '[{"input": {"stdin": "1"}, "output": {"stdout": "\\ud800"}}]', id="surrogate"
        ),
        pytest.param("[" * 500 + "]" * 500, id="nested-500"),
    ],
)
def test_submit_test_string_that_cannot_be_read_is_422(client: TestClient, test: str) -> None:
    body = _submit_body("```python\nprint(3)\n```", test)
    _named(_post(client, "/submit", body), "provided_data.test")


@pytest.mark.parametrize(
    "label",
    [
        pytest.param('{"problem_id": ' + "[" * 100_000 + "]" * 100_000 + "}", id="nested"),
        pytest.param('{"problem_id": "sum", "x": ' + "9" * 5000 + "}", id="5000-digits"),
    ],
)
def test_openrlhf_label_that_cannot_be_read_is_422(client: TestClient, label: str) -> None:
    reward = {"query": ["print(1)"], "labels": [label]}
    response = _post(client, "/openrlhf/reward", reward)
    assert response.status_code == 422, response.text[:500]
    assert [row["index"] for row in response.json()["detail"]["rows"]] == [0]


def test_deeply_nested_and_huge_integer_bodies_are_4xx(client: TestClient) -> None:
    deep = (
        '{"code": "print(1)", "language": "python", "files": ' + "[" * 100_000 + "]" * 100_000 + "}"
    )
    headers = {"Content-Type": "application/json"}
    assert 400 <= client.post("/run_code", content=deep, headers=headers).status_code < 500
    digits = '{"code": "print(1)", "language": "python", "memory_limit_MB": ' + "9" * 5000 + "}"
    assert 400 <= client.post("/run_code", content=digits, headers=headers).status_code < 500
    nested = {**SUM, "id": "deep", "tests": [{"args": json.loads("[" * 400 + "]" * 400)}]}
    _named(_post(client, "/v1/problems", nested), "tests")


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("a\x00b", id="nul"),
        pytest.param("x" * 300, id="300-chars"),
        pytest.param("d/" + "é" * 200, id="component-over-255-bytes"),
        pytest.param("", id="empty"),
        pytest.param("../escape", id="parent"),
        pytest.param("/etc/passwd", id="absolute"),
    ],
)
def test_run_code_bad_file_names_are_4xx_and_no_sandbox_is_destroyed(
    client: TestClient, name: str
) -> None:
    before = _ran_and_destroyed(client)
    content = base64.b64encode(b"data").decode()
    body = {"code": "print(1)", "language": "python", "files": {name: content}}
    _named(_post(client, "/run_code", body), "files")
    fetch = {"code": "print(1)", "language": "python", "fetch_files": [name]}
    _named(_post(client, "/run_code", fetch), "fetch_files")
    assert _ran_and_destroyed(client) == before


def _ran_and_destroyed(client: TestClient) -> int:
    """Sandboxes destroyed so far, after checking that a program still runs."""
    ran = _post(client, "/run_code", {"code": "print(2)", "language": "python"}).json()
    assert ran["status"] == "Success" and ran["run_result"]["stdout"] == "2\n", ran
    return _destroyed(client)


def test_run_code_files_that_need_a_file_as_a_directory_are_422(client: TestClient) -> None:
    before = _ran_and_destroyed(client)
    content = base64.b64encode(b"data").decode()
    under_source = {"code": "print(1)", "language": "python", "files": {"main.py/x": content}}
    _named(_post(client, "/run_code", under_source), "files", "main.py")
    both = {"code": "print(1)", "language": "python", "files": {"a/b": content, "./a": content}}
    _named(_post(client, "/run_code", both), "files", "a/b")
    cpp = {"code": "int main(){}", "language": "cpp", "files": {"main.cpp/x/y": content}}
    _named(_post(client, "/run_code", cpp), "files", "main.cpp")
    fine = {
        "code": "print(open('d/e/f').read(), open('main.py/x').read() if False else '')",
        "language": "python",
        "files": {"d/e/f": content, "./d/g": content, "d-e": content},
        "fetch_files": ["main.py/x"],
    }
    ran = _post(client, "/run_code", fine).json()
    assert ran["status"] == "Success" and ran["run_result"]["stdout"] == "data \n", ran
    assert _ran_and_destroyed(client) == before
