"""Shared by the adversarial tests: hostile programs against the real Docker sandboxes.

Every test runs a hostile program and asserts two things: the verdict is the right *user*
verdict (never SE, never an exception out of the pool), and the attack is contained: the next
job in the same sandbox is clean (a probe scans /proc, the scratch directories and SysV IPC),
and the host is unaffected.

Each test module uses its own pool (conftest.py), one sandbox per language, so consecutive jobs
of a language land in the same container. A sandbox whose reset failed is destroyed and
replaced (allowed); the tests note it in the end-of-module summary, and the next job must be
clean either way.

Network traffic goes to 127.0.0.1 only (inside a sandbox that is the sandbox's own loopback).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import textwrap
from typing import Any

import pytest

from judge_service.sandbox.agent import javac_server
from judge_service.sandbox.errors import SandboxError
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial import _languages

AC, WA, RE, TLE, MLE, OLE, CE, SE = (
    Verdict.AC,
    Verdict.WA,
    Verdict.RE,
    Verdict.TLE,
    Verdict.MLE,
    Verdict.OLE,
    Verdict.CE,
    Verdict.SE,
)
USER_VERDICTS = (AC, WA, RE, TLE, MLE, OLE, CE)
HOST_SERVICES = {"redis": 6379, "postgres": 5432}
FAST = {"time_limit_ms": 500}
EVENTS: list[str] = []


def dedent(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


# ---- the clean-sandbox probe ---------------------------------------------------------------
# A Python program (every image has python3: the agent needs it); compiled languages exec it.
# It prints CLEAN, or DIRTY and what it found: processes outside the judge's own session (PID 1,
# the spawner, the zygote, the Java images' warm javac) and the probe's session, stopped
# helpers, files in the scratch directories, SysV IPC objects, and scratch space that cannot
# be written.
PROBE_TEMPLATE = dedent(
    """
    import fnmatch, os, sys, time
    ALLOWED = __ALLOWED__
    JAVAC_SERVER = __JAVAC_SERVER__
    text = sys.stdin.read().strip()
    time.sleep(float(text or 0))
    problems = []
    def fields(pid):
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()
    def command(pid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                return handle.read().replace(bytes(1), b" ").strip()
        except OSError:
            return b"?"
    me = os.getpid()
    mine = os.getsid(0)
    judge_session = int(fields(1)[3])
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        pid = int(name)
        try:
            stat = fields(pid)
        except (OSError, IndexError):
            continue
        session, cmd = int(stat[3]), command(pid)
        if session == mine:
            continue
        helper = (
            cmd.startswith(b"/opt/judge/spawner")
            or b"sandbox.agent.zygote" in cmd
            or cmd.startswith(JAVAC_SERVER)
        )
        if session == judge_session and helper:
            if stat[0] not in ("S", "R"):
                problems.append("helper %d in state %s" % (pid, stat[0]))
            continue
        problems.append("process %d session %d state %s %r" % (pid, session, stat[0], cmd[:60]))
    for directory in ("/work", "/tmp", "/dev/shm", "/dev/mqueue"):
        try:
            names = set(os.listdir(directory))
        except OSError as error:
            problems.append("%s: %s" % (directory, error))
            continue
        patterns = ALLOWED.get(directory, ())
        names = {n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in patterns)}
        if names:
            problems.append("%s holds %s" % (directory, sorted(names)[:6]))
    for kind in ("shm", "msg", "sem"):
        with open("/proc/sysvipc/" + kind) as handle:
            rows = handle.read().splitlines()[1:]
        if rows:
            problems.append("%d SysV %s left" % (len(rows), kind))
    for directory in ("/work", "/tmp", "/dev/shm"):
        path = directory + "/probe.bin"
        try:
            with open(path, "wb") as handle:
                handle.write(b"p" * (1 << 20))
            os.unlink(path)
        except OSError as error:
            problems.append("cannot write %s: %s" % (directory, error))
    print("CLEAN" if not problems else "DIRTY " + " | ".join(problems))
    """
)

# What the probe's own job leaves: its source, its binary, and (Go) the compiler's cache.
PROBE_ALLOWED = {
    "python": {"/work": ["main.py"]},
    "c": {"/work": ["main.c", "main"]},
    "cpp": {"/work": ["main.cpp", "main"]},
    "rust": {"/work": ["main.rs", "main"]},
    "go": {"/work": ["main.go", "main"], "/tmp": ["go-cache"]},
    "javascript": {"/work": ["main.js"]},
}

PROBE_WRAPPERS = {
    "c": '#include <unistd.h>\nint main(void) {\n  execl("/usr/bin/python3", "python3", "-I", '
    '"-S", "-c", __PROBE__, (char *)0);\n  return 99;\n}\n',
    "cpp": '#include <unistd.h>\nint main() {\n  execl("/usr/bin/python3", "python3", "-I", '
    '"-S", "-c", __PROBE__, (char *)0);\n  return 99;\n}\n',
    "rust": "use std::os::unix::process::CommandExt;\nfn main() {\n  let error = "
    'std::process::Command::new("/usr/bin/python3").args(["-I", "-S", "-c", __PROBE__]).exec();'
    '\n  panic!("{}", error);\n}\n',
    "go": 'package main\n\nimport (\n\t"os"\n\t"syscall"\n)\n\nfunc main() {\n\terr := '
    'syscall.Exec("/usr/bin/python3", []string{"python3", "-I", "-S", "-c", __PROBE__}, '
    "os.Environ())\n\tpanic(err)\n}\n",
    "javascript": "const result = require('child_process').spawnSync('/usr/bin/python3', "
    "['-I', '-S', '-c', __PROBE__], { stdio: 'inherit' });\n"
    "process.exitCode = result.status === null ? 99 : result.status;\n",
}


# The warm javac's command line (agent/javac_server.py) up to its source, which the agent
# starts in its own session: a helper like the spawner, which no program's process can join.
_JAVAC_SERVER = repr(" ".join(javac_server.server_argv(0)[:-1]).encode())


def _probe(allowed: dict[str, list[str]]) -> str:
    return PROBE_TEMPLATE.replace("__ALLOWED__", repr(allowed)).replace(
        "__JAVAC_SERVER__", _JAVAC_SERVER
    )


def probe_source(language: str) -> str:
    if language in _languages.SHELL_OUT:
        script = _probe(_languages.PROBE_ALLOWED[language])
        return _languages.shell_out(language, _languages.python_command(script), "CLEAN")
    python = _probe(PROBE_ALLOWED[language])
    if language == "python":
        return python
    literal = json.dumps(python)
    assert literal.isascii() and "\\u" not in literal and "\\b" not in literal
    return PROBE_WRAPPERS[language].replace("__PROBE__", literal)


# ---- helpers -------------------------------------------------------------------------------
def describe(result: JobResult) -> str:
    lines = [f"job verdict {result.verdict.value}, system_error={result.system_error!r}"]
    if result.compile is not None:
        lines.append(f"compile ok={result.compile.ok}: {result.compile.output[-600:]!r}")
    for index, test in enumerate(result.tests[:4]):
        lines.append(
            f"test {index}: {test.verdict.value} {test.message!r} exit={test.exit_code} "
            f"signal={test.signal} cpu={test.time_ms}ms wall={test.wall_ms}ms "
            f"mem={test.memory_kb}KB\n  stdout={test.stdout[:600]!r}"
            f"\n  stderr={test.stderr[-600:]!r}"
        )
    if len(result.tests) > 4:
        verdicts = sorted({test.verdict.value for test in result.tests[4:]})
        lines.append(f"... {len(result.tests) - 4} more tests, verdicts {verdicts}")
    for fetched in result.files:
        lines.append(f"file {fetched.name}: error={fetched.error!r} content={fetched.content!r}")
    return "\n".join(lines)


def judge(
    pool: SandboxPool,
    language: str,
    code: str,
    tests: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> JobResult:
    """Judge a job; an exception out of the pool is a judge failure, reported as such."""
    job = Job(language=language, code=code, tests=tests or [{"input": "", "output": ""}], **fields)
    destroyed = pool.stats.sandboxes_destroyed
    try:
        result = pool.judge(job)
    except SandboxError as error:
        EVENTS.append(f"{_current_test()}: judge raised {type(error).__name__}")
        pytest.fail(f"the judge failed on a user program: {type(error).__name__}: {error}")
    if pool.stats.sandboxes_destroyed != destroyed:
        EVENTS.append(f"{_current_test()}: the {language} sandbox was destroyed and replaced")
    return result


def _current_test() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].rpartition("::")[2]


def expect(result: JobResult, *verdicts: Verdict) -> None:
    assert result.verdict is not SE, describe(result)
    assert result.verdict in verdicts, describe(result)


def assert_next_job_clean(pool: SandboxPool, language: str, delay: float = 0.0) -> None:
    """The next job of this language (same sandbox, or its replacement) is a clean slate."""
    result = judge(
        pool,
        language,
        probe_source(language),
        # The languages that shell out to the probe give it no stdin (nor SQL a number).
        [{"input": "" if language in _languages.SHELL_OUT else str(delay), "output": "CLEAN"}],
        limits={"time_limit_ms": 5000, "compile_time_limit_ms": 30000},
    )
    assert result.verdict is AC, "the next job is not clean:\n" + describe(result)


def host_port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


def assert_host_fine(services: dict[str, bool]) -> None:
    subprocess.run(["true"], check=True, timeout=10)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    for name, was_open in services.items():
        if was_open:
            assert host_port_open(HOST_SERVICES[name]), f"host {name} became unreachable"


def assert_listener_untouched(listener: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        connection, _ = listener.accept()
        connection.close()


# Finds the judge's processes from inside a sandbox (cmdline is world-readable).
FIND_JUDGE = dedent(
    """
    def judge_pids():
        # The helpers share PID 1's session; this program's cmdline can match the zygote's.
        def session(pid):
            with open("/proc/%s/stat" % pid) as handle:
                return int(handle.read().rsplit(")", 1)[1].split()[3])
        found = {"agent": 1}
        for name in os.listdir("/proc"):
            if not name.isdigit() or name in ("1", str(os.getpid())):
                continue
            try:
                with open("/proc/%s/cmdline" % name, "rb") as handle:
                    cmd = handle.read()
                if session(name) != session(1):
                    continue
            except OSError:
                continue
            if cmd.startswith(b"/opt/judge/spawner"):
                found["spawner"] = int(name)
            elif b"sandbox.agent.zygote" in cmd:
                found["zygote"] = int(name)
        return found
    """
)
