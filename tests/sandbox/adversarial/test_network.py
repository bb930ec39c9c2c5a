"""Sandboxes have no network.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import socket

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    assert_host_fine,
    assert_listener_untouched,
    dedent,
    expect,
    judge,
)

pytestmark = pytest.mark.integration


# ==== network ===============================================================================
def test_python_network_is_unreachable(
    spool: SandboxPool, host_services: dict[str, bool], host_listener: socket.socket
) -> None:
    port = host_listener.getsockname()[1]
    code = dedent(
        """
        import os, socket, sys
        problems = []
        ports = [6379, 5432, int(sys.stdin.read())]
        for port in ports:
            for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
                try:
                    with socket.socket(family, socket.SOCK_STREAM) as connection:
                        connection.settimeout(1)
                        connection.connect((host, port))
                        problems.append("connected to %s:%d" % (host, port))
                except OSError:
                    pass
        names = [name for _, name in socket.if_nameindex()]
        if names != ["lo"]:
            problems.append("interfaces %s" % names)
        if sorted(os.listdir("/sys/class/net")) != ["lo"]:
            problems.append("/sys/class/net %s" % os.listdir("/sys/class/net"))
        with open("/proc/net/route") as handle:
            if handle.read().splitlines()[1:]:
                problems.append("an IPv4 route exists")
        print("blocked" if not problems else problems)
        """
    )
    result = judge(spool, "python", code, [{"input": str(port), "output": "blocked"}])
    expect(result, AC)
    assert_listener_untouched(host_listener)
    assert_host_fine(host_services)


def test_c_network_is_unreachable(
    spool: SandboxPool, host_services: dict[str, bool], host_listener: socket.socket
) -> None:
    port = host_listener.getsockname()[1]
    code = dedent(
        """
        #include <arpa/inet.h>
        #include <stdio.h>
        #include <sys/socket.h>
        #include <unistd.h>
        static int reach(int port) {
          int fd = socket(AF_INET, SOCK_STREAM, 0);
          struct sockaddr_in address = {0};
          address.sin_family = AF_INET;
          address.sin_port = htons(port);
          inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
          int connected = connect(fd, (struct sockaddr *)&address, sizeof address) == 0;
          close(fd);
          return connected;
        }
        int main(void) {
          int port = 0;
          if (scanf("%d", &port) != 1) return 2;
          puts(reach(6379) || reach(5432) || reach(port) ? "reached" : "blocked");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": str(port), "output": "blocked"}])
    expect(result, AC)
    assert_listener_untouched(host_listener)
    assert_host_fine(host_services)


def test_javascript_network_is_unreachable(
    spool: SandboxPool, host_services: dict[str, bool], host_listener: socket.socket
) -> None:
    port = host_listener.getsockname()[1]
    code = dedent(
        """
        const net = require('net');
        const port = parseInt(require('fs').readFileSync(0, 'utf8'), 10);
        let pending = 3;
        let reached = false;
        const done = () => { if (--pending === 0) console.log(reached ? 'reached' : 'blocked'); };
        for (const target of [6379, 5432, port]) {
          const connection = net.connect({ host: '127.0.0.1', port: target });
          connection.setTimeout(1000);
          connection.on('connect', () => { reached = true; connection.destroy(); done(); });
          connection.on('error', done);
          connection.on('timeout', () => { connection.destroy(); done(); });
        }
        """
    )
    result = judge(
        spool,
        "javascript",
        code,
        [{"input": str(port), "output": "blocked"}],
        limits={"time_limit_ms": 2000},
    )
    expect(result, AC)
    assert_listener_untouched(host_listener)
    assert_host_fine(host_services)
