"""``judge complexity ...``: the complexity judge's commands.

Each backend registers its own commands here (one ``app.command(...)(function)`` line per
command), so that ``judge complexity --help`` lists them all.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Complexity judge: estimate, plot, serve, train, evaluate.", no_args_is_help=True
)
