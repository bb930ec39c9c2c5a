"""Resource attacks: fork bombs, memory, output, disk, time, threads and recursion.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    FAST,
    MLE,
    OLE,
    RE,
    TLE,
    assert_host_fine,
    assert_next_job_clean,
    dedent,
    describe,
    expect,
    judge,
)

pytestmark = pytest.mark.integration


# ==== fork bombs ============================================================================
def test_python_fork_bomb(spool: SandboxPool, host_services: dict[str, bool]) -> None:
    code = dedent(
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """
    )
    result = judge(spool, "python", code, limits=FAST)
    expect(result, TLE, RE)
    assert_host_fine(host_services)
    assert_next_job_clean(spool, "python")


def test_c_fork_bomb(spool: SandboxPool, host_services: dict[str, bool]) -> None:
    code = "#include <unistd.h>\nint main(void) {\n  for (;;) fork();\n}\n"
    result = judge(spool, "c", code, limits=FAST)
    expect(result, TLE, RE)
    assert_host_fine(host_services)
    assert_next_job_clean(spool, "c")


# ==== memory ================================================================================
def test_python_memory_bomb(spool: SandboxPool) -> None:
    code = "hoard = []\nwhile True:\n    hoard.append(b'x' * (8 << 20))\n"
    result = judge(spool, "python", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "python")


def test_c_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdlib.h>
        #include <string.h>
        int main(void) {
          for (;;) {
            char *block = malloc(8 << 20);
            if (!block) return 3;
            memset(block, 1, 8 << 20);
          }
        }
        """
    )
    result = judge(spool, "c", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "c")


def test_cpp_vector_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <string>
        #include <vector>
        int main() {
          std::vector<std::string> hoard;
          for (;;) hoard.emplace_back(8 << 20, 'x');
        }
        """
    )
    result = judge(spool, "cpp", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "cpp")


def test_go_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        package main

        import "fmt"

        func main() {
        \tvar hoard [][]byte
        \tfor {
        \t\tblock := make([]byte, 8<<20)
        \t\tfor i := range block {
        \t\t\tblock[i] = 1
        \t\t}
        \t\thoard = append(hoard, block)
        \t\tif len(hoard) < 0 {
        \t\t\tfmt.Println(len(hoard))
        \t\t}
        \t}
        }
        """
    )
    result = judge(spool, "go", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "go")


def test_memory_hoarded_by_an_unwaited_child_is_counted(spool: SandboxPool) -> None:
    """A child allocates 512 MB (limit 64 MB); the parent answers and exits without waiting."""
    code = dedent(
        """
        import os, time
        ready, done = os.pipe()
        if os.fork() == 0:
            hoard = [b"m" * (16 << 20) for _ in range(32)]
            os.write(done, b"x")
            time.sleep(30)
        os.read(ready, 1)
        print(42)
        """
    )
    result = judge(
        spool, "python", code, [{"input": "", "output": "42"}], limits={"memory_limit_mb": 64}
    )
    expect(result, MLE)
    assert_next_job_clean(spool, "python")


def test_cpu_burned_by_an_unwaited_child_is_counted(spool: SandboxPool) -> None:
    """A child burns 1.5 s of CPU (limit 1 s) while the parent sleeps on a pipe, then exits."""
    code = dedent(
        """
        import os, time
        ready, done = os.pipe()
        if os.fork() == 0:
            end = time.process_time() + 1.5
            while time.process_time() < end:
                pass
            os.write(done, b"x")
            os._exit(0)
        os.read(ready, 1)
        print(42)
        """
    )
    result = judge(
        spool,
        "python",
        code,
        [{"input": "", "output": "42"}],
        limits={"time_limit_ms": 1000, "wall_time_limit_ms": 5000},
    )
    expect(result, TLE)
    assert_next_job_clean(spool, "python")


# ==== output ================================================================================
def test_python_endless_stdout(spool: SandboxPool) -> None:
    code = "while True:\n    print('y' * 1000)\n"
    result = judge(spool, "python", code, limits={**FAST, "output_limit_kb": 64})
    expect(result, OLE)
    assert len(result.tests[0].stdout) <= 4096
    assert_next_job_clean(spool, "python")


def test_c_endless_stderr(spool: SandboxPool) -> None:
    code = '#include <stdio.h>\nint main(void) {\n  for (;;) fputs("zzzzzzzz\\n", stderr);\n}\n'
    result = judge(spool, "c", code, limits={**FAST, "output_limit_kb": 64})
    expect(result, OLE)
    assert_next_job_clean(spool, "c")


def test_javascript_endless_stdout(spool: SandboxPool) -> None:
    code = "const line = 'j'.repeat(1000) + '\\n';\nfor (;;) process.stdout.write(line);\n"
    result = judge(spool, "javascript", code, limits={"time_limit_ms": 2000, "output_limit_kb": 64})
    expect(result, OLE)
    assert_next_job_clean(spool, "javascript")


# ==== disk ==================================================================================
def test_c_one_gigabyte_file_in_work(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        #include <string.h>
        static char block[1 << 20];
        int main(void) {
          memset(block, 'h', sizeof block);
          FILE *file = fopen("/work/huge.bin", "wb");
          if (!file) return 2;
          for (int i = 0; i < 1024; i++)
            if (fwrite(block, 1, sizeof block, file) != sizeof block) return 1;
          fclose(file);
          puts("written");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, limits={"time_limit_ms": 3000})
    expect(result, OLE, RE)
    assert_next_job_clean(spool, "c")


def test_python_fills_every_tmpfs(spool: SandboxPool) -> None:
    """/tmp and /dev/shm filled (errors caught), then /work until ENOSPC (uncaught): RE."""
    code = dedent(
        """
        chunk = b"f" * (4 << 20)
        def fill(directory, uncaught):
            index = 0
            while True:
                try:
                    with open("%s/fill-%d" % (directory, index), "wb") as handle:
                        for _ in range(8):
                            handle.write(chunk)
                except OSError:
                    if uncaught:
                        raise
                    return
                index += 1
        fill("/tmp", False)
        fill("/dev/shm", False)
        fill("/work", True)
        """
    )
    result = judge(spool, "python", code, limits={"time_limit_ms": 5000, "output_limit_kb": 262144})
    expect(result, RE, OLE)
    assert "No space left" in result.tests[0].stderr, describe(result)
    assert_next_job_clean(spool, "python")


# ==== time ==================================================================================
def test_python_sleeps_past_the_wall_limit(spool: SandboxPool) -> None:
    result = judge(spool, "python", "import time\ntime.sleep(30)\n", limits=FAST)
    expect(result, TLE)
    assert result.tests[0].wall_ms < 2000 + 3000, describe(result)
    assert_next_job_clean(spool, "python")


def test_c_busy_waits_on_the_wall_clock(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        #include <time.h>
        int main(void) {
          time_t start = time(NULL);
          while (time(NULL) - start < 30) {}
          puts("done");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "done"}], limits=FAST)
    expect(result, TLE)
    assert result.tests[0].wall_ms < 2000 + 3000, describe(result)


def test_python_raises_its_cpu_rlimit(spool: SandboxPool) -> None:
    code = dedent(
        """
        import resource
        for value in ((resource.RLIM_INFINITY, resource.RLIM_INFINITY), (10**6, 10**6)):
            try:
                resource.setrlimit(resource.RLIMIT_CPU, value)
            except (ValueError, OSError):
                pass
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        while True:
            pass
        """
    )
    result = judge(spool, "python", code, limits=FAST)
    expect(result, TLE)


def test_c_raises_its_cpu_rlimit(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <signal.h>
        #include <sys/resource.h>
        int main(void) {
          struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
          setrlimit(RLIMIT_CPU, &unlimited);
          struct rlimit current;
          getrlimit(RLIMIT_CPU, &current);
          current.rlim_cur = current.rlim_max;
          setrlimit(RLIMIT_CPU, &current);
          signal(SIGXCPU, SIG_IGN);
          for (volatile unsigned long i = 0;; i++) {}
        }
        """
    )
    result = judge(spool, "c", code, limits=FAST)
    expect(result, TLE)


