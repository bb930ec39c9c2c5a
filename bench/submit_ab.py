"""``/submit`` on issue 17's C++ workload: another checkout's service against this one's,
alternating, in one session.

The workload is the issue's: the C++ program of ``judge bench --only stdin`` that sums
integers, 20 tests of 10,000 to 200,000 integers (21.8 MB), in SandboxFusion's ``/submit`` body
(``CommonOJDataset``, stop at the first failure). Two ``judge serve`` processes run side by
side, each on its own port, SQLite store and sandboxes: one from ``--old`` (its own
``PYTHONPATH`` and images, by default ``deb12-``: the code of 9634387 on Debian 12) and one
from this checkout. Submissions take turns old, new, old, new; each side's first submission
compiles the program and warms its sandboxes and is not timed. Every submission carries a new
comment, so each compiles afresh on both sides (as every rollout's program does); with
``--same-code`` the program repeats and each side's compile cache answers (the judging alone).
Prints seconds per submission of both sides, the ratio old / new (issue 17's goal: at least
2x) and the host's load before and after.

    PYTHONPATH=. .venv/bin/python bench/submit_ab.py --old /work/wt-old [--rounds 4]
        [--old-prefix deb12-] [--sandboxes 2] [--same-code]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the bench modules beside this file

from _engine_workloads import SUM_PROGRAMS  # noqa: E402
from _http_workloads import contest_tests, submit_body  # noqa: E402
from _table import Row  # noqa: E402
from http_throughput import free_port, server_env, wait_healthy  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Side:
    """A checkout whose ``judge serve`` runs on the images named ``image_prefix<lang>``
    (``None``: whatever that checkout's settings say)."""

    name: str
    checkout: Path
    image_prefix: str | None


@dataclass(frozen=True)
class Result:
    old_s: list[float]
    new_s: list[float]
    load_before: str
    load_after: str


def load() -> str:
    """``uptime``'s load averages: what else the host ran beside the measurement."""
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


@contextmanager
def serve(side: Side, sandboxes: int, directory: Path) -> Iterator[str]:
    """``judge serve`` of ``side``'s checkout on a loopback port; yields its URL."""
    directory.mkdir()
    env = server_env(sandboxes, str(directory))
    env["PYTHONPATH"] = str(side.checkout)
    env.pop("JUDGE_IMAGE_PREFIX", None)
    if side.image_prefix is not None:
        env["JUDGE_IMAGE_PREFIX"] = side.image_prefix
    port = free_port()
    command = [sys.executable, "-m", "judge_service", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    # cwd: the checkout, so that neither side reads the other's .env
    process = subprocess.Popen(
        command, env=env, cwd=side.checkout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base, process)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def submit_seconds(client: httpx.Client, body: dict[str, object], side: str) -> float:
    started = time.perf_counter()
    response = client.post("/submit", json=body)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    if not response.json()["accepted"]:
        raise SystemExit(f"{side}: /submit not accepted: {response.text[:500]}")
    return elapsed


def measure(
    old: Side, new: Side, rounds: int, sandboxes: int, same_code: bool, verbose: bool = False
) -> Result:
    tests = contest_tests(seed=5)
    code = SUM_PROGRAMS["cpp"]
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        bases = {
            side.name: stack.enter_context(serve(side, sandboxes, Path(directory, side.name)))
            for side in (old, new)
        }
        clients = {
            name: stack.enter_context(httpx.Client(base_url=base, timeout=600))
            for name, base in bases.items()
        }
        seconds: dict[str, list[float]] = {old.name: [], new.name: []}
        load_before = load()
        for serial in range(rounds + 1):
            for name, client in clients.items():
                comment = 0 if same_code else serial
                taken = submit_seconds(client, submit_body(code, tests, comment), name)
                if serial:  # the first compiled the program and warmed the sandboxes
                    seconds[name].append(taken)
                if verbose:
                    print(f"round {serial} {name}: {taken:.3f} s", flush=True)
        return Result(seconds[old.name], seconds[new.name], load_before, load())


def row(old_checkout: Path, old_prefix: str | None, rounds: int, sandboxes: int) -> Row:
    """``judge bench``'s row: this checkout's /submit against ``old_checkout``'s, same run."""
    result = measure(
        Side("old", old_checkout, old_prefix),
        Side("new", ROOT, os.environ.get("JUDGE_IMAGE_PREFIX")),
        rounds,
        sandboxes,
        same_code=False,
    )
    commit = subprocess.run(
        ["git", "-C", str(old_checkout), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Row(
        "/submit, C++ sum, 20 tests of 10,000 to 200,000 integers, against older code",
        min(result.new_s),
        min(result.old_s),
        "s",
        f"{commit or old_checkout.name} on {old_prefix or 'its own'} images, same run",
        f"python bench/submit_ab.py --old {old_checkout}",
        higher_is_better=False,
        goal="<= 0.5x",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", type=Path, required=True, help="the older checkout")
    parser.add_argument("--old-prefix", default="deb12-", help="its images' prefix ('' : its own)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--sandboxes", type=int, default=2, help="per language and server")
    parser.add_argument("--same-code", action="store_true", help="the compile cache answers")
    args = parser.parse_args()
    old = Side("old", args.old.resolve(), args.old_prefix or None)
    new = Side("new", ROOT, os.environ.get("JUDGE_IMAGE_PREFIX"))
    result = measure(old, new, args.rounds, args.sandboxes, args.same_code, verbose=True)
    print(f"before: {result.load_before}\nafter:  {result.load_after}")
    for name, values in (("old", result.old_s), ("new", result.new_s)):
        shown = ", ".join(f"{value:.3f}" for value in values)
        print(
            f"{name}: best {min(values):.3f} s, median {statistics.median(values):.3f} s "
            f"per submission ({shown})"
        )
    best = min(result.old_s) / min(result.new_s)
    median = statistics.median(result.old_s) / statistics.median(result.new_s)
    print(f"old / new: {best:.2f}x on the best rounds, {median:.2f}x on the medians (goal >= 2x)")


if __name__ == "__main__":
    main()
