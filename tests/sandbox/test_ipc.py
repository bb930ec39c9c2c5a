"""The agent's shared-memory accounting (judge_service/sandbox/agent/ipc.py), on the host."""

from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judge_service.sandbox.agent import ipc

IPC_PRIVATE, IPC_CREAT = 0, 0o1000


def test_the_cgroup_count_less_the_file_mounts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stats = tmp_path / "memory.stat"
    stats.write_text("cache 4096\nrss 8192\nshmem 10485760\nmapped_file 0\n")
    monkeypatch.setattr(ipc, "CGROUP_MEMORY_STATS", ("/nonexistent/memory.stat", str(stats)))
    monkeypatch.setattr(ipc, "FILE_MOUNTS", ())
    assert ipc.shared_kb() == 10240
    monkeypatch.setattr(ipc, "FILE_MOUNTS", ("/nonexistent",))  # unreadable: counts nothing
    assert ipc.shared_kb() == 10240


def test_without_a_cgroup_a_detached_segment_counts_its_resident_pages(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ipc, "CGROUP_MEMORY_STATS", ("/nonexistent/memory.stat",))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    before = ipc.shared_kb()
    shmid = libc.shmget(IPC_PRIVATE, 8 << 20, IPC_CREAT | 0o600)
    assert shmid >= 0, ctypes.get_errno()
    try:
        address = libc.shmat(shmid, None, 0)
        ctypes.memset(address, 1, 8 << 20)
        libc.shmdt(address)
        assert ipc.shared_kb() - before >= 8 << 10
    finally:
        libc.shmctl(shmid, ipc.IPC_RMID, None)


def test_program_output_and_mapped_pages_are_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    charged = [100]
    monkeypatch.setattr(ipc, "shared_kb", lambda stats=None: charged[0])
    monkeypatch.setattr(ipc, "kernel_kb", lambda: 500)
    output = os.memfd_create("stdout")
    try:
        shared = ipc.MemoryBeyondRss([output])
        os.write(output, b"o" * (1 << 20))
        charged[0] += 1024  # the output's pages, charged like any shared memory
        assert shared.beyond_rss_kb([]) == 0
        charged[0] += 4096  # a segment the program filled
        assert shared.beyond_rss_kb([]) == 4096
        monkeypatch.setattr(ipc, "mapped_kb", lambda pids: 1024 * len(pids))
        assert shared.beyond_rss_kb([1]) == 3072  # a quarter of it mapped: in the RSS already
        assert shared.beyond_rss_kb([1, 2, 3, 4, 5]) == 0
    finally:
        os.close(output)


def test_mapped_shared_memory_of_a_process() -> None:
    area = mmap.mmap(-1, 4 << 20, flags=mmap.MAP_SHARED)
    before = ipc.mapped_kb([os.getpid()])
    area.write(b"m" * (4 << 20))
    assert ipc.mapped_kb([os.getpid()]) - before >= 4 << 10
    assert ipc.mapped_kb([0]) == 0  # no such process
    area.close()


# In a private IPC namespace of its own (the host's holds other programs' objects): more
# objects than one read of /proc/sysvipc/* returns, then the agent's removal.
MANY_OBJECTS = """
import ctypes, os, sys
from judge_service.sandbox.agent import ipc
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x08000000) != 0:  # CLONE_NEWIPC
    print("skip: unshare failed, errno", ctypes.get_errno())
    raise SystemExit(0)
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
for _ in range(int(sys.argv[1])):
    if min(libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600),
           libc.semget(IPC_PRIVATE, 1, IPC_CREAT | 0o600),
           libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)) < 0:
        raise SystemExit("creating failed: errno %d" % ctypes.get_errno())
tables = {kind: len(ipc._table(kind)) for kind in ("shm", "msg", "sem")}
size = min(len(open("/proc/sysvipc/" + kind, "rb").read()) for kind in tables)
ipc.remove_sysv_objects(libc)
left = {kind: len(ipc._table(kind)) for kind in tables}
print(tables["shm"], tables["msg"], tables["sem"], size, sum(left.values()))
"""


@pytest.mark.parametrize("count", [1, 1000])
def test_every_sysv_object_is_removed_however_long_the_tables(count: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", MANY_OBJECTS, str(count)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=True,
    )
    if done.stdout.startswith("skip"):
        pytest.skip(f"no private IPC namespace here: {done.stdout}")
    shm, msg, sem, smallest_table, left = map(int, done.stdout.split())
    assert (shm, msg, sem) == (count, count, count)
    if count > 1:
        assert smallest_table > 1 << 16  # longer than one read of procfs.read_file
    assert left == 0