# ==== threads and recursion ================================================================
def test_python_thousand_threads(spool: SandboxPool) -> None:
    code = dedent(
        """
        import threading, time
        threads = []
        try:
            for _ in range(1000):
                thread = threading.Thread(target=time.sleep, args=(30,), daemon=True)
                thread.start()
                threads.append(thread)
            print("uncapped")
        except RuntimeError:
            print("capped")
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "capped"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python")


def test_c_thousand_pthreads(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <pthread.h>
        #include <stdio.h>
        #include <unistd.h>
        static void *idle(void *argument) { sleep(30); return argument; }
        int main(void) {
          pthread_attr_t attributes;
          pthread_attr_init(&attributes);
          pthread_attr_setstacksize(&attributes, 1 << 16);
          int created = 0;
          for (; created < 1000; created++) {
            pthread_t thread;
            if (pthread_create(&thread, &attributes, idle, NULL) != 0) break;
          }
          puts(created < 1000 ? "capped" : "uncapped");
          fflush(stdout);
          _exit(0);
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "capped"}])
    expect(result, AC)
    assert_next_job_clean(spool, "c")


def test_python_unbounded_recursion(spool: SandboxPool) -> None:
    code = "def f(n):\n    return f(n + 1) + 1\n\nprint(f(0))\n"
    # Printing the RecursionError's traceback took 0.5 s of CPU on a slow VM: the verdict,
    # not the speed, is what this checks.
    result = judge(spool, "python", code, limits={"time_limit_ms": 3000})
    expect(result, RE)
    assert "RecursionError" in result.tests[0].stderr, describe(result)


def test_python_recursion_with_the_limit_lifted(spool: SandboxPool) -> None:
    code = "import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1) + 1\n\nf(0)\n"
    result = judge(spool, "python", code, limits={"time_limit_ms": 2000, "memory_limit_mb": 64})
    expect(result, RE, MLE)
    assert_next_job_clean(spool, "python")


def test_c_stack_overflow(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        static int depth(volatile char *previous, long n) {
          volatile char frame[1024];
          frame[0] = (char)n;
          return depth(frame, n + 1) + frame[0] + (previous ? previous[0] : 0);
        }
        int main(void) {
          printf("%d\\n", depth(0, 0));
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, limits={"time_limit_ms": 2000, "memory_limit_mb": 64})
    expect(result, RE)
    assert result.tests[0].signal == 11, describe(result)


def test_java_stack_overflow(spool: SandboxPool) -> None:
    code = dedent(
        """
        public class Main {
            static int depth(int n) { return depth(n + 1) + 1; }
            public static void main(String[] args) { System.out.println(depth(0)); }
        }
        """
    )
    result = judge(spool, "java", code, limits={"time_limit_ms": 4000})
    expect(result, RE)
    assert "StackOverflowError" in result.tests[0].stderr, describe(result)
