# ruff: noqa: E501  (programs in other languages)
"""The test conventions of MultiPL-E and SandboxFusion, as their harnesses run them: per
convention a passing program (AC) and a failing one (not AC), in that harness's style."""

from __future__ import annotations

import re

import pytest

from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

pytestmark = pytest.mark.integration

LIMITS = {"time_limit_ms": 10000, "memory_limit_mb": 512}

# (language, program with {expected} where the right answer is 6, expected output or None).
CONVENTIONS: dict[str, tuple[str, str, str | None]] = {
    # MultiPL-E's Lua tests: luaunit, and the runner's failure count as the exit status.
    "luaunit": (
        "lua",
        "local function sum_to(n)\n  local s = 0\n  for i = 1, n do s = s + i end\n  return s\nend\n\n"
        "lu = require('luaunit')\n\nfunction test_humaneval()\n  local candidate = sum_to\n"
        "  lu.assertEquals(candidate(3), {expected})\nend\n\nos.exit(lu.LuaUnit.run())\n",
        None,
    ),
    # MultiPL-E's Perl tests: Test::Deep's eq_deeply, exit 1 on a mismatch.
    "test-deep": (
        "perl",
        "use strict;\nuse warnings;\nsub sum_to { my ($n) = @_; my $s = 0; $s += $_ for 1..$n; return [$s]; }\n\n"
        "use Test::Deep;\n\nsub testhumaneval {\n    my $candidate = \\&sum_to;\n"
        '    if(eq_deeply($candidate->(3),[{expected}])) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();\n',
        None,
    ),
    # MultiPL-E's Java prompts: org.javatuples on the class path, class Problem, java -ea.
    "javatuples": (
        "java",
        "import java.util.*;\nimport org.javatuples.*;\n\nclass Problem {\n"
        "    public static Pair<Long, Long> sumAndCount(long n) {\n        long s = 0;\n"
        "        for (long i = 1; i <= n; i++) s += i;\n        return Pair.with(s, n);\n    }\n"
        "    public static void main(String[] args) {\n"
        "    assert(sumAndCount((3l)).equals((Pair.with({expected}l, 3l))));\n    }\n\n}\n",
        None,
    ),
    # MultiPL-E's Racket tests: rackunit's check-equal? in a test function (rackunit itself
    # would exit 0 after a failed check).
    "rackunit": (
        "racket",
        "#lang racket\n\n(define (sum-to n) (for/sum ([i (in-range 1 (add1 n))]) i))\n\n(require rackunit)\n\n"
        "(define (test-humaneval)\n  (let (( candidate sum-to))\n    (check-equal? (candidate 3) {expected})\n))\n\n(test-humaneval)\n",
        None,
    ),
    # SandboxFusion's TypeScript runtime resolves the npm packages its JavaScript has.
    "typescript-npm": (
        "typescript",
        "import _ from 'lodash';\nconst total: number = _.sum([1, 2, 3]);\nif (total !== {expected}) { throw new Error('wrong sum'); }\nconsole.log(total);\n",
        "6",
    ),
    # A program written for a current C# compiler: no `using System;` (implicit usings).
    "csharp-implicit-usings": (
        "csharp",
        "using System.Diagnostics;\n\nclass Program {\n    static void Main() {\n"
        "        var xs = new List<int> { 3, 1, 2 };\n        int total = xs.Sum();\n"
        "        Debug.Assert(total == {expected});\n        Console.WriteLine(total);\n    }\n}\n",
        "6",
    ),
    # MultiPL-E's C# tests: Debug.Assert lines in Main of class Problem.
    "csharp-debug-assert": (
        "csharp",
        "using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\n\n"
        "class Problem {\n    public static long SumTo(long n) {\n        long s = 0;\n        for (long i = 1; i <= n; i++) s += i;\n        return s;\n    }\n"
        "    public static void Main(string[] args) {\n    Debug.Assert(SumTo((3L)) == ({expected}L));\n    }\n\n}\n",
        None,
    ),
    # SandboxFusion's Scala tests name their object freely (HelloWorld, not Main).
    "scala-object-name": (
        "scala",
        "object Helper {\n  def sumTo(n: Int): Int = (1 to n).sum\n}\n\nobject HelloWorld {\n"
        "  def main(args: Array[String]): Unit = {\n    assert(Helper.sumTo(3) == {expected})\n    println(Helper.sumTo(3))\n  }\n}\n",
        "6",
    ),
    "scala-extends-app": (
        "scala",
        "object Solution extends App {\n  val total = (1 to 3).sum\n  assert(total == {expected})\n  println(total)\n}\n",
        "6",
    ),
}


def _judge(pool: SandboxPool, language: str, code: str, output: str | None) -> JobResult:
    test = {"input": "", "output": output or ""}
    return pool.judge(Job(language=language, code=code, tests=[test], limits=LIMITS))


@pytest.mark.parametrize("convention", list(CONVENTIONS))
def test_a_passing_program_in_the_harness_style_is_accepted(
    pool: SandboxPool, convention: str
) -> None:
    language, code, output = CONVENTIONS[convention]
    result = _judge(pool, language, code.replace("{expected}", "6"), output)
    if output is None:  # the harness prints its own report: judged by exit status alone
        assert result.tests[0].exit_code == 0, result.model_dump_json(indent=1)[:3000]
    else:
        assert result.verdict is Verdict.AC, result.model_dump_json(indent=1)[:3000]


@pytest.mark.parametrize("convention", list(CONVENTIONS))
def test_a_failing_program_in_the_harness_style_is_not_accepted(
    pool: SandboxPool, convention: str
) -> None:
    language, code, output = CONVENTIONS[convention]
    result = _judge(pool, language, code.replace("{expected}", "7"), output)
    assert result.verdict is not Verdict.AC, result.model_dump_json(indent=1)[:3000]
    assert result.tests[0].exit_code != 0 or result.tests[0].signal


GO_SUITE = 'package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n\nfunc TestSum(t *testing.T) { assert.Equal(t, {expected}, 1+2+3) }\n'


def test_go_test_reports_as_go_test_does(pool: SandboxPool) -> None:
    """SandboxFusion's clients look for `go test`'s summary line: "ok" after a passing suite's
    report, the failures and a FAIL line after a failing one's."""
    passing = _judge(pool, "go_test", GO_SUITE.replace("{expected}", "6"), None)
    assert passing.verdict is Verdict.AC, passing.model_dump_json(indent=1)[:3000]
    last_line = passing.tests[0].stdout.splitlines()[-1]
    assert re.fullmatch(r"ok  \tcommand-line-arguments\t\d+\.\d\ds", last_line), last_line
    failing = _judge(pool, "go_test", GO_SUITE.replace("{expected}", "7"), None)
    assert failing.verdict is Verdict.WA
    assert "Not equal" in failing.tests[0].stdout
    assert failing.tests[0].stdout.splitlines()[-1].startswith("FAIL\tcommand-line-arguments\t")
