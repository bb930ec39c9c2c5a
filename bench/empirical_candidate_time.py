"""Seconds per candidate of the empirical path with derived generators: wall and CPU time.

Runs ``judge complexity evaluate --backend empirical --derive``'s loop over the labelled
solutions of the problems (default: the 29 benchmark problems) and records, per candidate,
the wall time, the CPU time of this process (deriving, validating, fitting) and the CPU time
of this process's sandbox containers (read from their cgroup, cgroup v1 or v2, sampled every
0.1 s so a container replaced during a candidate still counts). CPU time does not grow with
the host's load the way wall time does, so it is the proxy to compare across runs on a shared
machine. Prints the distribution (mean, p50, p95, max), the exact-class count and the load
average before and after; ``--json`` writes the per-candidate rows.

Each problem is prepared first (``DerivingJudge.prepare``: the generator derived and validated,
the reference measured, the engine's inputs generated), as a service does when a problem is
saved, and that preparation's wall and CPU time are recorded per problem, apart: the time per
candidate is then the candidate's own timing. With code that has no ``prepare`` (a checkout
from before it), the first candidate of each problem pays for it, as it did there; its rows
say ``first: true``, and the later candidates' distribution is printed too.

    .venv/bin/python bench/empirical_candidate_time.py [--data PATH] [--json OUT] [--only ID]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

_DEFAULT = Path(__file__).resolve().parent.parent / "complexity_model/data/empirical_problems.jsonl"


def _cgroup_usage_s(container_id: str) -> float | None:
    # Under Docker's default parent (older checkouts) or the judge's own (judge_sandboxes).
    for path in (
        *glob.glob(f"/sys/fs/cgroup/cpuacct/*/{container_id}/cpuacct.usage"),
        f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/cpu.stat",
        *glob.glob(f"/sys/fs/cgroup/*/{container_id}/cpu.stat"),
    ):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        if path.endswith("cpuacct.usage"):
            return int(text) / 1e9
        for line in text.splitlines():
            if line.startswith("usage_usec"):
                return int(line.split()[1]) / 1e6
    return None


class ContainerCpu:
    """Sums the CPU seconds of the containers this process started (their names carry its pid)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[float, float]] = {}  # id -> (first, last)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _ids(self) -> list[str]:
        out = subprocess.run(
            ["docker", "ps", "-q", "--no-trunc", "--filter", f"name=-{os.getpid()}-"],
            capture_output=True,
            text=True,
            check=False,
        )
        return out.stdout.split()

    def sample(self) -> None:
        for container in self._ids():
            usage = _cgroup_usage_s(container)
            if usage is None:
                continue
            with self._lock:
                first, _ = self._seen.get(container, (usage, usage))
                self._seen[container] = (first, usage)

    def _loop(self) -> None:
        while not self._stop.wait(0.1):
            self.sample()

    def total(self) -> float:
        self.sample()
        with self._lock:
            return sum(last for _, last in self._seen.values())

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _describe(name: str, values: list[float]) -> str:
    return (
        f"{name}: mean {statistics.fmean(values):.2f}, p50 {_pct(values, 0.5):.2f}, "
        f"p95 {_pct(values, 0.95):.2f}, max {max(values):.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=_DEFAULT)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--authored", action="store_true", help="keep the authors' generators")
    parser.add_argument(
        "--only", action="append", default=[], help="problems whose id contains this (repeatable)"
    )
    args = parser.parse_args()

    from complexity_model.derive.judge import DerivingJudge
    from complexity_model.empirical import EmpiricalComplexityJudge
    from complexity_model.problem import ComplexityProblem
    from judge_service.sandbox.config import SandboxConfig
    from judge_service.sandbox.pool import SandboxPool

    problems = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    if args.only:
        problems = [p for p in problems if any(part in p["id"] for part in args.only)]
    print(f"load average before: {os.getloadavg()}", flush=True)
    rows: list[dict[str, Any]] = []
    prepared: list[dict[str, Any]] = []
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        cpu = ContainerCpu()
        judge = DerivingJudge(EmpiricalComplexityJudge(pool))
        prepare = getattr(judge, "prepare", None)
        for data in problems:
            problem = ComplexityProblem.model_validate(data)
            if not args.authored:
                problem = problem.model_copy(update={"input_generator": None})
            if prepare is not None:
                box0, own0, wall0 = cpu.total(), time.process_time(), time.perf_counter()
                prepare(problem)
                wall = time.perf_counter() - wall0
                own = time.process_time() - own0
                box = cpu.total() - box0
                prepared.append(
                    {"problem": problem.id, "wall_s": wall, "host_cpu_s": own, "sandbox_cpu_s": box}
                )
                print(
                    f"prepared {problem.id:<28} wall {wall:5.2f} cpu {own + box:5.2f} "
                    f"(host {own:4.2f} box {box:4.2f})",
                    flush=True,
                )
            for index, solution in enumerate(data.get("solutions", [])):
                box0, own0, wall0 = cpu.total(), time.process_time(), time.perf_counter()
                estimate = judge.estimate(solution["code"], solution["language"], problem)
                wall = time.perf_counter() - wall0
                own = time.process_time() - own0
                box = cpu.total() - box0
                sizes = estimate.evidence.get("sizes") or []
                rows.append(
                    {
                        "problem": problem.id,
                        "language": solution["language"],
                        "label": solution["label"],
                        "predicted": estimate.predicted,
                        "wall_s": wall,
                        "host_cpu_s": own,
                        "sandbox_cpu_s": box,
                        "sizes": len(sizes) if isinstance(sizes, list) else None,
                        "first": index == 0 and prepare is None,
                        "reason": str(estimate.evidence.get("reason", ""))[:300],
                        "load1": os.getloadavg()[0],
                    }
                )
                mark = "ok " if estimate.predicted == solution["label"] else "MISS"
                print(
                    f"{mark} {problem.id:<28} {solution['language']:<6} {solution['label']:<11}"
                    f" -> {estimate.predicted:<11} wall {wall:5.2f} cpu {own + box:5.2f} "
                    f"(host {own:4.2f} box {box:4.2f}) sizes {rows[-1]['sizes']}"
                    + (f"  ({rows[-1]['reason'][:160]})" if mark == "MISS" else ""),
                    flush=True,
                )
        cpu.close()
    exact = sum(r["predicted"] == r["label"] for r in rows)
    print(f"exact class {exact}/{len(rows)} = {exact / len(rows):.1%}")
    print(_describe("wall per candidate", [r["wall_s"] for r in rows]))
    print(_describe("CPU per candidate", [r["host_cpu_s"] + r["sandbox_cpu_s"] for r in rows]))
    print(_describe("  host CPU", [r["host_cpu_s"] for r in rows]))
    print(_describe("  sandbox CPU", [r["sandbox_cpu_s"] for r in rows]))
    later = [r for r in rows if not r["first"]]
    if len(later) < len(rows):
        print("(the first candidate of each problem also prepared it; the others:)")
        print(
            _describe(
                "CPU per later candidate", [r["host_cpu_s"] + r["sandbox_cpu_s"] for r in later]
            )
        )
        print(_describe("wall per later candidate", [r["wall_s"] for r in later]))
    for language in sorted({r["language"] for r in rows}):
        spent = [r["host_cpu_s"] + r["sandbox_cpu_s"] for r in rows if r["language"] == language]
        print(_describe(f"CPU per {language} candidate ({len(spent)})", spent))
    if prepared:
        print(_describe("preparation wall per problem", [p["wall_s"] for p in prepared]))
        print(
            _describe(
                "preparation CPU per problem",
                [p["host_cpu_s"] + p["sandbox_cpu_s"] for p in prepared],
            )
        )
    print(f"load average after: {os.getloadavg()}")
    if args.json:
        args.json.write_text(json.dumps({"candidates": rows, "preparation": prepared}, indent=1))


if __name__ == "__main__":
    main()
