"""What the timing driver undoes between two timed runs, so that no run leaves state for the next.

A solution can keep state between calls in its process (a memo dict, ``functools.lru_cache``, a
function attribute, ``sys.modules``, builtins) or beside it (a file in /tmp or /dev/shm, SysV
shared memory, a process left running that answers over a socket). The driver
(:mod:`._timing`) forks a process for every timed run, so the first kind dies with it; after
each run it calls :func:`reset`, which kills the processes the run left behind, empties the
scratch directories and removes SysV IPC objects. The solution's module is loaded once, in the
driver, before the forks: what loading it leaves that every fork would share (a thread, an open
file or pipe, a shared memory mapping) is a channel between runs, which :func:`footprint`
finds.

Standard library only: the driver is sent to the sandbox as source, with this module's source
ahead of its own.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal

_PR_SET_CHILD_SUBREAPER = 36
_IPC_RMID = 0


def become_subreaper() -> None:
    """Orphans of the timed runs are re-parented to this process, not to the sandbox's init, so
    that :func:`sweep` finds every process a run left behind (a double fork escapes nothing)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _children() -> list[int]:
    me = str(os.getpid())
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            found.append(int(name))
    return found


def sweep() -> None:
    """Kill and reap this process's children; theirs are re-parented here and go next."""
    for _ in range(100):
        pids = _children()
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in pids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def wipe(directories: list[str]) -> str:
    """Empty the directories; what could not be removed, '' when they are empty."""
    left = []
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            try:
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
            except (OSError, RecursionError):
                left.append(path)
    return ", ".join(left)[:200]


def remove_sysv_ipc() -> None:
    """Remove every SysV shared memory segment, message queue and semaphore set (the sandbox
    has its own IPC namespace: they are the program's)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                rows = table.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            if kind == "sem":
                libc.semctl(ipc_id, 0, _IPC_RMID)
            elif kind == "shm":
                libc.shmctl(ipc_id, _IPC_RMID, None)
            else:
                libc.msgctl(ipc_id, _IPC_RMID, None)


def reset(scratch: list[str], clear_ipc: bool) -> str:
    """Undo what a timed run left outside its process; what could not be, '' when all was."""
    sweep()
    if clear_ipc:
        remove_sysv_ipc()
    left = wipe(scratch)
    return f"files it left could not be removed: {left}" if left else ""


def footprint() -> tuple[int, int, int]:
    """This process's threads, open descriptors and shared writable memory mappings."""
    threads = len(os.listdir("/proc/self/task"))
    files = len(os.listdir("/proc/self/fd"))
    with open("/proc/self/maps") as maps:
        # Permissions read like "rw-s": write and shared at positions 1 and 3.
        shared = sum(1 for line in maps if line.split()[1][1::2] == "ws")
    return threads, files, shared


def kept(before: tuple[int, int, int], after: tuple[int, int, int]) -> str:
    """What appeared between two footprints, in words; '' when nothing did."""
    names = ("threads", "open files", "shared memory mappings")
    return ", ".join(
        f"{now - then} {name}"
        for name, then, now in zip(names, before, after, strict=True)
        if now > then
    )
