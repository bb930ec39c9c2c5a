"""SandboxFusion and OpenRLHF compatibility endpoints against real sandboxes and the real store."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.dispatch import CeleryDispatcher
from judge_service.settings import Settings

pytestmark = pytest.mark.integration

ECHO_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM = {
    "id": "sum",
    "tests": [{"input": f"{i} {i + 1}\n", "output": str(2 * i + 1)} for i in range(4)],
}
CPP_SUM = '#include <cstdio>\nint main(){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);}\n'


def _settings(tmp_path: Path, **fields: Any) -> Settings:
    # complexity_empirical: no timing runs behind the reward (ignored where the field is absent).
    return Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        sandboxes_per_language=1,
        complexity_empirical=False,
        **fields,
    )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = _settings(tmp_path, max_batch=8, api_keys=["secret"])
    with TestClient(create_app(settings), headers={"Authorization": "Bearer secret"}) as c:
        assert c.post("/v1/problems", json=SUM).status_code == 200
        yield c


def _run(client: TestClient, code: str, language: str = "python", **fields: Any) -> Any:
    response = client.post("/run_code", json={"code": code, "language": language, **fields})
    assert response.status_code == 200, response.text
    return response.json()


# ---- /run_code -------------------------------------------------------------------------------
def test_run_code_success_reads_stdin_and_maps_nodejs(client: TestClient) -> None:
    body = _run(client, "print(input()[::-1])", stdin="abc\n")
    assert body["status"] == "Success" and body["message"] == ""
    assert body["compile_result"] is None and body["files"] == {}
    run = body["run_result"]
    assert (run["status"], run["return_code"], run["stdout"]) == ("Finished", 0, "cba\n")
    assert isinstance(run["execution_time"], float) and 0 < run["execution_time"] < 5
    node = _run(client, "console.log(6 * 7)", language="nodejs")
    assert node["status"] == "Success" and node["run_result"]["stdout"] == "42\n"


def test_run_code_runtime_errors_are_failed_with_the_exit_status(client: TestClient) -> None:
    exited = _run(client, "import sys\nprint('out')\nsys.stderr.write('bad')\nsys.exit(3)")
    assert exited["status"] == "Failed"
    run = exited["run_result"]
    assert (run["status"], run["return_code"], run["stdout"], run["stderr"]) == (
        "Finished",
        3,
        "out\n",
        "bad",
    )
    raised = _run(client, "raise ValueError('boom')")
    assert raised["status"] == "Failed" and raised["run_result"]["return_code"] == 1
    assert "ValueError: boom" in raised["run_result"]["stderr"]
    killed = _run(client, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    assert killed["status"] == "Failed" and killed["run_result"]["return_code"] == -11
    syntax = _run(client, "def f(:\n")
    assert syntax["status"] == "Failed" and syntax["compile_result"] is None
    assert syntax["run_result"]["return_code"] == 1
    assert "SyntaxError" in syntax["run_result"]["stderr"]
    # Node's syntax check is the judge's, but SandboxFusion's nodejs is interpreted: a run that
    # exited 1, no compile result.
    node_syntax = _run(client, "const x = ;\n", language="nodejs")
    assert node_syntax["status"] == "Failed" and node_syntax["compile_result"] is None
    assert node_syntax["run_result"]["return_code"] == 1
    assert "SyntaxError" in node_syntax["run_result"]["stderr"]


PYTEST_SUITE = (
    "def add(a, b):\n    return a + b\n\n\ndef test_add():\n    assert add(1, 2) == __SUM__\n"
)


def test_run_code_test_suites_succeed_or_fail_by_their_exit_status(client: TestClient) -> None:
    """SandboxFusion's pytest and go_test: a passing suite is Success, a failing one Failed with
    the framework's status (pytest's 1), its report on stdout."""
    passing = _run(client, PYTEST_SUITE.replace("__SUM__", "3"), language="pytest")
    assert passing["status"] == "Success", passing
    assert (
        passing["run_result"]["return_code"] == 0 and "1 passed" in passing["run_result"]["stdout"]
    )
    failing = _run(client, PYTEST_SUITE.replace("__SUM__", "4"), language="pytest")
    assert failing["status"] == "Failed", failing
    assert (
        failing["run_result"]["return_code"] == 1 and "1 failed" in failing["run_result"]["stdout"]
    )
    go = (
        'package main\n\nimport "testing"\n\n'
        'func TestAdd(t *testing.T) {\n\tif 1+2 != __SUM__ {\n\t\tt.Fatal("sum")\n\t}\n}\n'
    )
    assert _run(client, go.replace("__SUM__", "3"), language="go_test")["status"] == "Success"
    failed = _run(client, go.replace("__SUM__", "4"), language="go_test")
    assert failed["status"] == "Failed" and failed["run_result"]["return_code"] == 1


def test_run_code_time_limits_cpu_and_wall(client: TestClient) -> None:
    for code in ("while True: pass", "import time\ntime.sleep(30)"):
        body = _run(client, code, run_timeout=1)
        assert body["status"] == "Failed", body
        run = body["run_result"]
        assert run["status"] == "TimeLimitExceeded" and run["return_code"] is None
        assert 0.9 <= run["execution_time"] < 5


def test_run_code_cpp_compile_error_and_success(client: TestClient) -> None:
    broken = _run(client, "int main(){ return x; }", language="cpp")
    assert broken["status"] == "Failed" and broken["run_result"] is None
    compiled = broken["compile_result"]
    assert compiled["status"] == "Finished" and compiled["return_code"] != 0
    assert "not declared" in compiled["stderr"]
    good = _run(client, CPP_SUM, language="cpp", stdin="20 22\n")
    assert good["status"] == "Success"
    assert good["compile_result"]["status"] == "Finished"
    assert good["compile_result"]["return_code"] == 0
    assert good["run_result"]["stdout"] == "42\n"


JAVA_ASSERTS = (
    "public class Main {\n"
    "    static int positive(int x) {\n"
    '        assert x > 0 : "x must be positive";\n'
    "        return x;\n"
    "    }\n"
    "    public static void main(String[] args) {\n"
    "        int n = new java.util.Scanner(System.in).nextInt();\n"
    '        assert n != 1 : "one is not allowed";\n'
    "        System.out.println(positive(n));\n"
    "    }\n"
    "}\n"
)


@pytest.mark.parametrize(("stdin", "message"), [("1", "one is not"), ("-5", "x must be")])
def test_run_code_java_asserts_are_checked(client: TestClient, stdin: str, message: str) -> None:
    body = _run(client, JAVA_ASSERTS, language="java", stdin=stdin, run_timeout=5)
    assert body["status"] == "Failed", body
    run = body["run_result"]
    assert run["return_code"] == 1 and run["stdout"] == ""
    assert "java.lang.AssertionError: " + message in run["stderr"]
    passing = _run(client, JAVA_ASSERTS, language="java", stdin="7", run_timeout=5)
    assert passing["status"] == "Success" and passing["run_result"]["stdout"] == "7\n"


def test_run_code_files_in_and_fetch_files_out_are_binary_safe(client: TestClient) -> None:
    data = bytes(range(256)) * 4
    code = (
        "import os\n"
        "data = open('in/data.bin', 'rb').read()\n"
        "os.makedirs('out', exist_ok=True)\n"
        "open('out/rev.bin', 'wb').write(data[::-1])\n"
        "print(len(data))\n"
    )
    body = _run(
        client,
        code,
        files={"in/data.bin": base64.b64encode(data).decode(), "skipped.txt": None},
        fetch_files=["out/rev.bin", "never-written.txt"],
    )
    assert body["status"] == "Success" and body["run_result"]["stdout"] == "1024\n"
    assert set(body["files"]) == {"out/rev.bin"}  # a missing file is left out
    assert base64.b64decode(body["files"]["out/rev.bin"]) == data[::-1]


def test_run_code_returns_large_stdout_whole(client: TestClient) -> None:
    # More than the /v1 per-test report (4 KiB): verl compares stdout itself.
    body = _run(client, "print('x' * 300000)")
    assert body["status"] == "Success"
    assert body["run_result"]["stdout"] == "x" * 300000 + "\n"


def test_run_code_bad_requests_are_422(client: TestClient) -> None:
    for body, needle in [
        ({"code": "println(1)", "language": "kotlin_script"}, "not supported"),
        ({"code": "print(1)", "language": "python", "files": {"a": "%%%"}}, "base64"),
        ({"code": "print(1)", "language": "python", "fetch_files": ["/etc/passwd"]}, "relative"),
        ({"code": "print(1)"}, "language"),
    ]:
        response = client.post("/run_code", json=body)
        assert response.status_code == 422, (body, response.text)
        assert needle in response.text


def _verl_outcome(client: TestClient, code: str, language: str, stdin: str, expected: str) -> Any:
    """What verl's sandbox_fusion reward makes of one /run_code answer (its own rules):
    True / False for a finished run, -1 sandbox error, -2 runtime error, -3 timeout,
    -4 compile error."""
    response = client.post(
        "/run_code",
        json={
            "code": code,
            "language": language,
            "stdin": stdin,
            "compile_timeout": 10,
            "run_timeout": 2,
            "files": {},
            "fetch_files": [],
        },
    )
    if response.status_code != 200:
        return -1
    body = response.json()
    compiled, run = body.get("compile_result"), body.get("run_result")
    if body["status"] == "SandboxError":
        return -1
    if body["status"] == "Failed":
        if compiled and (
            compiled["status"] in ("Error", "TimeLimitExceeded")
            or (compiled["status"] == "Finished" and compiled["return_code"] != 0)
        ):
            return -4
        if run and run["status"] == "TimeLimitExceeded":
            return -3
        if run and (run["status"] == "Error" or run["return_code"] != 0):
            return -2
        return -1
    if body["status"] == "Success" and run and run["status"] == "Finished":
        return run["stdout"].rstrip("\n") == expected.rstrip("\n")
    return -1


def test_a_verl_style_client_reads_every_outcome(client: TestClient) -> None:
    cases = [
        (ECHO_SUM, "python", True),
        (ECHO_SUM.replace("a + b", "a - b"), "python", False),
        ("import sys\nsys.exit(2)", "python", -2),
        ("while True: pass", "python", -3),
        (CPP_SUM, "cpp", True),
        ("int main() { syntax error }", "cpp", -4),
    ]
    outcomes = [_verl_outcome(client, code, lang, "3 4\n", "7\n") for code, lang, _ in cases]
    assert outcomes == [want for _, _, want in cases]


# ---- /submit ---------------------------------------------------------------------------------
def _submit(completion: str, tests: list[tuple[str, str]], **config: Any) -> dict[str, Any]:
    language = config.pop("language", "python")
    return {
        "dataset": "inline",
        "id": 7,
        "completion": completion,
        "config": {
            "dataset_type": "CommonOJDataset",
            "language": language,
            "provided_data": {
                "id": 7,
                "test": [{"input": {"stdin": i}, "output": {"stdout": o}} for i, o in tests],
            },
            **config,
        },
    }


def test_submit_compares_like_sandboxfusion_and_extracts_the_code(client: TestClient) -> None:
    completion = (
        "Reasoning first.\n```python\nprint('wrong block')\n```\nFinal answer:\n"
        "```python\nx = input()\nprint(x.upper())\nprint(1 / 3)\n```\n"
    )
    tests = [("yes\n", "YES\n0.333333333"), ("No\n", "no  \n0.333334\n\n")]
    response = client.post(
        "/submit", json=_submit(completion, tests, extra={"run_all_cases": True})
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["id"] == 7 and body["accepted"] is True
    assert body["extracted_code"] == "x = input()\nprint(x.upper())\nprint(1 / 3)\n"
    assert [t["passed"] for t in body["tests"]] == [True, True]
    first = body["tests"][0]
    assert first["exec_info"]["status"] == "Success"
    assert first["exec_info"]["run_result"]["stdout"] == "YES\n0.3333333333333333\n"
    assert first["test_info"] == {
        "input": {"stdin": "yes\n"},
        "output": {"stdout": "YES\n0.333333333"},
    }


# (what the program prints, the expected output, SandboxFusion's verdict); passes first.
COMPARISONS = [
    ("YES\n", "yes", True),  # case-insensitive
    ("0.3333333333\n", "0.333334", True),  # numbers within a relative 1e-5
    ("a  b \n\n", "a  b", True),  # stripped, a trailing empty line dropped
    ("1\n2\n", "1 2", False),  # lines count, not only tokens
    ("0.5\n", "0.50002", False),  # a relative 4e-5 is too far
]


@pytest.mark.parametrize("every_case", [True, False], ids=["here", "in-sandbox"])
def test_submit_compares_like_sandboxfusion_on_both_paths(
    client: TestClient, every_case: bool
) -> None:
    echo = "```python\nimport sys\nsys.stdout.write(sys.stdin.read())\n```"
    tests = [(printed, expected) for printed, expected, _ in COMPARISONS]
    response = client.post(
        "/submit", json=_submit(echo, tests, extra={"run_all_cases": every_case})
    )
    assert response.status_code == 200, response.text
    passed = [t["passed"] for t in response.json()["tests"]]
    wanted = [verdict for _, _, verdict in COMPARISONS]
    assert passed == (wanted if every_case else wanted[:4])


# SandboxFusion's rule as a checker process (what /submit ran per test before the built-in
# ``lines`` checker): the output as text, stripped, split at "\n", lines equal lower-cased and
# stripped or numbers within a relative 1e-5.
SANDBOXFUSION_CHECKER = """
import sys
try:
    got = open(sys.argv[3], "rb").read().decode().strip().split("\\n")
