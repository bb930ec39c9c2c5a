"""SandboxFusion's own client (PyPI ``sandbox-fusion``), unchanged, against a live service:
``run_code`` in every language of its list that the service runs, a refusal for the others,
and ``submit`` with ``CommonOJDataset``."""

from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge_service.api import create_app
from judge_service.sandbox.languages import canonical_language
from judge_service.settings import Settings
from tests.sandbox import _new_languages as programs

sandbox_fusion = pytest.importorskip("sandbox_fusion")

pytestmark = pytest.mark.integration

# Each reads two integers and prints their sum.
FIRST_SEVEN = {
    "python": "print(sum(map(int, input().split())))\n",
    "cpp": "#include <iostream>\nint main() { long a, b; std::cin >> a >> b; "
    "std::cout << a + b << '\\n'; }\n",
    "nodejs": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
    ".map(Number);\nconsole.log(a + b);\n",
    "go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n'
    "\tfmt.Println(a + b)\n}\n",
    "java": "import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
    "    Scanner in = new Scanner(System.in);\n"
    "    System.out.println(in.nextLong() + in.nextLong());\n  }\n}\n",
    "rust": "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
    "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
    "    let v: Vec<i64> = s.split_whitespace().map(|w| w.parse().unwrap()).collect();\n"
    '    println!("{}", v[0] + v[1]);\n}\n',
}
SWIFT = 'let v = readLine()!.split(separator: " ").map { Int($0)! }\nprint(v[0] + v[1])\n'
# SandboxFusion's names that are not run here (see the README's language section).
# Test-suite names we run (pytest, go_test, D_ut, junit, jest) are tested in
# tests/sandbox/test_suites.py, and junit's and jest's request bodies below.
REFUSED = ["kotlin_script", "julia", "lean"]


def _sum_program(name: str) -> tuple[str, str]:
    """A program in SandboxFusion's language ``name`` that prints 40 + 2, and its stdin."""
    if name in FIRST_SEVEN:
        return FIRST_SEVEN[name], "40 2\n"
    if name == "swift":
        return SWIFT, "40 2\n"
    language = canonical_language(name)
    assert language is not None
    return programs.program(language, "sum_list"), programs.stdin_for(language, [40, 2])


