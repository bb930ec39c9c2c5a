"""GRPO on a CPU, end to end: a tiny policy (built from a config, nothing downloaded) is first
fine-tuned on a small SFT set made here, then trained by the included GRPO trainer in two
stages against a live judge service, on toy problems that each have a slow-but-correct
(O(n) loop) and a fast (O(1) formula, the declared optimal class) solution.

    .venv/bin/python examples/grpo_demo.py --out /tmp/grpo-demo      # starts `judge serve`
    .venv/bin/python examples/grpo_demo.py --url http://127.0.0.1:8000 # or uses a running one

Prints the held-out pass rate and the share of time-optimal passing solutions at each stage's
start and end; writes ``curves.png``, ``metrics.jsonl`` and TensorBoard events to OUT/grpo.
The service is started with its empirical timing off, so the static complexity judge
decides R_time (fast and deterministic). A run takes about 10 minutes on 2 cores."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
import torch  # noqa: E402
from grpo_toy import Toy, sft, sft_rows, split, tiny_policy  # noqa: E402

from rl_client import JudgeClient  # noqa: E402
from rl_client._journal import read_records  # noqa: E402
from rl_client.grpo import GRPOConfig, StepReport, Trainer  # noqa: E402


@contextmanager
def judge_service(url: str | None, root: Path) -> Iterator[str]:
    if url:
        yield url
        return
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "JUDGE_DATABASE_URL": f"sqlite:///{root}/judge.db",
        "JUDGE_COMPLEXITY_EMPIRICAL": "false",
        "JUDGE_SANDBOXES_PER_LANGUAGE": "4",
    }
    log = (root / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "judge_service", "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"judge serve exited; see {root / 'serve.log'}")
            try:
                httpx.get(f"{base}/health", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _rows(toys: list[Toy]) -> list[dict[str, object]]:
    return [{"prompt": toy.prompt, "problem_id": toy.id} for toy in toys]


def _write_jsonl(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("grpo-demo"))
    parser.add_argument("--url", help="a running judge service (default: start one)")
    parser.add_argument("--sft-steps", type=int, default=800)
    parser.add_argument("--sft-per-problem", type=int, default=12)
    parser.add_argument("--stage1-steps", type=int, default=50)
    parser.add_argument("--stage2-steps", type=int, default=40)
    parser.add_argument("--train-problems", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # A plain SIGTERM would skip the finally that stops the service this started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    torch.set_num_threads(1)  # two shared cores: more threads only contend
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)

    seen, held = split(args.seed)
    per_family = args.train_problems // 4
    families = sorted({toy.family for toy in seen})
    train = [toy for f in families for toy in [t for t in seen if t.family == f][:per_family]]
    print(f"{len(seen)} seen problems (SFT), {len(train)} of them for GRPO, {len(held)} held out")

    model_dir = out / "sft-model"
    if not (model_dir / "config.json").exists():
        print("SFT warm-up:")
        model, tokenizer = tiny_policy(args.seed)
        sft(
            model,
            tokenizer,
            sft_rows(seen, args.sft_per_problem, args.seed),
            args.sft_steps,
            model_dir,
        )

    with judge_service(args.url, out) as url:
        with JudgeClient(url) as client:
            client.problems.upsert([toy.problem() for toy in seen + held])
        config = GRPOConfig(
            model=str(model_dir),
            problems=_write_jsonl(out / "train.jsonl", _rows(train)),
            eval_problems=_write_jsonl(out / "heldout.jsonl", _rows(held)),
            output_dir=str(out / "grpo"),
            judge_url=url,
            group_size=8,
            prompts_per_step=8,
            max_new_tokens=24,
            learning_rate=5e-4,
            loss_type="dapo",
            epsilon_high=0.28,
            stage1_steps=args.stage1_steps,
            stage2_steps=args.stage2_steps,
            # Problems the policy outgrew (k > 5) leave, those it now sometimes solves join.
            filter_every=10,
            eval_every=10,
            eval_samples=8,
            seed=args.seed,
            device="cpu",
        )
        started = time.monotonic()

        def show(report: StepReport) -> None:
            v = report.values
            optimal = v["time_optimal"]
            print(
                f"step {report.step:3d}/{report.total_steps} stage {report.stage} "
                f"reward {v['reward']:.3f} pass {v['pass_rate']:.2f} "
                f"time-optimal {'-' if optimal is None else round(optimal, 2)} "
                f"loss {v['loss']:+.4f} ({time.monotonic() - started:.0f} s)",
                flush=True,
            )

        Trainer(config, on_step=show).run()
    _report(out / "grpo")


def _report(run: Path) -> None:
    records = read_records(run / "metrics.jsonl")
    evals = [r for r in records if r["kind"] == "eval"]
    filters = [r for r in records if r["kind"] == "filter"]
    print("\nheld-out evaluations (pass rate; time-optimal share of passing solutions):")
    for r in evals:
        optimal = "-" if r["time_optimal"] is None else f"{r['time_optimal']:.2f}"
        print(
            f"  step {r['step']:3d} stage {r['stage']}: pass {r['pass_rate']:.2f}, "
            f"time-optimal {optimal}"
        )
    for r in filters:
        print(
            f"  filter before stage {r['stage']} (step {r['step']}): kept {r['kept']} of "
            f"{r['problems']}, k histogram {r['histogram']}"
        )
    print(f"curves: {run / 'curves.png'}")


if __name__ == "__main__":
    main()
