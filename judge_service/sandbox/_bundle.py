"""Ship Python modules into a container over a pipe, so they never sit on its disk."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

AGENT_DIR = Path(__file__).resolve().parent / "agent"

# Run with ``python3 -c BOOT N``: reads an N-byte JSON bundle from fd 0, creates its modules
# (and their parent packages) in sys.modules, then calls the main module's main().
BOOT = """\
import os, sys, json, types
n = int(sys.argv[1]); b = b''
while len(b) < n:
    c = os.read(0, n - len(b))
    if not c: raise SystemExit(3)
    b += c
m = json.loads(b)
for name, source in m['modules']:
    parts = name.split('.')
    for i in range(1, len(parts)):
        pkg = '.'.join(parts[:i])
        if pkg not in sys.modules:
            sys.modules[pkg] = types.ModuleType(pkg); sys.modules[pkg].__path__ = []
    mod = types.ModuleType(name); sys.modules[name] = mod
    exec(compile(source, name.rpartition('.')[2] + '.py', 'exec'), mod.__dict__)
    if len(parts) > 1: setattr(sys.modules['.'.join(parts[:-1])], parts[-1], mod)
del b, m
sys.modules[sys.argv[2]].main()
"""

AGENT_MODULE = "judge_service.sandbox.agent.agent"
ZYGOTE_MODULE = "judge_service.sandbox.agent.zygote"


def _bundle(modules: list[str]) -> bytes:
    entries = [
        [name, (AGENT_DIR / f"{name.rpartition('.')[2]}.py").read_text()] for name in modules
    ]
    return json.dumps({"modules": entries}).encode()


@lru_cache
def agent_bundle() -> bytes:
    return _bundle(
        [
            "judge_service.sandbox.agent.wire",  # before workdir and the agent, which import it
            # streams before checkers, which imports it
            "judge_service.sandbox.agent.plain",
            "judge_service.sandbox.agent.planned",
            "judge_service.sandbox.agent.streams",
            "judge_service.sandbox.agent.checkers",
            "judge_service.sandbox.agent.procfs",  # before helpers, which import it
            "judge_service.sandbox.agent.seccomp",
            "judge_service.sandbox.agent.helpers",
            "judge_service.sandbox.agent.workdir",
            "judge_service.sandbox.agent.ipc",
            "judge_service.sandbox.agent.testdata",
            "judge_service.sandbox.agent.javac_server",
            "judge_service.sandbox.agent.watch",  # before verdicts and processes
            "judge_service.sandbox.agent.verdicts",
            "judge_service.sandbox.agent.processes",
            AGENT_MODULE,
        ]
    )


@lru_cache
def zygote_bundle() -> bytes:
    return _bundle(
        [
            "judge_service.sandbox.agent.plain",
            "judge_service.sandbox.agent.isolated",
            "judge_service.sandbox.agent.relay",
            ZYGOTE_MODULE,
        ]
    )


def boot_argv(bundle: bytes, main_module: str, *, site: bool) -> list[str]:
    flags = ["-I"] if site else ["-I", "-S"]
    return ["/usr/bin/python3", *flags, "-c", BOOT, str(len(bundle)), main_module]