# SandboxFusion's names that the service runs: its list less REFUSED and cuda, python_gpu,
# react and python2.
SUPPORTED = [
    *FIRST_SEVEN,
    *("typescript", "bash", "php", "csharp", "ruby", "lua", "perl", "R", "scala", "swift"),
    *("racket", "sql", "verilog"),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    root: Path = tmp_path_factory.mktemp("sandbox-fusion")
    settings = Settings(
        database_url=f"sqlite:///{root}/judge.db",
        sandboxes_per_language=1,
        complexity_empirical=False,
    )
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    url = f"http://127.0.0.1:{port}"
    sandbox_fusion.set_endpoint(url)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_every_supported_name_is_in_the_clients_list() -> None:
    from typing import get_args

    from sandbox_fusion.models import Language

    names = set(get_args(Language))
    assert set(SUPPORTED) <= names
    assert None not in {canonical_language(name) for name in SUPPORTED}
    assert all(canonical_language(name) is None for name in REFUSED)


@pytest.mark.parametrize("name", SUPPORTED)
def test_run_code_in_each_language(endpoint: str, name: str) -> None:
    code, stdin = _sum_program(name)
    request = sandbox_fusion.RunCodeRequest(
        code=code, language=name, stdin=stdin, run_timeout=20, compile_timeout=60
    )
    response: Any = sandbox_fusion.run_code(request, max_attempts=1, client_timeout=300)
    assert response.status.value == "Success", response
    assert response.run_result.stdout.strip() == "42", response


# SandboxFusion's junit: the class under test and its JUnit 5 test class in one file; its jest:
# a TypeScript test file. __SUM__ is the expected sum (3 passes, 4 fails).
JUNIT_SUITE = (
    "import org.junit.jupiter.api.Test;\n"
    "import static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
    "class Calc { static int add(int a, int b) { return a + b; } }\n\n"
    "public class CalcTest {\n"
    "    @Test void adds() { assertEquals(__SUM__, Calc.add(1, 2)); }\n"
    "    @Test void zero() { assertEquals(0, Calc.add(0, 0)); }\n}\n"
)
JEST_SUITE = (
    "import { describe, expect, test } from '@jest/globals';\n\n"
    "function add(a: number, b: number): number { return a + b; }\n\n"
    "describe('add', () => {\n"
    "  test('adds', () => { expect(add(1, 2)).toBe(__SUM__); });\n"
    "  test('zero', () => { expect(add(0, 0)).toBe(0); });\n});\n"
)
# Where each framework prints its summary, and what it says for two passing tests / one failing.
SUITE_REPORTS = {
    "junit": (JUNIT_SUITE, "stdout", "2 tests successful", "1 tests failed"),
    "jest": (JEST_SUITE, "stderr", "Tests:       2 passed, 2 total", "1 failed, 1 passed"),
}


@pytest.mark.parametrize("name", sorted(SUITE_REPORTS))
def test_run_code_runs_junit_and_jest_suites(endpoint: str, name: str) -> None:
    suite, stream, passed, failed = SUITE_REPORTS[name]

    def run(code: str) -> Any:
        request = sandbox_fusion.RunCodeRequest(code=code, language=name, compile_timeout=60)
        return sandbox_fusion.run_code(request, max_attempts=1, client_timeout=300)

    right = run(suite.replace("__SUM__", "3"))
    assert right.status.value == "Success", right
    assert right.compile_result.return_code == 0 and right.run_result.return_code == 0
    assert passed in getattr(right.run_result, stream), right
    wrong = run(suite.replace("__SUM__", "4"))
    assert wrong.status.value == "Failed", wrong
    assert wrong.run_result.return_code == 1
    assert failed in getattr(wrong.run_result, stream), wrong
    broken = run(suite.replace("__SUM__", "3") + "\n}}} not code\n")
    assert broken.status.value == "Failed" and broken.run_result is None, broken
    assert broken.compile_result.return_code != 0


def test_run_code_junit_compiles_the_files_sent_with_the_suite(endpoint: str) -> None:
    """SandboxFusion's junit compiles every .java file it was sent."""
    suite = JUNIT_SUITE.replace("class Calc {", "class Unused {").replace("__SUM__", "3")
    calc = "public class Calc { static int add(int a, int b) { return a + b; } }\n"
    request = sandbox_fusion.RunCodeRequest(
        code=suite,
        language="junit",
        compile_timeout=60,
        files={"Calc.java": base64.b64encode(calc.encode()).decode()},
    )
    response: Any = sandbox_fusion.run_code(request, max_attempts=1, client_timeout=300)
    assert response.status.value == "Success", response


@pytest.mark.parametrize("name", ["kotlin_script", "julia", "lean"])
def test_run_code_refuses_what_it_does_not_run(endpoint: str, name: str) -> None:
    request = sandbox_fusion.RunCodeRequest(code="x", language=name)
    with pytest.raises(Exception):  # noqa: B017  (the client raises its retry error type)
        sandbox_fusion.run_code(request, max_attempts=1, client_timeout=30)


@pytest.mark.parametrize("name", ["python", "ruby", "csharp", "typescript"])
def test_submit_common_oj_dataset(endpoint: str, name: str) -> None:
    language = canonical_language(name)
    assert language is not None
    code, _ = _sum_program(name)
    cases = [([40, 2], "42"), ([1, 2], "3"), ([-5, 5], "0")]
    tests = [
        {"input": {"stdin": _stdin(name, numbers)}, "output": {"stdout": out}}
        for numbers, out in cases
    ]
    config = sandbox_fusion.TestConfig(
        dataset_type="CommonOJDataset",
        language=name,
        run_timeout=20,
        compile_timeout=60,
        provided_data={"id": 1, "test": tests},
        extra={"run_all_cases": True},
    )
    fence = {"csharp": "csharp", "typescript": "typescript"}.get(name, name)
    right = sandbox_fusion.submit(
        sandbox_fusion.SubmitRequest(
            dataset="inline", id=1, completion=f"```{fence}\n{code}\n```\n", config=config
        ),
        max_attempts=1,
        client_timeout=300,
    )
    assert right.accepted, right
    assert [test.passed for test in right.tests] == [True, True, True]
    wrong_code = (
        "print(max(map(int, input().split())))\n"
        if name == "python"
        else programs.program(language, "max_element")
    )
    wrong = sandbox_fusion.submit(
        sandbox_fusion.SubmitRequest(
            dataset="inline", id=1, completion=f"```{fence}\n{wrong_code}\n```\n", config=config
        ),
        max_attempts=1,
        client_timeout=300,
    )
    assert not wrong.accepted, wrong


def _stdin(name: str, numbers: list[int]) -> str:
    if name in FIRST_SEVEN or name == "swift":
        return " ".join(map(str, numbers)) + "\n"
    language = canonical_language(name)
    assert language is not None
    return programs.stdin_for(language, numbers)


def test_a_missing_image_is_a_sandbox_error_naming_its_build_command(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/judge.db",
        sandboxes_per_language=1,
        complexity_empirical=False,
        image_prefix="judge-no-such-image-",
    )
    with TestClient(create_app(settings)) as client:
        ran = client.post("/run_code", json={"code": "puts 1", "language": "ruby"})
        assert ran.status_code == 200
        body = ran.json()
        assert body["status"] == "SandboxError" and body["run_result"] is None
        assert "judge images build --lang ruby" in body["message"], body
        problem = {"id": "one", "tests": [{"input": "", "output": "1"}]}
        assert client.post("/v1/problems", json=problem).status_code == 200
        item = {"problem_id": "one", "language": "ruby", "code": "puts 1"}
        judged = client.post("/v1/judge", json={"submissions": [item]})
        assert judged.status_code in (200, 503), judged.text
        # Either the whole request is refused (503) or the item is a system error: never a
        # verdict, and either way the message names the command that builds the image.
        assert "judge images build --lang ruby" in judged.text, judged.text
        if judged.status_code == 200:
            (result,) = judged.json()["results"]
            assert result["status"] != "ok", result
