"""The judge's seccomp filter in the sandboxes: every refused call is EPERM to a judged program,
in a compiled language and through an interpreter (and io_uring, which Docker's default profile
allows, most of all). judge_service/sandbox/agent/seccomp.py says why each is refused."""

from __future__ import annotations

import pytest

from judge_service.sandbox.agent import seccomp
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import AC, describe, expect, judge

pytestmark = pytest.mark.integration

# Each call with harmless arguments; what matters is whether the kernel gets to look at them.
C_CALLS = (
    "#include <errno.h>\n#include <stdio.h>\n#include <unistd.h>\n"
    "int main(void) {\n    static char buffer[4096];\n"
    "    const char *names[] = {%s};\n    const long numbers[] = {%s};\n"
    "    for (unsigned i = 0; i < sizeof numbers / sizeof *numbers; i++) {\n"
    "        errno = 0;\n"
    "        long result = syscall(numbers[i], 1, buffer, 0, 0, 0);\n"
    '        printf("%%s %%s\\n", names[i], result == -1 && errno == EPERM ? "EPERM" : "ran");\n'
    "    }\n    return 0;\n}\n"
)

PYTHON_IO_URING = (
    "import ctypes, errno\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "params = ctypes.create_string_buffer(120)\n"
    "result = libc.syscall(425, 8, params)\n"
    "print('io_uring_setup', 'EPERM' if result == -1 and ctypes.get_errno() == errno.EPERM "
    "else 'ran')\n"
)


def test_every_refused_call_is_eperm_to_a_compiled_program(spool: SandboxPool) -> None:
    names = ", ".join(f'"{name}"' for name in seccomp.REFUSED)
    numbers = ", ".join(str(number) for number in seccomp.REFUSED.values())
    expected = "\n".join(f"{name} EPERM" for name in seccomp.REFUSED)
    result = judge(spool, "c", C_CALLS % (names, numbers), [{"input": "", "output": expected}])
    expect(result, AC)


def test_io_uring_is_eperm_to_an_interpreted_program(spool: SandboxPool) -> None:
    result = judge(
        spool, "python", PYTHON_IO_URING, [{"input": "", "output": "io_uring_setup EPERM"}]
    )
    assert result.verdict is AC, describe(result)


C_SOCKETS = (
    "#include <errno.h>\n#include <stdio.h>\n#include <sys/socket.h>\n"
    "int main(void) {\n"
    "    int inet = socket(AF_INET, SOCK_STREAM, 0), inet_errno = errno;\n"
    "    int inet6 = socket(AF_INET6, SOCK_DGRAM, 0), inet6_errno = errno;\n"
    "    int unix_socket = socket(AF_UNIX, SOCK_STREAM, 0);\n"
    '    printf("%s %s %s\\n", inet == -1 && inet_errno == EPERM ? "EPERM" : "ran",\n'
    '           inet6 == -1 && inet6_errno == EPERM ? "EPERM" : "ran",\n'
    '           unix_socket >= 0 ? "unix" : "no-unix");\n'
    "    return 0;\n}\n"
)


def test_ip_sockets_are_refused_and_unix_sockets_stay(spool: SandboxPool) -> None:
    result = judge(spool, "c", C_SOCKETS, [{"input": "", "output": "EPERM EPERM unix"}])
    assert result.verdict is AC, describe(result)
