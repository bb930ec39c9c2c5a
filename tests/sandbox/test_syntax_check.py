"""Interpreters whose syntax check runs only at a failed test (LanguageSpec.syntax_check_argv):
a program that runs pays one runtime start per test, and the verdicts are still a check-first
judge's: CE with the check's output for a program the runtime cannot parse, RE for one that
fails running, whatever the program does to its own file."""

from __future__ import annotations

from typing import Any

import pytest

from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

STDIN = [{"input": "1 2\n", "output": "3"}, {"input": "4 5\n", "output": "9"}]
JS_SUM = (
    "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(' ').map(Number);\n"
    "console.log(a + b);\n"
)
PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PROGRAMS = {
    "javascript": {
        "sum": JS_SUM,
        "unparsable": "const x = ;\nconsole.log(x);\n",
        "throws": "throw new Error('boom');\n",
        # Valid when it starts; leaves garbage in its own file, then fails.
        "rewrites_itself": (
            "require('fs').writeFileSync(__filename, 'const = ;');\nthrow new Error('boom');\n"
        ),
        # A SyntaxError at run time (JSON.parse) is the program's failure, not a CE.
        "runtime_syntax_error": "JSON.parse('{');\n",
    },
    "pypy": {
        "sum": PY_SUM,
        "unparsable": "def f(:\n    pass\n",
        "throws": "raise ValueError('boom')\n",
        "rewrites_itself": ("open(__file__, 'w').write('def f(:\\n')\nraise ValueError('boom')\n"),
        "runtime_syntax_error": "compile('def f(:', 'x', 'exec')\n",
    },
}


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_program_that_passes_is_never_checked(judge: Any, language: str) -> None:
    result = judge(language, PROGRAMS[language]["sum"], STDIN)
    assert result.verdict is Verdict.AC, result
    assert result.compile is None and result.passed == 2


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_an_unparsable_program_is_ce_with_the_checks_output(judge: Any, language: str) -> None:
    result = judge(language, PROGRAMS[language]["unparsable"], STDIN)
    assert result.verdict is Verdict.CE, result
    assert result.compile is not None and not result.compile.ok
    assert "SyntaxError" in result.compile.output
    assert result.tests == [] and result.passed == 0


@pytest.mark.parametrize("language", sorted(PROGRAMS))
@pytest.mark.parametrize("program", ["throws", "rewrites_itself", "runtime_syntax_error"])
def test_a_program_that_fails_running_is_re_after_a_passing_check(
    judge: Any, language: str, program: str
) -> None:
    result = judge(language, PROGRAMS[language][program], STDIN)
    assert result.verdict is Verdict.RE, result
    assert result.compile is not None and result.compile.ok, result.compile
    assert len(result.tests) == 2


def test_a_wrong_answer_is_not_checked(judge: Any) -> None:
    result = judge("javascript", "console.log(0);\n", STDIN, stop_on_first_failure=True)
    assert result.verdict is Verdict.WA
    assert result.compile is None and len(result.tests) == 1


@pytest.mark.parametrize("mode", ["function", "assert"])
def test_javascript_harness_modes_report_the_checks_output(judge: Any, mode: str) -> None:
    tests = (
        [{"args": [1, 2], "expected": 3}]
        if mode == "function"
        else [
            {
                "code": "const assert = require('assert');\n"
                "function check(candidate) { assert.strictEqual(candidate(1, 2), 3); }\n"
            }
        ]
    )
    good = judge(
        "javascript", "function add(a, b) { return a + b; }\n", tests, mode=mode, entry_point="add"
    )
    assert good.verdict is Verdict.AC and good.compile is None, good
    bad = judge(
        "javascript", "function add(a, b) { return a + ; }\n", tests, mode=mode, entry_point="add"
    )
    assert bad.verdict is Verdict.CE, bad
    assert bad.compile is not None and "SyntaxError" in bad.compile.output
