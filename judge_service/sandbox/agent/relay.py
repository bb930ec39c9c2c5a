"""The zygote's side of a planned assert test's calls (see ``zygote._run_calls``).

The program's process makes the calls the plan lists and answers each with a line; the
expected values stay in the agent. The zygote hands the calls over one at a time, copying
each answer into the result before the next call, through two pipes; the program never holds
the result descriptor.

Standard library only: this module is sent into the sandboxes with the zygote.
"""

from __future__ import annotations

import os
import select
import signal
from typing import Any

CHILD_FDS = ("stdin", "stdout", "stderr", "result", "source", "tests")


class CallFeeder:
    """Hands a planned test's calls to the program (see ``_run_calls``) one at a time.

    Call ``j`` goes to the program only once the zygote has copied the answers to the calls
    before it into the result, where they can no longer be changed: as with the runner, a
    program never reads a later call's arguments (which may tell an earlier call's expected
    value: ``f(11) == 13``, then ``f(13)``) before it has committed to its own answers. The
    zygote holds the result descriptor; the program only has the two pipes.
    """

    def __init__(self, request: dict[str, Any], fds: list[int]) -> None:
        named = dict(zip(CHILD_FDS, fds, strict=False))
        self.result_fd, self.tests_fd = named["result"], named["tests"]
        self.token = request["token"].encode()
        self.limit = int(request["answers_limit"])
        self.calls_in, self.calls_out = os.pipe()
        # Calls handed over wait here for room in the pipe: a blocking write of more calls than
        # the pipe holds, while the program blocked on writing answers this process was not
        # reading, held an honest program to the wall clock (TLE).
        os.set_blocking(self.calls_out, False)
        self.pending = bytearray()  # deleting from its front moves no bytes
        self.closing = False
        # The answers went past the limit (SIGXFSZ sent): a program that ignores it ends by
        # exiting, sleeping or spinning, but the output is what stopped it (OLE).
        self.over_limit = False
        self.answers_in, self.answers_out = os.pipe()
        self.child_fds = list(fds)
        self.child_fds[CHILD_FDS.index("result")] = self.answers_out
        self.child_fds[CHILD_FDS.index("tests")] = self.calls_in

    def program_ended(self) -> None:
        # Open until the program has ended: closed before, a program still writing an answer
        # past the limit got SIGPIPE as well as the SIGXFSZ sent to it, and the kernel delivers
        # the lower number first (RE or OLE by a race).
        os.close(self.answers_in)

    def close_after_fork(self) -> list[int]:
        """Our copies of what only the program uses, and the descriptors we keep aside."""
        others = [fd for fd in self.child_fds if fd not in (self.answers_out, self.calls_in)]
        return [*others, self.answers_out, self.calls_in]

    def feed(self, pid: int) -> None:
        exited = -1
        try:
            calls = [call for call in read_all(self.tests_fd).split(b"\n") if call]
            exited = os.pidfd_open(pid)
            if self._copy_answers(exited, calls) > self.limit:
                self.over_limit = True
                os.kill(pid, signal.SIGXFSZ)  # as the file-size limit would have
                self.pending.clear()
                self._send([], last=True)
                self._discard_until(exited)
        except OSError:
            pass
        finally:
            for fd in (self.result_fd, self.calls_out, exited):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _discard_until(self, exited: int) -> None:
        """Reads and drops what a program past the limit still writes until it has ended (it
        gets no more calls): one that ignores SIGXFSZ would otherwise block on a full pipe,
        or wait for a call, until the wall clock."""
        while True:
            readable = select.select([self.answers_in, exited], [], [])[0]
            if exited in readable or not os.read(self.answers_in, 1 << 16):
                return

    def _copy_answers(self, exited: int, calls: list[bytes]) -> int:
        written = os.write(self.result_fd, self.token + b"\n")
        lines = released = 0
        while True:
            waiting = [self.calls_out] if self.pending else []
            readable, writable, _ = select.select([self.answers_in, exited], waiting, [])
            if writable:
                self._flush()
            if not readable:
                continue
            data = os.read(self.answers_in, 1 << 16) if self.answers_in in readable else b""
            if not data:
                return written
            if written + len(data) > self.limit:
                return written + len(data)
            written += os.write(self.result_fd, data)
            lines += data.count(b"\n")
            answered = lines - 1  # the first line says the program is ready
            end = min(answered + 1, len(calls))
            if lines and end > released:
                self._send(calls[released:end], last=end == len(calls))
                released = end
            elif lines and not calls:
                self._send([], last=True)

    def _send(self, calls: list[bytes], last: bool) -> None:
        if self.calls_out < 0:
            return
        if calls:
            self.pending += b"\n".join(calls) + b"\n"
        self.closing = self.closing or last
        self._flush()

    def _flush(self) -> None:
        """Writes what the pipe has room for; closes it after the last call (no more calls:
        the program says it is done)."""
        try:
            while self.pending:
                del self.pending[: os.write(self.calls_out, self.pending)]
        except BlockingIOError:
            return
        except BrokenPipeError:
            self.pending.clear()
        if self.closing and not self.pending:
            os.close(self.calls_out)
            self.calls_out = -1


def read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    os.close(fd)
    return b"".join(chunks)
