"""Every command's help shows its text whole: Rich reads ``[word]`` as markup and drops it,
which once turned "(k of n in [kmin, kmax])" into "(k of n in )" in ``judge train --help``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from judge_service.cli import app

BRACKETED = re.compile(r"\[[^\]\n]+\]")


# Typer's commands and groups (it carries a click of its own): a group has subcommands.
def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in group.commands.items():
        yield (*path, name)
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))


def _texts(command: Any) -> list[str]:
    texts = [command.help or ""]
    texts += [getattr(param, "help", None) or "" for param in command.params]
    return texts


ROOT = typer.main.get_command(app)
COMMANDS = list(_commands(ROOT))


def test_the_cli_has_the_commands_this_test_reads() -> None:
    assert ("train",) in COMMANDS and ("serve",) in COMMANDS and len(COMMANDS) > 8


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_bracketed_text_in_help_is_shown(path: tuple[str, ...]) -> None:
    command = ROOT
    for name in path:
        command = command.commands[name]
    shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "1000"})
    assert shown.exit_code == 0, shown.output
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", shown.output).split())
    for text in _texts(command):
        for bracketed in BRACKETED.findall(" ".join(text.split())):
            assert bracketed in flat, (bracketed, flat[:2000])
