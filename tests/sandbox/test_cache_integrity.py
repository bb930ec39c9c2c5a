"""No user poisons another's result through the compile cache, and Java asserts are checked.

A compiled program's artifacts are shared by every later job with the same build inputs, so
they must be what the compiler wrote (captured before any test runs) and the cache key must
cover every input of the build (the files sent with the job too). Each source carries a fresh
nonce so that no other test's cache entry answers for it.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from judge_service.sandbox.models import JobResult, Verdict

pytestmark = pytest.mark.integration

SUM_TESTS = [{"input": "2 3\n", "output": "5"}]

# Valid C and C++: answers, then swaps its own binary for a script that prints a wrong answer
# (a running binary cannot be opened for writing, but its directory entry can be replaced).
REPLACES_ITS_BINARY = """
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
/* NONCE */
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 1;
    printf("%ld\\n", a + b);
    fflush(stdout);
    const char *script = "#!/bin/sh\\necho 0\\n";
    unlink("/work/main");
    int fd = open("/work/main", O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0 || write(fd, script, strlen(script)) < 0) return 0;
    close(fd);
    return 0;
}
"""

# Answers through a second class, then overwrites that class's file (already loaded) with junk.
CORRUPTS_A_SIBLING_CLASS = """
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.Scanner;
// NONCE
class Helper {
    static long add(long a, long b) { return a + b; }
}
public class Main {
    public static void main(String[] args) throws IOException {
        Scanner in = new Scanner(System.in);
        System.out.println(Helper.add(in.nextLong(), in.nextLong()));
        try (FileOutputStream out = new FileOutputStream("/work/Helper.class")) {
            out.write(new byte[] {1, 2, 3});
        }
    }
}
"""

PRINTS_A_HEADER_CONSTANT = """
#include <stdio.h>
#include "consts.h"
/* NONCE */
int main(void) { printf("%d\\n", ANSWER); return 0; }
"""


def fresh(code: str) -> str:
    return code.replace("NONCE", uuid.uuid4().hex)


def describe(result: JobResult) -> str:
    tests = [(t.verdict.value, t.message, t.stdout[:200], t.stderr[:200]) for t in result.tests]
    return f"{result.verdict.value} compile={result.compile} tests={tests}"


# ==== artifacts are captured before any test runs ==========================================
@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_program_that_replaces_its_binary_does_not_reach_the_cache(
    judge: Any, language: str
) -> None:
    code = fresh(REPLACES_ITS_BINARY)
    first = judge(language, code, SUM_TESTS)
    assert first.verdict is Verdict.AC, describe(first)
    assert first.compile is not None and not first.compile.cached
    again = judge(language, code, SUM_TESTS)
    assert again.compile is not None and again.compile.cached
    assert again.verdict is Verdict.AC, describe(again)
    assert again.tests[0].stdout == "5\n"


def test_a_program_that_corrupts_a_sibling_artifact_does_not_reach_the_cache(judge: Any) -> None:
    code = fresh(CORRUPTS_A_SIBLING_CLASS)
    first = judge("java", code, SUM_TESTS, limits={"time_limit_ms": 4000})
    assert first.verdict is Verdict.AC, describe(first)
    again = judge("java", code, SUM_TESTS, limits={"time_limit_ms": 4000})
    assert again.compile is not None and again.compile.cached
    assert again.verdict is Verdict.AC, describe(again)


# ==== the cache key covers every file of the build ==========================================
def test_the_same_source_with_another_header_compiles_again(judge: Any) -> None:
    code = fresh(PRINTS_A_HEADER_CONSTANT)
    one = {"consts.h": b"#define ANSWER 1\n"}
    two = {"consts.h": b"#define ANSWER 2\n"}
    first = judge("c", code, [{"input": "", "output": "1"}], files=one)
    assert first.verdict is Verdict.AC, describe(first)
    other = judge("c", code, [{"input": "", "output": "2"}], files=two)
    assert other.compile is not None and not other.compile.cached
    assert other.verdict is Verdict.AC, describe(other)
    repeat = judge("c", code, [{"input": "", "output": "1"}], files=one)
    assert repeat.compile is not None and repeat.compile.cached
    assert repeat.verdict is Verdict.AC, describe(repeat)


# ==== Java assertions are on (off, an assert-based test accepts every wrong answer) ========
JAVA_LIMITS = {"time_limit_ms": 4000}


def test_a_failing_java_assert_is_a_runtime_error(judge: Any) -> None:
    code = (
        "public class Main {\n"
        "    public static void main(String[] args) {\n"
        "        assert 1 == 2;\n"
        '        System.out.println("ok");\n'
        "    }\n"
        "}\n"
    )
    result = judge("java", code, [{"input": "", "output": "ok"}], limits=JAVA_LIMITS)
    assert result.verdict is Verdict.RE, describe(result)
    assert "AssertionError" in result.tests[0].stderr


def test_a_failing_java_assert_in_a_called_method_is_a_runtime_error(judge: Any) -> None:
    code = (
        "public class Main {\n"
        "    static int positive(int x) {\n"
        '        assert x > 0 : "x must be positive";\n'
        "        return x;\n"
        "    }\n"
        "    public static void main(String[] args) {\n"
        "        System.out.println(positive(-1));\n"
        "    }\n"
        "}\n"
    )
    result = judge("java", code, [{"input": "", "output": "-1"}], limits=JAVA_LIMITS)
    assert result.verdict is Verdict.RE, describe(result)
    assert "x must be positive" in result.tests[0].stderr
