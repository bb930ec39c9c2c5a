"""Per-job cost of a trivial junit and jest suite (one passing test), beside a trivial plain
Java and JavaScript program from the same images, measured side by side in one run.

Each round judges one job per language, in turn, on warm sandboxes (one per language, started
by a first round that is not counted); a different comment each round, so the compile cache
never answers. Reported per language, medians over the rounds: the job's wall time as the
caller sees it (``pool.judge``), the compile's CPU time, the run's CPU and wall time and its
peak RSS. Say the load (``uptime``) beside the figures: only the ratios within a run compare.

    JUDGE_IMAGE_PREFIX=... PYTHONPATH=. .venv/bin/python bench/suite_startup.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

PROGRAMS = {
    "junit": (
        "import org.junit.jupiter.api.Test;\n"
        "import static org.junit.jupiter.api.Assertions.assertEquals;\n// round {round}\n"
        "public class AddTest {\n    @Test void adds() { assertEquals(3, 1 + 2); }\n}\n"
    ),
    "java": (
        "// round {round}\npublic class Main {\n"
        "    public static void main(String[] args) { System.out.println(1 + 2); }\n}\n"
    ),
    "jest": "// round {round}\ntest('adds', () => { expect(1 + 2).toBe(3); });\n",
    "javascript": "// round {round}\nconsole.log(1 + 2);\n",
}


def _job(language: str, round_: int) -> Job:
    code = PROGRAMS[language].replace("{round}", str(round_))
    expected = "" if language in ("junit", "jest") else "3"
    tests = [{"input": "", "output": expected}] if expected else [{"input": ""}]
    return Job(language=language, code=code, tests=tests, limits={"compile_time_limit_ms": 60000})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in PROGRAMS}
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        for round_ in range(args.rounds + 1):
            for language in PROGRAMS:
                started = time.perf_counter()
                result = pool.judge(_job(language, round_))
                job_ms = (time.perf_counter() - started) * 1000
                assert result.verdict is Verdict.AC, result
                assert result.compile is not None and not result.compile.cached
                if round_ == 0:  # the sandbox's start
                    continue
                test = result.tests[0]
                samples[language].append(
                    {
                        "job_wall_ms": job_ms,
                        "compile_cpu_ms": result.compile.time_ms,
                        "run_cpu_ms": test.time_ms,
                        "run_wall_ms": test.wall_ms,
                        "run_peak_mb": test.memory_kb / 1024,
                    }
                )
    report = {
        language: {key: round(statistics.median(s[key] for s in rows), 1) for key in rows[0]}
        for language, rows in samples.items()
    }
    print(json.dumps({"rounds": args.rounds, "median": report}, indent=1))


if __name__ == "__main__":
    main()
