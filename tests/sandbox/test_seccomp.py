"""The judge's own seccomp filter (judge_service/sandbox/agent/seccomp.py), on the host: a
process that installs it gets EPERM from every refused call and from the 32-bit ABIs, and
everything else as before. The sandboxes' side is tests/sandbox/adversarial/test_seccomp.py."""

from __future__ import annotations

import errno
import platform
import struct
import subprocess
import sys

import pytest

from judge_service.sandbox.agent import seccomp

pytestmark = pytest.mark.skipif(
    platform.machine() != "x86_64", reason="the filter is x86_64's (other machines: none)"
)

# In a child process: the filter stays with the process that installs it.
CHILD = """
import ctypes, errno, os, socket, sys
from judge_service.sandbox.agent import seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
seccomp.install(libc)
refused = []
for name, number in seccomp.REFUSED.items():
    buffer = ctypes.create_string_buffer(256)
    ctypes.set_errno(0)
    result = libc.syscall(number, 0, buffer, 0, 0, 0)
    if result == -1 and ctypes.get_errno() == errno.EPERM:
        refused.append(name)
# getpid (39) as a 32-bit x32 call: refused whole.
x32 = libc.syscall(seccomp.X32_SYSCALL_BIT | 39) == -1 and ctypes.get_errno() == errno.EPERM
families = []
for family in seccomp.REFUSED_FAMILIES.values():
    try:
        socket.socket(family, socket.SOCK_STREAM).close()
    except PermissionError:
        families.append(family)
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM):  # Unix sockets stay
    pass
print(sorted(refused) == sorted(seccomp.REFUSED), x32, libc.syscall(39) == os.getpid(),
      sorted(families) == sorted(seccomp.REFUSED_FAMILIES.values()))
"""


def test_the_refused_calls_get_eperm_and_the_rest_work() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"] * 4, done.stdout + done.stderr


def test_every_jump_stays_in_the_program_and_every_exit_allows_or_refuses() -> None:
    code = seccomp.program()
    instructions = [struct.unpack("HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    for index, (operation, if_true, if_false, operand) in enumerate(instructions):
        if operation in (0x15, 0x35):  # conditional jumps
            assert index + 1 + max(if_true, if_false) < len(instructions), index
        if operation == 0x06:  # return
            assert operand in (0x7FFF0000, 0x00050000 | errno.EPERM), hex(operand)
    assert instructions[-1][3] == 0x00050000 | errno.EPERM  # the refusal, last
