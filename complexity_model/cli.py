"""``judge complexity ...``: the complexity judge's commands.

Each backend registers its own commands here (one ``app.command(...)(function)`` line per
command), so that ``judge complexity --help`` lists them all.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Complexity judge: estimate, plot, serve, train, evaluate, derive.", no_args_is_help=True
)

from complexity_model.evaluate import evaluate  # noqa: E402

app.command("evaluate")(evaluate)

from complexity_model.served.launch import serve  # noqa: E402
from complexity_model.train import train_command  # noqa: E402

# Extra arguments after the options go to `vllm serve`.
_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
app.command("serve", context_settings=_PASS_THROUGH)(serve)
app.command("train")(train_command)

from complexity_model.empirical.plot import plot_command  # noqa: E402

app.command("plot")(plot_command)

from complexity_model.derive.cli import derive_command  # noqa: E402

app.command("derive")(derive_command)
