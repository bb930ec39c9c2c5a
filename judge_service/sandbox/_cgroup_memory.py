"""The memory every sandbox on the host may take together, capped by the kernel.

Every sandbox container is created under one parent cgroup (``sandbox_cgroup_parent``) whose
memory cap (``sandbox_memory_total_mb``, by default 80 % of the host's memory) the kernel holds
all of them to, kernel memory included: at any pool size, and whatever the programs do between
the agent's polls, the sandboxes together never take the host's memory. One sandbox's own cap
(``sandbox_memory_mb``) and the agent's accounting still stop each program at its limit; the
parent's cap is reached only when many programs near their limits at once. Then the kernel's
OOM killer takes the largest program (every program runs at ``oom_score_adj`` 1000, the agents
below), whatever its answer: a correct one beside others holding memory, or a wrong one that made
itself the largest. That run cannot tell them apart, so the test (marked ``limit:
"host_memory"``, never cached) is judged again alone on the host (``_memory_gate``), after idle
sandboxes are closed until it fits under the cap, and that verdict stands. The
first run's verdict is provisional: the agent reads its sandbox's memory peak (which the pool
resets after every job, cgroup v1): a sandbox that stayed below its own cap and within the
test's due was stopped for the others' memory (SE, which the judging alone replaces); otherwise
its own verdict (RE, or MLE past half its limit). A job whose tests' memory limit cannot fit in
the cap is refused (``InvalidJobError``): alone, it would still be stopped.

Docker creates the parent under each controller; the cap is written here, as root, before the
first sandbox starts: for Docker's cgroupfs driver on cgroup v1 (``memory.limit_in_bytes``)
and v2 (``memory.max``). Docker's systemd driver owns its slices, so there the cap is the
operator's to set (the status says how); a process that cannot write the host's cgroup files
(not root, or a read-only mount) reports why in the status, and the sandboxes run uncapped
together.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

# The share of the host's memory the sandboxes may take together by default: the rest is the
# judge's own processes, the database and broker beside it, and the kernel's.
DEFAULT_SHARE = 0.8


def host_memory_mb() -> int:
    """The host's memory (MemTotal)."""
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise OSError("no MemTotal in /proc/meminfo")


def default_total_mb() -> int:
    return int(host_memory_mb() * DEFAULT_SHARE)


# v1's high-water marks, which a 0 resets. (v2's memory.peak resets only for the file
# descriptor written to, never for the agent's reads: there a sandbox once at its cap keeps
# reading so, and its later OOM-killed programs keep their own verdicts.)
_PEAK_RESETS = ("memory.max_usage_in_bytes", "memory.memsw.max_usage_in_bytes")


@dataclass(frozen=True)
class SandboxesCgroup:
    """The parent cgroup every sandbox is created under, and the cap it holds them to."""

    parent: str
    """What Docker is given as ``cgroup_parent``; empty: Docker's own parent, no common cap."""
    cap_mb: int | None
    """The cap the kernel holds every sandbox to together; None where it could not be set."""
    reason: str = ""
    """Why there is no cap."""
    memory_dir: str = ""
    """The parent's memory cgroup directory as this process sees it, to read its usage."""

    def usage_mb(self) -> int | None:
        for name in ("memory.current", "memory.usage_in_bytes"):
            try:
                return int(Path(self.memory_dir, name).read_text()) >> 20
            except (OSError, ValueError):
                continue
        return None

    def reset_peak(self, container_id: str) -> bool:
        """Start the sandbox's memory peak afresh (cgroup v1); False where it could not be."""
        if not self.memory_dir or not container_id:
            return False
        reset = False
        for name in _PEAK_RESETS:  # after every job: os calls, not pathlib's objects
            try:
                fd = os.open(f"{self.memory_dir}/{container_id}/{name}", os.O_WRONLY)
            except OSError:
                continue
            try:
                os.write(fd, b"0")
                reset = True
            except OSError:
                pass
            finally:
                os.close(fd)
        return reset

    def status(self) -> dict[str, object]:
        status: dict[str, object] = {"cgroup_parent": self.parent, "cap_mb": self.cap_mb}
        if self.cap_mb is not None:
            status["used_mb"] = self.usage_mb()
        if self.reason:
            status["reason"] = self.reason
        return status


