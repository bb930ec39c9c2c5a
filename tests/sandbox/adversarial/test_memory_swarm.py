"""A swarm's memory: more processes than the agent reads one by one.

Past 16 processes the agent reads only the largest one's resident set (reading every smaps
stalls on a fork bomb), which let 18 children of 30 MB each, 540 MB in all, pass a 128 MB limit
with the right answer (AC; found by the review of the common memory cap). The sandbox cgroup's
anonymous memory, grown since the test started, counts each page once however many processes
map it: the swarm's memory is the test's memory.
"""

from __future__ import annotations

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import AC, MLE, assert_next_job_clean, dedent, expect, judge

pytestmark = pytest.mark.integration

LIMITS = {"memory_limit_mb": 128, "time_limit_ms": 4000}
RIGHT = [{"input": "", "output": "42"}]

PYTHON_SWARM = dedent(
    """
    import os
    done_r, done_w = os.pipe()
    release_r, release_w = os.pipe()
    for _ in range(CHILDREN):
        if os.fork() == 0:
            held = bytearray(b"x") * (MB << 20)
            os.write(done_w, b"d")
            os.read(release_r, 1)  # held until every child holds its share
            os._exit(0)
    for _ in range(CHILDREN):
        os.read(done_r, 1)
    os.write(release_w, b"g" * CHILDREN)
    for _ in range(CHILDREN):
        os.wait()
    print(42)
    """
)

C_SWARM = dedent(
    """
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/wait.h>
    #include <unistd.h>
    int main(void) {
        int done[2], release[2];
        char token;
        pipe(done); pipe(release);
        for (int i = 0; i < 20; i++) {
            if (fork() == 0) {
                char *held = malloc(28 << 20);
                memset(held, 'd', 28 << 20);
                write(done[1], held + (28 << 20) - 1, 1);  /* held escapes: memset stays */
                read(release[0], &token, 1);  /* held until every child holds its share */
                _exit(0);
            }
        }
        for (int i = 0; i < 20; i++) read(done[0], &token, 1);
        for (int i = 0; i < 20; i++) write(release[1], "g", 1);
        while (wait(NULL) > 0) {}
        puts("42");
        return 0;
    }
    """
)


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("python", PYTHON_SWARM.replace("CHILDREN", "18").replace("MB", "30")),
        ("python", PYTHON_SWARM.replace("CHILDREN", "40").replace("MB", "12")),  # many, small
        ("c", C_SWARM),
    ],
    ids=["python-18x30MB", "python-40x12MB", "c-20x28MB"],
)
def test_a_swarm_past_the_limit_is_mle(spool: SandboxPool, language: str, code: str) -> None:
    result = judge(spool, language, code, RIGHT, limits=LIMITS)
    expect(result, MLE)
    assert_next_job_clean(spool, language)


def test_a_swarm_within_the_limit_is_accepted(spool: SandboxPool) -> None:
    # 18 children of 2 MB: the shared pages of 19 Python processes count once.
    code = PYTHON_SWARM.replace("CHILDREN", "18").replace("MB", "2")
    expect(judge(spool, "python", code, RIGHT, limits=LIMITS), AC)
