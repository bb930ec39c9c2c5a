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
_NR_OFFSET, _ARCH_OFFSET = 0, 4


def _instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def program() -> bytes:
    """The filter: other ABIs and the refused calls EPERM, everything else on to Docker's."""
    refuse = _RET_ERRNO | errno.EPERM
    numbers = sorted(REFUSED.values())
    body = [
        _instruction(_LD_W_ABS, 0, 0, _ARCH_OFFSET),
        # Not x86_64: jump to the final refusal, past the number checks and the allow.
        _instruction(_JEQ_K, 0, len(numbers) + 3, AUDIT_ARCH_X86_64),
        _instruction(_LD_W_ABS, 0, 0, _NR_OFFSET),
        _instruction(_JGE_K, len(numbers) + 1, 0, X32_SYSCALL_BIT),
    ]
    for index, number in enumerate(numbers):
        # A match jumps to the refusal: over the rest of the list and the allow.
        body.append(_instruction(_JEQ_K, len(numbers) - index, 0, number))
    body.append(_instruction(_RET_K, 0, 0, _RET_ALLOW))
    body.append(_instruction(_RET_K, 0, 0, refuse))
    return b"".join(body)


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
