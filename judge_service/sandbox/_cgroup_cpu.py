"""CPU from the kernel's cgroup files: the CPUs this process may use, and a container's CPU
time as the host sees it (for CPU slots: see ``_cpu_slots``)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity, bounded by its cgroup's CPU quota."""
    cpus = len(os.sched_getaffinity(0))
    quota = _cgroup_quota()
    return max(1, min(cpus, math.ceil(quota)) if quota is not None else cpus)


def _cgroup_quota() -> float | None:
    """CPUs' worth of the cgroup's quota (v2 ``cpu.max``, v1 CFS quota); None without one."""
    try:
        limit, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        pass
    for directory in ("/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"):
        try:
            quota_us = int(Path(directory, "cpu.cfs_quota_us").read_text())
            period_us = int(Path(directory, "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        return None if quota_us <= 0 else quota_us / period_us
    return None


CpuReader = Callable[[], float | None]
# Where a container's CPU time is under the host's cgroup root, by cgroup version and Docker's
# cgroup driver (its parent: ``docker`` or ``system.slice`` unless one is given), and its unit in
# seconds.
_CONTAINER_CPU = (
    ("cpuacct/{parent}/{id}/cpuacct.usage", 1e-9),
    ("cpu,cpuacct/{parent}/{id}/cpuacct.usage", 1e-9),
    ("cpuacct/{slice}/docker-{id}.scope/cpuacct.usage", 1e-9),
    ("{slice}/docker-{id}.scope/cpu.stat", 1e-6),
    ("{parent}/{id}/cpu.stat", 1e-6),
)


def container_cpu(
    container_id: str, cgroup_root: str = "/sys/fs/cgroup", cgroup_parent: str = ""
) -> CpuReader | None:
    """A reader of the container's CPU seconds from the host's cgroup files; None where this
    process cannot see them (a judge in a container of its own that has not mounted them)."""
    found = _cpu_file(container_id, cgroup_root, cgroup_parent)
    if found is None:
        return None
    path, unit = found
    return lambda: _read_cpu(path, unit)


def _cpu_file(container_id: str, cgroup_root: str, cgroup_parent: str) -> tuple[str, float] | None:
    parent = cgroup_parent.strip("/")
    names = {"id": container_id, "parent": parent or "docker", "slice": parent or "system.slice"}
    for pattern, unit in _CONTAINER_CPU:
        path = os.path.join(cgroup_root, pattern.format(**names))
        if container_id and os.path.exists(path):
            return path, unit
    return None


def _read_cpu(path: str, unit: float) -> float | None:
    try:
        text = Path(path).read_text()
        if text.startswith("usage_usec"):  # cgroup v2's cpu.stat
            return int(text.split()[1]) * unit
        return int(text) * unit
    except (OSError, ValueError, IndexError):  # the container is gone, or a torn read
        return None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def host_idle_s() -> float | None:
    """CPU seconds the host's CPUs have spent idle (or waiting for I/O), all of them together,
    since boot; None where /proc/stat cannot be read."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        return (int(fields[4]) + int(fields[5])) / _CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None
