"""The judge's own seccomp filter, installed by the agent before it starts anything, so every
process of the sandbox (the spawner, the zygote, the warm javac and every judged program)
carries it. Standard library only (sent to the agent).

It comes on top of Docker's default profile, which stays (seccomp filters stack: a call must
pass both), and refuses with EPERM what a judged program never needs and Docker's default lets
an unprivileged container do:

- ``io_uring_setup``, ``io_uring_enter``, ``io_uring_register``: an asynchronous I/O interface
  whose kernel workers run outside the process's CPU accounting and whose bugs have been a
  steady source of privilege escalations (Google turned it off on its servers, ChromeOS and
  Android). Runtimes that try it (libuv in Node) fall back to threads when refused.
- ``ptrace``, ``process_vm_readv``, ``process_vm_writev``, ``kcmp``, ``pidfd_getfd``: reading,
  writing or comparing another process's memory and descriptors. The judge's helpers (the
  zygote, the harness runners) are not dumpable, so these fail against them already; refused,
  the whole family is gone, and no program of a test can reach another's.
- ``userfaultfd``: lets a program stall the kernel's copies from user memory at will, the usual
  lever of kernel race exploits (Docker's default refuses it too; kept here so the guarantee
  does not rest on the daemon's version).
- ``perf_event_open``, ``bpf``: the kernel's profiling and in-kernel programs (needing
  capabilities in Docker's default; refused here whatever a host's sysctls allow).
- ``add_key``, ``request_key``, ``keyctl``: the kernel keyring, whose quotas are per user: the
  sandboxes share one uid, so one program could exhaust the others' (refused by Docker's default
  too).
- ``socket`` for IPv4 and IPv6 (:data:`REFUSED_FAMILIES`): a sandbox has no network but its
  loopback, and TCP and UDP buffers are kernel memory a cgroup v1 host charges to no sandbox.

The 32-bit system call ABIs (i386's ``int 0x80`` and x32) are refused whole: a judged 64-bit
program has no use for them, and the numbers above differ there. Only x86_64 is filtered; on
other machines :func:`install` installs nothing (Docker's default profile alone holds there).
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl).
REFUSED: dict[str, int] = {
    "ptrace": 101,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "perf_event_open": 298,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "bpf": 321,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "pidfd_getfd": 438,
}

# Classic BPF, as seccomp runs it over struct seccomp_data {nr, arch, ip, args}.
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_NR_OFFSET, _ARCH_OFFSET, _ARG0_OFFSET = 0, 4, 16  # the first argument's low word (x86_64)
SOCKET = 41
# socket(2)'s families refused: a sandbox has no network, and Linux charges TCP and UDP buffers
# to no memory cgroup on v1 hosts (unless the cgroup has a TCP limit, which Docker no longer
# sets): 240 loopback connections left unread held 911 MB that no limit saw. Unix sockets stay.
REFUSED_FAMILIES = {"AF_INET": 2, "AF_INET6": 10}

# An instruction: (code, jump if true, jump if false, operand), jumps by label ("" = next).
_Step = tuple[int, str, str, int]


def _assemble(steps: list[tuple[str, _Step]]) -> bytes:
    """Classic BPF from labelled steps: each jump's label becomes its offset."""
    where = {label: index for index, (label, _) in enumerate(steps) if label}
    code = b""
    for index, (_, (operation, if_true, if_false, operand)) in enumerate(steps):
        true_offset = where[if_true] - index - 1 if if_true else 0
        false_offset = where[if_false] - index - 1 if if_false else 0
        code += struct.pack("HBBI", operation, true_offset, false_offset, operand)
    return code


def program() -> bytes:
    """The filter: other ABIs, the refused calls and IP sockets EPERM, everything else on to
    Docker's profile."""
    steps: list[tuple[str, _Step]] = [
        ("", (_LD_W_ABS, "", "", _ARCH_OFFSET)),
        ("", (_JEQ_K, "", "refuse", AUDIT_ARCH_X86_64)),
        ("", (_LD_W_ABS, "", "", _NR_OFFSET)),
        ("", (_JGE_K, "refuse", "", X32_SYSCALL_BIT)),
        ("", (_JEQ_K, "socket", "", SOCKET)),
    ]
    steps += [("", (_JEQ_K, "refuse", "", number)) for number in sorted(REFUSED.values())]
    steps.append(("", (_RET_K, "", "", _RET_ALLOW)))
    steps.append(("socket", (_LD_W_ABS, "", "", _ARG0_OFFSET)))
    families = sorted(REFUSED_FAMILIES.values())
    steps += [("", (_JEQ_K, "refuse", "", family)) for family in families]
    steps.append(("", (_RET_K, "", "", _RET_ALLOW)))
    steps.append(("refuse", (_RET_K, "", "", _RET_ERRNO | errno.EPERM)))
    return _assemble(steps)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(libc: ctypes.CDLL) -> None:
    """Install the filter on the calling process (inherited by every process it starts)."""
    if platform.machine() != "x86_64":
        return
    code = program()
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")