except UnicodeDecodeError:
    sys.exit(1)
want = open(sys.argv[2], encoding="utf-8").read().strip().split("\\n")
if len(got) != len(want):
    sys.exit(1)
for g, w in zip(got, want):
    g, w = g.lower(), w.lower()
    if g.strip() == w.strip():
        continue
    try:
        a, b = float(g), float(w)
    except ValueError:
        sys.exit(1)
    if not abs(a - b) / max(abs(b), 1e-10) < 1e-5:
        sys.exit(1)
"""
# (what the program prints, the expected output): whitespace, line ends and numbers.
EDGE_CASES = [
    ("3   \t\n", "3"),  # trailing whitespace
    ("1\r\n2\r\n", "1\n2\n"),  # CRLF
    ("1\r2\n", "1\n2"),  # a bare CR ends no line
    ("", ""),  # empty output
    ("", "0"),
    ("3", "3\n"),  # no final newline in the output
    ("3\n", "3"),  # none in the expected output
    ("1\n2\n\n\n", "1\n2"),  # extra blank lines at the end
    ("\n\n1\n2", "1\n2"),  # and at the start
    ("1\n\n2\n", "1\n2\n"),  # an extra blank line inside
    ("YES\n", "yes"),
    ("0.3333333333\n", "0.333334"),
    ("0.5\n", "0.50002"),
    ("5\x1c\n", "5"),  # str.strip's separators
    ("5\u3000\n", "5"),  # Unicode spaces at the ends
    ("\uff15\n", "5"),  # float() reads full-width digits
    ("5\u2014\n", "5"),
]


def test_submit_verdicts_equal_a_sandboxfusion_checker_process_on_edge_cases(
    client: TestClient,
) -> None:
    echo = "import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())\n"
    problem = {
        "id": "echo",
        "tests": [{"input": printed, "output": want} for printed, want in EDGE_CASES],
        "checker": {"kind": "custom", "code": SANDBOXFUSION_CHECKER},
    }
    body = {"submissions": [{"language": "python", "code": echo, "problem": problem}]}
    judged = client.post("/v1/judge", json=body)
    assert judged.status_code == 200, judged.text
    by_checker = [t["verdict"] == "AC" for t in judged.json()["results"][0]["tests"]]
    assert len(by_checker) == len(EDGE_CASES) and set(by_checker) == {True, False}
    completion = f"```python\n{echo}```"
    every = client.post(
        "/submit", json=_submit(completion, EDGE_CASES, extra={"run_all_cases": True})
    )
    assert [t["passed"] for t in every.json()["tests"]] == by_checker
    stopped = client.post("/submit", json=_submit(completion, EDGE_CASES)).json()
    first_failure = by_checker.index(False)
    assert [t["passed"] for t in stopped["tests"]] == by_checker[: first_failure + 1]


def test_submit_stops_at_the_first_failure_unless_run_all_cases(client: TestClient) -> None:
    completion = "```python\nn = int(input())\nprint(n if n < 3 else -n)\n```"
    tests = [(f"{n}\n", str(n)) for n in range(6)]
    stopped = client.post("/submit", json=_submit(completion, tests)).json()
    assert stopped["accepted"] is False
    assert [t["passed"] for t in stopped["tests"]] == [True, True, True, False]
    failing = stopped["tests"][-1]["exec_info"]
    assert failing["status"] == "Success" and failing["run_result"]["stdout"] == "-3\n"
    every = client.post("/submit", json=_submit(completion, tests, extra={"run_all_cases": True}))
    assert [t["passed"] for t in every.json()["tests"]] == [True] * 3 + [False] * 3


def test_submit_compile_error_timeout_and_no_code(client: TestClient) -> None:
    tests = [("1 2\n", "3"), ("2 2\n", "4")]
    broken = client.post(
        "/submit",
        json=_submit(
            "```cpp\nint main( {}\n```", tests, language="cpp", extra={"run_all_cases": True}
        ),
    ).json()
    assert broken["accepted"] is False and len(broken["tests"]) == 2
    info = broken["tests"][0]["exec_info"]
    assert info["status"] == "Failed" and info["run_result"] is None
    assert info["compile_result"]["return_code"] != 0
    slow = client.post(
        "/submit", json=_submit("```python\nwhile True: pass\n```", tests, run_timeout=1)
    ).json()
    assert [t["exec_info"]["run_result"]["status"] for t in slow["tests"]] == ["TimeLimitExceeded"]
    empty = client.post("/submit", json=_submit("I cannot solve this.\n```python\n```", tests))
    body = empty.json()
    assert body["accepted"] is False and body["extracted_code"] == ""
    assert body["tests"][0]["exec_info"]["status"] == "Failed"


def test_submit_java_asserts_are_checked(client: TestClient) -> None:
    completion = f"```java\n{JAVA_ASSERTS}```"
    tests = [("7\n", "7"), ("-5\n", "-5")]
    body = client.post(
        "/submit", json=_submit(completion, tests, language="java", extra={"run_all_cases": True})
    ).json()
    assert [t["passed"] for t in body["tests"]] == [True, False], body
    failed = body["tests"][1]["exec_info"]["run_result"]
    assert "AssertionError: x must be positive" in failed["stderr"]


def test_submit_rejects_what_it_cannot_judge(client: TestClient) -> None:
    good = _submit("```python\nprint(1)\n```", [("", "1")])
    registered = {**good, "config": {**good["config"], "dataset_type": None, "provided_data": None}}
    rows = [{**good["config"]["provided_data"], "id": n} for n in (6, 7)]
    listed = {**good, "config": {**good["config"], "provided_data": rows}}
    found = client.post("/submit", json=listed)
    assert found.status_code == 200 and found.json()["accepted"] is True  # the row with id 7
    other_row = {**listed, "id": 8}
    custom = {
        **good,
        "config": {**good["config"], "custom_extract_logic": "submit_code_blocks([])"},
    }
    for body, needle in [
        (registered, "inline"),
        (other_row, "no row with id"),
        (custom, "custom_extract_logic"),
    ]:
        response = client.post("/submit", json=body)
        assert response.status_code == 422 and needle in response.text, response.text


# ---- /openrlhf/reward ------------------------------------------------------------------------
def test_openrlhf_rewards_in_order_for_every_label_form(client: TestClient) -> None:
    prompt = "<|im_start|>user\nAdd two numbers, like\n```python\nprint(0)\n```<|im_end|>\n"
    inline = {"id": "double", "tests": [{"input": "4\n", "output": "8"}]}
    rows = [
        ("```python\n" + ECHO_SUM + "```", "sum"),
        ("```cpp\n" + CPP_SUM + "```", json.dumps({"problem_id": "sum", "language": "cpp"})),
        ("```python\nprint(int(input()) * 2)\n```", {"problem": inline}),
        ("```python\nprint(3)\n```", "sum"),  # passes 1 of 4
        ("Not sure.\n```text\nno idea\n```", "sum"),  # no code: the format penalty, nothing run
    ]
    response = client.post(
        "/openrlhf/reward",
        json={
            "query": ["<pad><pad>" + prompt + answer + "<|im_end|>" for answer, _ in rows],
            "prompts": [prompt] * len(rows),
            "labels": [label for _, label in rows],
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["rewards"] == [1.0, 1.0, 1.0, 0.25, -1.0]
    assert body["scores"] == [1.0, 1.0, 1.0, 0.25, 0.0]
    logs = body["extra_logs"]
    assert logs["accepted"] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert logs["code_extracted"] == [1.0, 1.0, 1.0, 1.0, 0.0]
    assert all(len(values) == len(rows) for values in logs.values())


def test_openrlhf_empty_lists_in_empty_lists_out(client: TestClient) -> None:
    response = client.post("/openrlhf/reward", json={"query": [], "prompts": [], "labels": []})
    assert response.status_code == 200
    body = response.json()
    assert body["rewards"] == [] and body["scores"] == []
    assert body["extra_logs"] and all(values == [] for values in body["extra_logs"].values())


def test_openrlhf_bad_labels_are_422_and_caps_hold(client: TestClient) -> None:
    answer = "```python\nprint(1)\n```"
    bad = client.post(
        "/openrlhf/reward",
        json={
            "query": [answer] * 4,
            "prompts": [""] * 4,
            "labels": [
                "sum",
                "{not json",
                json.dumps({"problem_id": "sum", "language": "julia"}),
                "",
            ],
        },
    )
    assert bad.status_code == 422
    rows = bad.json()["detail"]["rows"]
    assert [row["index"] for row in rows] == [1, 2, 3]
    assert "JSON" in rows[0]["error"] and "julia" in rows[1]["error"]
    unknown = client.post(
        "/openrlhf/reward", json={"query": [answer], "prompts": [""], "labels": ["missing"]}
    )
    assert unknown.status_code == 422 and "unknown problem" in unknown.text
    mismatch = client.post("/openrlhf/reward", json={"query": [answer], "labels": []})
    assert mismatch.status_code == 422
    over = client.post(
        "/openrlhf/reward", json={"query": [answer] * 9, "prompts": [""] * 9, "labels": ["sum"] * 9}
    )
    assert over.status_code == 413 and "at most 8" in over.text


# ---- auth and infrastructure failures --------------------------------------------------------
def test_every_compat_endpoint_needs_the_api_key(client: TestClient) -> None:
    for path, body in [
        ("/run_code", {"code": "print(1)", "language": "python"}),
        ("/submit", _submit("print(1)", [("", "1")])),
        ("/openrlhf/reward", {"query": [], "prompts": [], "labels": []}),
    ]:
        response = client.post(path, json=body, headers={"Authorization": "Bearer wrong"})
        assert response.status_code == 401, path


def test_a_failed_sandbox_pool_is_a_sandbox_error_never_a_failure(client: TestClient) -> None:
    app: Any = client.app
    app.state.judge.dispatcher.pool.close()  # the pool is gone: every job is a system error
    run = _run(client, "print(1)")
    assert run["status"] == "SandboxError" and "system error" in run["message"]
    assert run["run_result"] is None
    submitted = client.post("/submit", json=_submit("```python\nprint(1)\n```", [("", "1")]))
    assert submitted.status_code == 503
    rewarded = client.post(
        "/openrlhf/reward",
        json={"query": ["```python\nprint(1)\n```"], "prompts": [""], "labels": ["sum"]},
    )
    assert rewarded.status_code == 503 and "not judged" in rewarded.text


def test_broker_down_is_a_sandbox_error_from_run_code(tmp_path: Path) -> None:
    settings = _settings(tmp_path, broker_url="redis://127.0.0.1:1/0")
    dispatcher = CeleryDispatcher(settings)
    dispatcher.app.conf.broker_connection_timeout = 1
    dispatcher.app.conf.broker_transport_options = {"max_retries": 0}
    with TestClient(create_app(settings, dispatcher)) as c:
        body = _run(c, "print(1)")
        assert body["status"] == "SandboxError" and body["run_result"] is None
        submitted = c.post("/submit", json=_submit("```python\nprint(1)\n```", [("", "1")]))
        assert submitted.status_code == 503