def prepare(
    name: str, total_mb: int, cgroup_root: str, driver: str, version: str
) -> SandboxesCgroup:
    """The parent cgroup ``name`` with its memory cap written (``cgroup_root``: where this
    process sees the host's cgroup files; ``driver`` and ``version``: Docker's cgroup driver
    and version, as ``docker info`` says them)."""
    if not name:
        return SandboxesCgroup("", None, "no parent cgroup is set (sandbox_cgroup_parent)")
    if driver == "systemd":
        slice_name = f"{name}.slice"
        return SandboxesCgroup(
            slice_name,
            None,
            "Docker's systemd cgroup driver owns the slice: cap it with `systemctl "
            f"set-property {slice_name} MemoryMax={total_mb}M`",
        )
    if version == "2":
        directory = Path(cgroup_root, name)
        limits = [("memory.max", total_mb << 20), ("memory.swap.max", 0)]
    else:
        directory = Path(cgroup_root, "memory", name)
        # With swap accounting, memory and swap together: no more than the memory.
        limits = [
            ("memory.limit_in_bytes", total_mb << 20),
            ("memory.memsw.limit_in_bytes", total_mb << 20),
        ]
    try:
        if version == "2":
            _enable_memory_controller(Path(cgroup_root))
        directory.mkdir(exist_ok=True)
        if not (directory / limits[0][0]).exists():  # a directory, not a memory cgroup
            raise OSError(errno.ENOTSUP, f"{directory} is not a memory cgroup")
        _hierarchical(directory)
        _write_limits(directory, limits)
    except OSError as error:
        why = error.strerror or str(error)
        in_force = _cap_in_force_mb(directory / limits[0][0])
        if in_force is not None:  # lowered below what the sandboxes hold now (EBUSY)
            return SandboxesCgroup(
                f"/{name}",
                in_force,
                f"cannot set the sandboxes' common cap to {total_mb} MB ({why}): "
                f"{in_force} MB stays in force",
                str(directory),
            )
        return SandboxesCgroup(
            f"/{name}",
            None,
            f"cannot cap the sandboxes' memory together at {directory}: {why} (the judge "
            "must run as root and see the host's cgroup files writable at host_cgroup_dir)",
        )
    # Absolute: runc places a relative parent under dockerd's own cgroup in each hierarchy
    # (a dockerd in a memory cgroup of its own would put the sandboxes beside the cap).
    return SandboxesCgroup(f"/{name}", total_mb, memory_dir=str(directory))


def _hierarchical(directory: Path) -> None:
    """A v1 parent caps its children only in hierarchical mode (always, since Linux 5.11)."""
    flag = directory / "memory.use_hierarchy"
    if flag.exists() and flag.read_text().strip() == "0":
        flag.write_text("1")  # refused once it has children: then the cap would not hold
        if flag.read_text().strip() == "0":
            raise OSError(errno.ENOTSUP, f"{directory} is not hierarchical (memory.use_hierarchy)")


def _cap_in_force_mb(limit_file: Path) -> int | None:
    try:
        text = limit_file.read_text().strip()
    except OSError:
        return None
    if not text.isdigit() or int(text) >= 1 << 60:  # "max", or v1's "no limit"
        return None
    return int(text) >> 20


def _enable_memory_controller(root: Path) -> None:
    control = root / "cgroup.subtree_control"
    if "memory" not in control.read_text().split():
        control.write_text("+memory")


def _write_limits(directory: Path, limits: list[tuple[str, int]]) -> None:
    """Each limit that the kernel offers, in an order it accepts: v1 refuses a memory limit
    above the memory-and-swap one (EINVAL), so then the other goes first."""
    present = [(directory / name, str(value)) for name, value in limits]
    present = [(path, value) for path, value in present if path.exists()]
    try:
        for path, value in present:
            path.write_text(value)
    except OSError as error:
        if error.errno != errno.EINVAL:
            raise
        for path, value in reversed(present):
            path.write_text(value)
