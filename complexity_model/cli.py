"""``judge complexity ...``: the complexity judge's commands.

Each backend registers its own commands here (one ``app.command(...)(function)`` line per
command), so that ``judge complexity --help`` lists them all.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Complexity judge: estimate, plot, serve, train, evaluate.", no_args_is_help=True
)

from complexity_model.evaluate import evaluate  # noqa: E402

app.command("evaluate")(evaluate)
