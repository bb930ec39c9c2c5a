"""The spawner: the trusted process that forks the candidate's process for every timed run.

The driver (:mod:`._program`) forks it first thing, before it reads its spec, so that its
memory holds neither the generator nor the seed nor the nonce; it keeps only standard error
and its channel to the driver. It is told the solution's source (and compiles it: compiling
runs none of it), then for each run receives the candidate's end of a fresh socket pair, forks
the candidate's process with it (which loads the solution and obeys :func:`._timing.serve`)
and, when the driver is done with the run, kills it and every process it left (the spawner is
their subreaper) and reaps them all. It never runs the solution's code and, like the driver,
is not dumpable and ignores catchable signals, so the candidate (same uid) can kill it, which
ends the measurement, but never read or steer it.

Part of the timing program, sent to the sandbox as source.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # in the sandbox their source precedes this module's (_driver.timing_program)
    from complexity_model.empirical._isolation import become_subreaper, sweep
    from complexity_model.empirical._timing import _describe, serve
    from complexity_model.empirical._wire import WireError, receive, send

PR_SET_DUMPABLE = 4
CATCHABLE_SIGNALS = [
    sig
    for sig in signal.valid_signals()
    if sig not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD)
]


def harden() -> None:
    """Not dumpable (the candidate cannot ptrace this process or open its /proc files) and
    deaf to the signals a process can ignore."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    for sig in CATCHABLE_SIGNALS:
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass


def start_spawner() -> tuple[socket.socket, int]:
    """Fork the spawner; the driver's end of its channel and its pid."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        ours.close()
        try:
            _spawner(theirs)
        finally:
            os._exit(0)
    theirs.close()
    return ours, pid


def _spawner(control: socket.socket) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the driver's spec
    os.dup2(null, 1)  # the driver's report
    keep = sorted({2, control.fileno()})
    os.closerange(3, keep[-1])
    os.closerange(keep[-1] + 1, 1 << 16)
    become_subreaper()
    header, _, _ = receive(control, 0)
    spec: dict[str, Any] = header[1]
    try:
        code = compile(spec["code"], "solution.py", "exec", dont_inherit=True)
    except BaseException as error:
        send(control, ["error", "compiling the solution: " + _describe(error)])
        return
    send(control, ["loaded"])
    child = 0
    while True:
        try:
            header, _, fd = receive(control, 0, with_fd=True)
        except WireError:
            sweep()
            return
        if header[0] == "spawn" and fd >= 0:
            child = os.fork()
            if child == 0:
                _candidate(control, fd, spec, code)
            os.close(fd)
            send(control, ["spawned", child])
        elif header[0] == "finish":
            send(control, ["finished", _finish(child)])
            child = 0
        else:
            sweep()
            return


def _finish(child: int) -> str:
    """Kill the run's processes and reap them; how the candidate's process had ended."""
    ended = ""
    if child:
        try:
            pid, status = os.waitpid(child, os.WNOHANG)
            if not pid:
                os.kill(child, signal.SIGKILL)
                pid, status = os.waitpid(child, 0)
            elif os.WIFSIGNALED(status):
                ended = f"the run was killed by signal {os.WTERMSIG(status)}"
            else:
                ended = f"the run ended (exit status {os.waitstatus_to_exitcode(status)})"
        except (ProcessLookupError, ChildProcessError):
            pass
    sweep()
    return ended


def _candidate(control: socket.socket, fd: int, spec: dict[str, Any], code: Any) -> None:
    """The forked candidate process (never returns)."""
    try:
        control.close()
        channel = socket.socket(fileno=fd)
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own /proc files are its own
        for sig in CATCHABLE_SIGNALS:
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        signal.signal(signal.SIGINT, signal.default_int_handler)
        serve(channel, spec, code)
    except BaseException:
        pass
    os._exit(0)
