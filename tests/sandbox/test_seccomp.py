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
import ctypes, errno, os, sys
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
print(sorted(refused) == sorted(seccomp.REFUSED), x32, libc.syscall(39) == os.getpid())
"""


def test_the_refused_calls_get_eperm_and_the_rest_work() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"], done.stdout + done.stderr


def test_every_jump_lands_on_the_refusal_or_falls_through() -> None:
    instructions = [
        struct.unpack("HBBI", chunk)
        for chunk in (seccomp.program()[i : i + 8] for i in range(0, len(seccomp.program()), 8))
    ]
    refusal = len(instructions) - 1
    assert instructions[refusal][3] == 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO | EPERM
    assert instructions[refusal - 1][3] == 0x7FFF0000  # SECCOMP_RET_ALLOW
    for index, (code, true_jump, false_jump, _) in enumerate(instructions):
        if code in (0x15, 0x35):  # conditional jumps
            targets = {index + 1 + true_jump, index + 1 + false_jump}
            assert targets <= {index + 1, refusal}, (index, targets)
