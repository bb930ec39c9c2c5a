"""The agent's two long-lived helpers: the C spawner (every image) and the Python zygote.

Both speak the same protocol over a SOCK_SEQPACKET socket: a request with file descriptors
attached, then ``{"op": "spawned", "pid": P}`` and, when the program ends,
``{"op": "exit", "pid": P, "status": S, "cpu_ms": F, "maxrss_kb": K}``. A user program can
kill a helper (same uid), never steer it (helpers are not dumpable); the agent then starts a
new one. Standard library only: this module runs inside the sandbox.
"""

from __future__ import annotations

import array
import json
import os
import select
import socket
from typing import Any

from judge_service.sandbox.agent import procfs
from judge_service.sandbox.agent.procfs import process_state

MESSAGE_LIMIT = 1 << 16


class HelperError(RuntimeError):
    """A helper could not be started or refused a request (an infrastructure failure)."""


class Helper:
    def __init__(self, name: str, argv: list[str], bundle: bytes = b"") -> None:
        self.name = name
        self.argv = argv
        self.bundle = bundle
        self.pid = 0
        self.channel: socket.socket | None = None

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                os.dup2(theirs.fileno(), 0)
                null = os.open("/dev/null", os.O_WRONLY)
                os.dup2(null, 1)
                os.closerange(3, 65536)
                os.execve(self.argv[0], self.argv, {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
            finally:
                os._exit(127)
        theirs.close()
        self.channel, self.pid = ours, pid
        if self.bundle:
            ours.sendall(self.bundle)
        ready = self.receive(timeout=30.0)
        if not ready or ready.get("op") != "ready":
            self.stop()
            raise HelperError(f"the {self.name} did not start")

    def ensure_started(self) -> socket.socket:
        if self.channel is None:
            self.start()
        assert self.channel is not None
        return self.channel

    def send(self, payload: bytes, fds: list[int]) -> None:
        channel = self.ensure_started()
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds).tobytes())]
        try:
            channel.sendmsg([payload], rights if fds else [])
        except OSError as error:
            self.stop()
            raise HelperError(f"the {self.name} is gone: {error}") from error

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next message, or None on timeout or when the helper died."""
        if self.channel is None or not select.select([self.channel], [], [], timeout)[0]:
            return None
        try:
            data = self.channel.recv(MESSAGE_LIMIT)
        except OSError:
            return None
        if not data:
            return None
        message = json.loads(data)
        return message if isinstance(message, dict) else None

    def spawn(self, payload: bytes, fds: list[int]) -> int:
        self.send(payload, fds)
        answer = self.receive(timeout=10.0)
        if answer is None:
            self.stop()
            raise HelperError(f"the {self.name} did not answer a spawn request")
        if answer.get("op") != "spawned":
            raise HelperError(str(answer.get("message", answer)))
        return int(answer["pid"])

    def healthy(self, ping: bytes, nonce: str) -> bool:
        """Alive, not stopped, and answering: a helper that fails this is replaced."""
        if self.channel is None:
            return False
        if process_state(self.pid) not in ("S", "R"):
            return False
        try:
            self.channel.send(ping)
        except OSError:
            return False
        answer = self.receive(timeout=2.0)
        return bool(answer and answer.get("nonce") == nonce)

    def stop(self) -> None:
        if self.channel is not None:
            self.channel.close()
        if self.pid:
            procfs.kill_and_reap(self.pid)
        self.channel, self.pid = None, 0


def spawner_request(argv: list[str], env: dict[str, str], rlimits: dict[str, int]) -> bytes:
    fields = ["spawn", rlimits["cpu_s"], rlimits["fsize"], rlimits["stack"], rlimits["nofile"]]
    fields += [len(argv), *argv, len(env), *(f"{key}={value}" for key, value in env.items())]
    return b"\0".join(str(field).encode() for field in fields) + b"\0"


def spawner_ping(nonce: str) -> bytes:
    return b"ping\0" + nonce.encode() + b"\0"
