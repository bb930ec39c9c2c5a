"""Per-test overhead of the engine for a stdin problem with 20 tests, in Python and C++.

For each language the same sum program is judged repeatedly (C++ compiles once, then comes
from the compile cache). Overhead per test = job wall time / 20 - the program's own CPU time
per test as the engine measured it. Also printed: the bare floor of running the program
without the judge (Python: exec in a warm interpreter; C++: fork+exec of the binary).

    .venv/bin/python bench/stdin_overhead.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings

PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);'
    'printf("%lld\\n",a+b);}\n',
}
TESTS = [{"input": f"{i} {i * 7}\n", "output": str(i * 8)} for i in range(20)]


def bare_python() -> float:
    code = compile(PROGRAMS["python"], "main.py", "exec")
    started = time.perf_counter()
    for test in TESTS:
        sys.stdin = io.StringIO(test["input"])
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"__name__": "__main__"})
    sys.stdin = sys.__stdin__
    return (time.perf_counter() - started) / len(TESTS) * 1000


def bare_cpp() -> float:
    with tempfile.TemporaryDirectory() as directory:
        source, binary = Path(directory, "main.cpp"), Path(directory, "main")
        source.write_text(PROGRAMS["cpp"])
        subprocess.run(["g++", "-O2", "-o", str(binary), str(source)], check=True)
        started = time.perf_counter()
        for test in TESTS:
            subprocess.run(
                [str(binary)], input=test["input"].encode(), capture_output=True, check=True
            )
        return (time.perf_counter() - started) / len(TESTS) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    bare = {"python": bare_python(), "cpp": bare_cpp()}
    with SandboxPool(Settings(sandboxes_per_language=1)) as pool:
        for language, code in PROGRAMS.items():
            job = Job(language=language, code=code, tests=TESTS)
            pool.judge(job)  # warm: start the sandbox, compile once
            per_test, own_cpu = [], []
            for _ in range(args.repeats):
                started = time.perf_counter()
                result = pool.judge(job)
                elapsed_ms = (time.perf_counter() - started) * 1000
                assert result.verdict.value == "AC", result
                per_test.append(elapsed_ms / len(TESTS))
                own_cpu.append(statistics.mean(test.time_ms for test in result.tests))
            wall, cpu = statistics.median(per_test), statistics.median(own_cpu)
            print(
                f"{language:6s} wall per test {wall:6.2f} ms, program's own CPU {cpu:5.2f} ms, "
                f"overhead beyond it {wall - cpu:5.2f} ms (goal <= 5 ms); "
                f"bare floor per test {bare[language]:5.2f} ms"
            )


if __name__ == "__main__":
    main()
