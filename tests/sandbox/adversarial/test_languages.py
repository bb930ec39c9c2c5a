"""Containment for every language past the first seven: no network, a fork bomb stays inside,
the filesystem is read-only outside the scratch space, and escapes fail; after each attack the
language's next job starts clean and the host is fine.

Each attack is run the way a program of the language would run it: through its own way of
starting a shell command (``_languages.SHELL_OUT``), which then runs a Python script (every
image has python3 for the agent). See tests/sandbox/adversarial/_attack.py for the checks."""

from __future__ import annotations

import socket

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial import _languages
from tests.sandbox.adversarial._attack import (
    AC,
    FAST,
    USER_VERDICTS,
    assert_host_fine,
    assert_listener_untouched,
    assert_next_job_clean,
    dedent,
    expect,
    judge,
)

pytestmark = pytest.mark.integration

LIMITS = {"time_limit_ms": 5000, "compile_time_limit_ms": 30000}

NETWORK = dedent(
    """
    import os, socket
    problems = []
    for port in (6379, 5432, __PORT__):
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            try:
                with socket.socket(family, socket.SOCK_STREAM) as connection:
                    connection.settimeout(1)
                    connection.connect((host, port))
                    problems.append("connected to %s:%d" % (host, port))
            except OSError:
                pass
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=1).close()
        problems.append("reached the internet")
    except OSError:
        pass
    try:
        socket.getaddrinfo("deb.debian.org", 80)
        problems.append("resolved a name")
    except OSError:
        pass
    if sorted(os.listdir("/sys/class/net")) != ["lo"]:
        problems.append("interfaces %s" % os.listdir("/sys/class/net"))
    print("blocked" if not problems else problems)
    """
)

FILESYSTEM = dedent(
    """
    import os
    problems = []
    for path in ("/etc/passwd", "/usr/bin/python3", "/opt/judge/spawner", "/bin/sh",
                 "/planted", "/usr/lib/planted", "/opt/judge/planted", "/etc/planted"):
        try:
            with open(path, "a"):
                problems.append("wrote " + path)
        except OSError:
            pass
    for path in ("/etc/shadow",):
        try:
            with open(path, "rb") as handle:
                handle.read(1)
                problems.append("read " + path)
        except OSError:
            pass
    for path in ("/var/run/docker.sock", "/run/docker.sock"):
        if os.path.exists(path):
            problems.append("found " + path)
    for directory in ("/work", "/tmp"):
        with open(directory + "/scratch.bin", "wb") as handle:
            handle.write(b"x" * 4096)
        os.unlink(directory + "/scratch.bin")
    print("contained" if not problems else problems)
    """
)

ESCAPE = dedent(
    """
    import ctypes, os
    problems = []
    if os.getuid() == 0 or os.geteuid() == 0:
        problems.append("runs as root")
    try:
        os.setuid(0)
        problems.append("setuid(0)")
    except OSError:
        pass
    try:
        os.chroot("/tmp")
        problems.append("chroot")
    except OSError:
        pass
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000) == 0:
        problems.append("made a user namespace")
    if libc.mount(b"proc", b"/tmp", b"proc", 0, None) == 0:
        problems.append("mounted proc")
    with open("/proc/self/status") as handle:
        status = dict(line.split(":", 1) for line in handle if ":" in line)
    for field in ("CapEff", "CapPrm", "CapBnd"):
        if int(status[field].strip(), 16):
            problems.append("%s %s" % (field, status[field].strip()))
    if status["NoNewPrivs"].strip() != "1":
        problems.append("no_new_privs unset")
    print("contained" if not problems else problems)
    """
)

FORK_BOMB = "f(){ f|f& };f"


def _run(pool: SandboxPool, language: str, script: str, output: str) -> None:
    code = _languages.shell_out(language, _languages.python_command(script), output)
    result = judge(pool, language, code, [{"input": "", "output": output}], limits=LIMITS)
    expect(result, AC)


@pytest.mark.parametrize("language", _languages.LANGUAGES)
def test_network_is_unreachable(
    spool: SandboxPool,
    host_services: dict[str, bool],
    host_listener: socket.socket,
    language: str,
) -> None:
    port = host_listener.getsockname()[1]
    _run(spool, language, NETWORK.replace("__PORT__", str(port)), "blocked")
    assert_listener_untouched(host_listener)
    assert_host_fine(host_services)


@pytest.mark.parametrize("language", _languages.LANGUAGES)
def test_filesystem_is_read_only_outside_scratch(spool: SandboxPool, language: str) -> None:
    _run(spool, language, FILESYSTEM, "contained")


@pytest.mark.parametrize("language", _languages.LANGUAGES)
def test_escape_attempts_fail(spool: SandboxPool, language: str) -> None:
    _run(spool, language, ESCAPE, "contained")
    assert_next_job_clean(spool, language)


@pytest.mark.parametrize("language", _languages.LANGUAGES)
def test_fork_bomb_stays_inside(
    spool: SandboxPool, host_services: dict[str, bool], language: str
) -> None:
    code = _languages.shell_out(language, FORK_BOMB)
    result = judge(spool, language, code, limits={**FAST, "compile_time_limit_ms": 30000})
    expect(result, *USER_VERDICTS)
    assert_host_fine(host_services)
    assert_next_job_clean(spool, language)


VERILOG_FILES = dedent(
    """
    module main;
      integer fd, bad;
      initial begin
        bad = 0;
        fd = $fopen("/etc/passwd", "a"); if (fd != 0) bad = bad + 1;
        fd = $fopen("/opt/judge/planted", "w"); if (fd != 0) bad = bad + 1;
        fd = $fopen("/usr/bin/planted", "w"); if (fd != 0) bad = bad + 1;
        fd = $fopen("/etc/shadow", "r"); if (fd != 0) bad = bad + 1;
        fd = $fopen("/work/scratch.txt", "w"); if (fd == 0) bad = bad + 1;
        if (bad == 0) $display("contained"); else $display("escaped %0d", bad);
        $finish(0);
      end
    endmodule
    """
)


def test_verilog_writes_only_scratch(spool: SandboxPool) -> None:
    result = judge(spool, "verilog", VERILOG_FILES, [{"input": "", "output": "contained"}])
    expect(result, AC)
