"""CPU a program hides from per-process counts is still its CPU.

A process that reaps its workers and is never waited for itself takes their CPU out of every
live process's counters and out of the wait status the judge reads: 2 s of CPU passed a 1 s
limit as 5 ms. The judge counts the sandbox cgroup's CPU (less its own processes'), which sees
every process the program ever ran.
"""

from __future__ import annotations

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import TLE, assert_next_job_clean, dedent, expect, judge

pytestmark = pytest.mark.integration

LIMITS = {"time_limit_ms": 1000, "wall_time_limit_ms": 8000}

# Each prints "x" after 2 s of CPU in workers that a never-waited process reaped.
HIDDEN_WORKERS = {
    "python-unwaited-reaper": (
        "python",
        dedent(
            """
            import os, time
            r, w = os.pipe()
            if os.fork() == 0:
                os.close(r)
                for _ in range(10):
                    if os.fork() == 0:
                        t = time.process_time()
                        while time.process_time() - t < 0.2:
                            pass
                        os._exit(0)
                    os.wait()
                os.write(w, b"done")
                os._exit(0)
            os.close(w)
            os.read(r, 4)
            print("x")
            """
        ),
    ),
    "python-orphaned-reaper": (
        "python",
        dedent(
            """
            import os, time
            r, w = os.pipe()
            if os.fork() == 0:
                if os.fork() != 0:
                    os._exit(0)  # the reaper's parent: the reaper is an orphan now
                os.close(r)
                for _ in range(10):
                    if os.fork() == 0:
                        t = time.process_time()
                        while time.process_time() - t < 0.2:
                            pass
                        os._exit(0)
                    os.wait()
                os.write(w, b"done")
                os._exit(0)
            os.wait()
            os.close(w)
            os.read(r, 4)
            print("x")
            """
        ),
    ),
    "c-unwaited-reaper": (
        "c",
        dedent(
            """
            #include <stdio.h>
            #include <sys/wait.h>
            #include <time.h>
            #include <unistd.h>
            static void burn(double seconds) {
              clock_t start = clock();
              while ((double)(clock() - start) / CLOCKS_PER_SEC < seconds) {}
            }
            int main(void) {
              int fds[2];
              char buffer[4];
              pipe(fds);
              if (fork() == 0) {
                for (int i = 0; i < 10; i++) {
                  if (fork() == 0) { burn(0.2); _exit(0); }
                  wait(NULL);
                }
                write(fds[1], "done", 4);
                _exit(0);
              }
              close(fds[1]);
              read(fds[0], buffer, 4);
              puts("x");
              return 0;
            }
            """
        ),
    ),
}


@pytest.mark.parametrize("attack", list(HIDDEN_WORKERS))
def test_cpu_of_workers_reaped_out_of_sight_counts(spool: SandboxPool, attack: str) -> None:
    language, code = HIDDEN_WORKERS[attack]
    result = judge(spool, language, code, [{"input": "", "output": "x"}], limits=LIMITS)
    expect(result, TLE)
    test = result.tests[0]
    assert test.limit == "cpu" and test.time_ms >= 1000, (test.limit, test.time_ms)
    assert_next_job_clean(spool, language)
