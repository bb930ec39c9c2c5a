"""Compile time of a typical contest program (``#include <bits/stdc++.h>``) in the C++ image,
with and without its precompiled header, measured side by side in one run.

1. ``g++`` in a throwaway container of the C++ image, run with the judge's own compile command
   (languages.py), alternately with the image's ``bits/stdc++.h.gch`` (a directory: one
   precompiled header per standard) in place and renamed away,
   so the header is the only difference. An image without a ``.gch`` gets only the second row.
2. The same program judged through the engine, a different comment each round so the compile
   cache never answers: the compile CPU time the judge reports (the pool's image, named by
   JUDGE_IMAGE_PREFIX, whatever ``--image`` says).

    .venv/bin/python bench/cpp_compile.py [--rounds 5] [--image IMAGE] [--language cpp17]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess

from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool
from judge_service.settings import Settings

PROGRAM = """\
#include <bits/stdc++.h>
using namespace std;
// round {round}
int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    cin >> n >> m;
    vector<vector<pair<int, long long>>> adj(n + 1);
    for (int i = 0; i < m; ++i) {
        int u, v;
        long long w;
        cin >> u >> v >> w;
        adj[u].push_back({v, w});
        adj[v].push_back({u, w});
    }
    vector<long long> dist(n + 1, LLONG_MAX);
    priority_queue<pair<long long, int>, vector<pair<long long, int>>, greater<>> heap;
    dist[1] = 0;
    heap.push({0, 1});
    while (!heap.empty()) {
        auto [d, u] = heap.top();
        heap.pop();
        if (d != dist[u]) continue;
        for (auto [v, w] : adj[u])
            if (d + w < dist[v]) heap.push({dist[v] = d + w, v});
    }
    map<long long, int> seen;
    for (int i = 1; i <= n; ++i) seen[dist[i]]++;
    cout << dist[n] << ' ' << seen.size() << '\\n';
}
"""
TESTS = [{"input": "3 3\n1 2 1\n2 3 2\n1 3 5\n", "output": "3 3"}]

# Runs inside the image (its python3 is the agent's): times each compile with the children's
# rusage, so the figures are CPU time as the judge counts it, plus wall time.
_IN_CONTAINER = """\
import glob, json, os, resource, subprocess, sys, time
program, argv, env, rounds = json.loads(sys.argv[1])
os.makedirs("/work", exist_ok=True)
os.chdir("/work")
# A .gch file, or a .gch directory of one per standard (overlayfs renames no directory of a
# lower layer, and GCC tries every file in it: its files are moved out).
gch = [path for path in glob.glob("/usr/include/*/c++/*/bits/stdc++.h.gch*")
       if os.path.isfile(path)]
gch += glob.glob("/usr/include/*/c++/*/bits/stdc++.h.gch/*.gch")
runs = {"with .gch": [], "without .gch": []}
for index in range(rounds):
    for label in runs:
        if not gch and label == "with .gch":
            continue
        if gch and label == "without .gch":
            for number, path in enumerate(gch):
                os.rename(path, f"/tmp/{number}.gch.off")
        with open("main.cpp", "w") as source:
            source.write(program.replace("{round}", f"{label} {index}"))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, env=env, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        runs[label].append((cpu * 1000, wall * 1000))
        if gch and label == "without .gch":
            for number, path in enumerate(gch):
                os.rename(f"/tmp/{number}.gch.off", path)
print(json.dumps({"gch": gch, "runs": runs}))
"""


def in_image(image: str, rounds: int, language: str) -> dict[str, list[tuple[float, float]]]:
    spec = LANGUAGES[language]
    payload = json.dumps([PROGRAM, spec.compile_command(PROGRAM), spec.environment(), rounds])
    done = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            image,
            "python3",
            "-c",
            _IN_CONTAINER,
            payload,
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    print(f"{image}: precompiled header {report['gch'] or 'none'}")
    return {label: [tuple(run) for run in runs] for label, runs in report["runs"].items() if runs}


def judged(rounds: int, language: str) -> list[float]:
    times = []
    with SandboxPool(Settings(sandboxes_per_language=1)) as pool:
        for index in range(rounds):
            code = PROGRAM.replace("{round}", f"judged {index}")
            result = pool.judge(Job(language=language, code=code, tests=TESTS))
            assert result.verdict.value == "AC" and result.compile is not None, result
            assert not result.compile.cached
            times.append(result.compile.time_ms)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--image", default=Settings().image_prefix + "cpp")
    parser.add_argument("--language", default="cpp", help="cpp or a variant (cpp17)")
    args = parser.parse_args()
    for label, runs in in_image(args.image, args.rounds, args.language).items():
        cpu = [run[0] for run in runs]
        wall = [run[1] for run in runs]
        print(
            f"g++ {label:13s} CPU median {statistics.median(cpu):6.0f} ms "
            f"(min {min(cpu):.0f}), wall median {statistics.median(wall):6.0f} ms "
            f"(min {min(wall):.0f}) over {len(runs)} compiles"
        )
    times = judged(args.rounds, args.language)
    print(
        f"judged {'':10s} compile CPU median {statistics.median(times):6.0f} ms "
        f"(min {min(times):.0f}, max {max(times):.0f}) over {len(times)} jobs, cache defeated"
    )


if __name__ == "__main__":
    main()
