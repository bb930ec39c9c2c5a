"""Per-test overhead of the languages below and HumanEval-X throughput, for A/B runs.

Per-test overhead: the same 20-test stdin sum program per language (compiled once, then from
the compile cache), judged ``--repeats`` times one job at a time; overhead per test = job wall
time / 20 - the program's own CPU time per test as the engine measured it (medians).
HumanEval-X throughput: the first ``--programs`` canonical solutions of each language the
dataset has as whole programs (Python, C++, Java, JavaScript; compile included, 2 sandboxes),
in programs per second. Uses only what older checkouts also have, so that it can be run from
each of two checkouts alternately (``PYTHONPATH`` pointing at it, ``JUDGE_IMAGE_PREFIX`` at its
images):

    PYTHONPATH=. .venv/bin/python bench/language_overhead.py [--repeats 15] [--programs 16]

``--languages`` also takes the variants (``cpp17``, ``cpp23``, ``rust2024``), which run their
base language's programs.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path

from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings

SUM_PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);'
    'printf("%lld\\n",a+b);}\n',
    "c": '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);'
    'printf("%lld\\n",a+b);return 0;}\n',
    "java": "import java.util.*;\npublic class Main { public static void main(String[] x) {"
    " Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong();"
    " System.out.println(a + b); } }\n",
    "javascript": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/)"
    ".map(Number);\nconsole.log(a + b);\n",
    "go": 'package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b);'
    " fmt.Println(a + b) }\n",
    "rust": "use std::io::Read;\nfn main() { let mut s = String::new();"
    " std::io::stdin().read_to_string(&mut s).unwrap();"
    " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();"
    ' println!("{}", v[0] + v[1]); }\n',
    "typescript": "const [a, b]: number[] = require('fs').readFileSync(0, 'utf8').trim()"
    ".split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
    "php": "<?php\n[$a, $b] = array_map('intval', preg_split('/\\s+/', trim(stream_get_contents("
    'STDIN))));\necho $a + $b, "\\n";\n',
    "lua": "local a, b = io.read('n', 'n')\nprint(math.tointeger(a + b))\n",
    "perl": "my ($a, $b) = split ' ', <STDIN>;\nprint $a + $b, \"\\n\";\n",
    "csharp": "using System;\nclass P { static void Main() { var v = Console.ReadLine().Split(' ');"
    " Console.WriteLine(long.Parse(v[0]) + long.Parse(v[1])); } }\n",
    "swift": 'let v = readLine()!.split(separator: " ").map { Int($0)! }\nprint(v[0] + v[1])\n',
    "haskell": "main :: IO ()\nmain = interact $ \\s ->"
    ' let [a, b] = map read (words s) :: [Integer] in show (a + b) ++ "\\n"\n',
    "pascal": "program Main;\nvar a, b: Int64;\nbegin\n  ReadLn(a, b);\n  WriteLn(a + b);\nend.\n",
    "racket": "#lang racket/base\n(define a (read))\n(define b (read))\n(displayln (+ a b))\n",
}
TESTS = [{"input": f"{i} {i * 7}\n", "output": str(i * 8)} for i in range(20)]
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "humaneval-x"
HUMANEVAL_X = {"python": "python", "cpp": "cpp", "java": "java", "javascript": "js"}
# A variant (another standard or edition) runs its base language's programs.
VARIANT_OF = {"cpp17": "cpp", "cpp23": "cpp", "rust2024": "rust"}


def base_language(language: str) -> str:
    return VARIANT_OF.get(language, language)


LIMITS = {"time_limit_ms": 10_000, "memory_limit_mb": 512}


def overhead(pool: SandboxPool, language: str, repeats: int) -> tuple[float, float, int]:
    """(wall ms per test, overhead ms per test, accepted jobs) over ``repeats`` jobs."""
    job = Job(language=language, code=SUM_PROGRAMS[base_language(language)], tests=TESTS)
    pool.judge(job)  # compiles once; later jobs come from the compile cache
    walls, cpus, accepted = [], [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        result = pool.judge(job)
        walls.append((time.perf_counter() - started) * 1000 / len(TESTS))
        cpus.append(statistics.median(test.time_ms for test in result.tests))
        accepted += result.verdict is Verdict.AC
    wall = statistics.median(walls)
    return wall, wall - statistics.median(cpus), accepted


def humaneval_x(pool: SandboxPool, language: str, programs: int) -> tuple[float, int]:
    data = DATA / f"{HUMANEVAL_X[base_language(language)]}.jsonl.gz"
    with gzip.open(data, "rt", encoding="utf-8") as rows:
        chosen = [json.loads(row) for row, _ in zip(rows, range(programs), strict=False)]
    jobs = [
        Job(
            language=language,
            code=row["prompt"] + row["canonical_solution"] + "\n" + row["test"] + "\n",
            tests=[{"output": ""}],
            limits=LIMITS,
        )
        for row in chosen
    ]
    started = time.perf_counter()
    results = pool.judge_many(jobs)
    rate = len(jobs) / (time.perf_counter() - started)
    return rate, sum(result.verdict is Verdict.AC for result in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--programs", type=int, default=16)
    parser.add_argument("--languages", default=",".join(SUM_PROGRAMS))
    args = parser.parse_args()
    languages = args.languages.split(",")
    with SandboxPool(Settings(sandboxes_per_language=2)) as pool:
        pool.warm(languages)
        for language in languages:
            wall, extra, accepted = overhead(pool, language, args.repeats)
            line = (
                f"{language}: per test {wall:.2f} ms wall, overhead {extra:.2f} ms"
                f" ({accepted}/{args.repeats} AC)"
            )
            if base_language(language) in HUMANEVAL_X:
                rate, ok = humaneval_x(pool, language, args.programs)
                line += f"; HumanEval-X {rate:.1f} programs/s ({ok}/{args.programs} AC)"
            print(line, flush=True)


if __name__ == "__main__":
    main()
