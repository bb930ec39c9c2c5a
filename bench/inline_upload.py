"""An inline problem with big tests, sent with every rollout of a group: every copy inline
against each distinct problem once (later copies by ``problem_hash``), through ``/v1/judge``.

A GRPO step sends a group of ``--group`` rollouts of one contest problem: 20 stdin tests of
about 2 MB each (C++ sum, 40 MB in all). Each step's programs are new (a comment numbers
them), so the result cache answers none of them and both modes judge the same work. The two
modes take turns, ``--steps`` steps each per round, against one ``judge serve``. Prints seconds
per step and megabytes sent per step for each mode, and the ratio.

    .venv/bin/python bench/inline_upload.py [--rounds 2] [--steps 2] [--group 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the bench modules beside this file

from _engine_workloads import SIZES, SUM_PROGRAMS, _tests  # noqa: E402
from _http_workloads import service  # noqa: E402

from rl_client import JudgeClient, JudgeOptions, Submission  # noqa: E402


class _Counting(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent += len(request.read())
        return super().handle_request(request)


def _step(
    url: str, problem: dict[str, object], group: int, serial: int, named: bool
) -> tuple[float, int]:
    transport = _Counting()
    options = JudgeOptions(complexity="off")
    # Two requests per group: 8 inline copies of 40 MB would pass the 256 MB body limit.
    client = JudgeClient(
        url,
        transport=transport,
        batch_size=max(1, group // 2),
        name_repeated_problems=named,
        options=options,
    )
    if named:  # the problem went inline at an earlier step of the run: warm the name
        client.problem_names.resent([{"problem": problem}])
    code = SUM_PROGRAMS["cpp"]
    group_items = [
        Submission(language="cpp", problem=problem, code=f"// rollout {serial}.{i}\n{code}")
        for i in range(group)
    ]
    started = time.perf_counter()
    results = client.judge(group_items)
    elapsed = time.perf_counter() - started
    client.close()
    if [r.verdict for r in results] != ["AC"] * group:
        raise SystemExit(f"not every rollout is AC: {[(r.verdict, r.error) for r in results]}")
    return elapsed, transport.sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--group", type=int, default=8)
    args = parser.parse_args()
    problem = {"id": "big-sum", "tests": _tests(SIZES["2MB"], seed=7), "time_limit_ms": 5000}
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    seconds: dict[bool, list[float]] = {False: [], True: []}
    sent: dict[bool, list[int]] = {False: [], True: []}
    serial = 0
    with tempfile.TemporaryDirectory() as directory, service(directory, sandboxes=2) as url:
        _step(url, problem, 1, serial, named=False)  # the problem reaches the service once
        for _ in range(args.rounds):
            for named in (False, True):
                for _ in range(args.steps):
                    serial += 1
                    elapsed, size = _step(url, problem, args.group, serial, named)
                    seconds[named].append(elapsed)
                    sent[named].append(size)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    for named in (False, True):
        label = "named after the first copy" if named else "every copy inline"
        per_step = min(seconds[named])
        print(
            f"{label:28s} best {per_step:6.2f} s/step (all: "
            f"{', '.join(f'{s:.2f}' for s in seconds[named])}), "
            f"{max(sent[named]) / 1e6:7.2f} MB sent per step"
        )
    print(f"inline / named: {min(seconds[False]) / min(seconds[True]):.2f}x")


if __name__ == "__main__":
    main()
