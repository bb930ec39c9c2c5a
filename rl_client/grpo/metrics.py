"""Training logs: one JSON line per event in ``metrics.jsonl``, the same scalars as TensorBoard
events (when tensorboard is installed), and ``curves.png`` drawn from the JSONL."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from rl_client._journal import append, read_records

__all__ = ["MetricsLog", "plot_curves"]

logger = logging.getLogger("rl_client")


class MetricsLog:
    def __init__(self, out_dir: Path, tensorboard: bool = True) -> None:
        self.path = out_dir / "metrics.jsonl"
        self.writer: Any = None
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(out_dir / "tensorboard"))
            except ImportError:
                logger.warning("tensorboard is not installed: metrics go to %s only", self.path)

    def log(self, kind: str, step: int, values: dict[str, Any]) -> None:
        """``kind``: train, eval or filter; numbers also go to TensorBoard as kind/name."""
        append(self.path, [{"kind": kind, "step": step, **values}])
        if self.writer is None:
            return
        for name, value in values.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                self.writer.add_scalar(f"{kind}/{name}", value, step)
            elif kind == "filter" and name == "histogram":
                for k, count in enumerate(value):
                    self.writer.add_scalar(f"filter/stage{values['stage']}_k{k}", count, step)
        self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


_PANELS = (
    ("train", ("reward", "format", "correctness", "time"), "reward components (train)"),
    ("train", ("pass_rate", "time_optimal"), "pass rate, time-optimal share (train)"),
    ("eval", ("pass_rate", "time_optimal"), "held-out pass rate, time-optimal share"),
    ("train", ("loss",), "loss"),
)


def plot_curves(metrics: Path, png: Path) -> bool:
    """Draws the reward components, pass rates (train and held-out) and loss; the stage switch
    is a vertical line. False when matplotlib is missing or nothing was logged."""
    records = read_records(metrics)
    if not records:
        return False
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        logger.warning("matplotlib is not installed: no %s", png)
        return False
    # Where stage 2 began: its first train step follows the last stage-1 one.
    stage_one = [r["step"] for r in records if r["kind"] == "train" and r.get("stage") == 1]
    stage_two = [r["step"] for r in records if r["kind"] == "train" and r.get("stage") == 2]
    switches = [max(stage_one)] if stage_one and stage_two else []
    figure, axes = plt.subplots(2, 2, figsize=(11, 7))
    for ax, (kind, names, title) in zip(axes.flat, _PANELS, strict=True):
        rows = [r for r in records if r["kind"] == kind]
        for name in names:
            points = [(r["step"], r[name]) for r in rows if r.get(name) is not None]
            if points:
                steps, values = zip(*points, strict=True)
                ax.plot(steps, values, label=name, marker="o" if kind == "eval" else None, ms=3)
        for step in switches:
            ax.axvline(step, color="grey", linestyle="--", linewidth=1)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("step")
        ax.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(png, dpi=90)
    plt.close(figure)
    return True
