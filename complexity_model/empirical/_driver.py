"""The host's side of the timing driver: its spec, its program's source, its output.

The program (:mod:`._program`, with :mod:`._spawner`, :mod:`._timing`, :mod:`._isolation`,
:mod:`._wire` and :mod:`._digest`) runs a Python solution inside the sandbox, one sandbox run
per program; this module builds what
it reads on stdin and parses the lines it prints.
"""

from __future__ import annotations

import inspect
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from complexity_model.empirical import _digest, _isolation, _program, _spawner, _timing, _wire

# Emptied after every timed run (the program files too: the driver is already in memory).
SANDBOX_SCRATCH = ("/work", "/tmp", "/dev/shm", "/dev/mqueue")


_FUTURE = "from __future__ import annotations\n"


def timing_program() -> str:
    """The driver's source: its modules in order, each defining what the next uses (their
    ``from __future__`` import moves to the top, the only place it may be)."""
    modules = (_digest, _wire, _isolation, _timing, _spawner, _program)
    return _FUTURE + "\n".join(inspect.getsource(m).replace(_FUTURE, "") for m in modules)


@dataclass(frozen=True)
class DriverSpec:
    """What one timing run measures and how long it may take."""

    code: str
    generator: str
    mode: str
    entry_point: str | None
    sizes: list[int]
    repeats: int
    min_sample_s: float
    cap_s: float
    budget_s: float
    fold_case: bool = False
    digest_max_n: int = 1 << 13
    extend_to: int = 1 << 30
    """Past the last size, n keeps growing up to this while the input stays a few bytes."""
    scratch: list[str] = field(default_factory=list)
    """Directories emptied after every timed run (the sandbox's; none where the driver runs
    outside one)."""
    clear_ipc: bool = False
    """Remove SysV IPC objects after every timed run (in the sandbox's own IPC namespace)."""
    own_cgroup: bool = False
    """The driver runs alone in its cgroup (the sandbox's): CPU there that no process it knows
    used is work the solution handed to another process."""
    nonce: str = field(default_factory=lambda: secrets.token_hex(8))
    seed: str = field(default_factory=lambda: secrets.token_hex(16))
    """Seeds the generator with n: the judge's secret, which no candidate process sees."""

    def to_stdin(self) -> str:
        return json.dumps(self.__dict__)


@dataclass
class DriverOutput:
    """The measured sizes, answer digests, and why the run stopped early (if it did)."""

    points: list[tuple[int, float, bool]] = field(default_factory=list)
    digests: dict[int, str] = field(default_factory=dict)
    error: str = ""
    error_source: str = ""
    notes: list[str] = field(default_factory=list)
    complete: bool = False
    """The driver said it was done (a driver that was killed did not)."""


def parse_output(stdout: str, nonce: str) -> DriverOutput:
    """The driver's lines (those with the nonce); whatever the solution printed is skipped."""
    parsed = DriverOutput()
    prefix = nonce + " "
    for line in stdout.splitlines():
        if not line.startswith(prefix):
            continue
        try:
            fields: list[Any] = json.loads(line[len(prefix) :])
        except ValueError:
            continue
        kind = fields[0] if fields else None
        if kind == "point" and len(fields) == 5:
            _, n, seconds, censored, digest = fields
            parsed.points.append((int(n), float(seconds), bool(censored)))
            if isinstance(digest, str):
                parsed.digests[int(n)] = digest
        elif kind == "error" and len(fields) == 3:
            parsed.error_source, parsed.error = str(fields[1]), str(fields[2])
        elif kind == "note" and len(fields) == 2:
            parsed.notes.append(str(fields[1]))
        elif kind == "end":
            parsed.complete = True
    return parsed
