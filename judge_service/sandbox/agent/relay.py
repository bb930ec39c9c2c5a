"""The zygote's side of a planned assert test's calls (see ``zygote._run_calls``).

The program's process makes the calls the plan lists and answers each with a line; the
expected values stay in the agent. Two ways, by the plan's ``release_after``:

- :class:`CallFeeder`: some call's arguments hold an earlier call's expected value (a chain of
  tests). The zygote hands the calls over as the answers allow, copying each answer into the
  result first, through two pipes; the program never holds the result descriptor.
- :class:`AnswerCopier`: no call holds an expected value. The program reads them all at once
  and writes its answers to a memfd of its own, copied into the result when it ends.

Standard library only: this module is sent into the sandboxes with the zygote.
"""

from __future__ import annotations

import os
import select
import signal
from typing import Any

CHILD_FDS = ("stdin", "stdout", "stderr", "result", "source", "tests")


def planned_calls(request: dict[str, Any], fds: list[int]) -> CallFeeder | AnswerCopier:
    """What hands a planned test's calls to the program and its answers to the result."""
    if any(request["release_after"]):
        return CallFeeder(request, fds)
    return AnswerCopier(request, fds)


class AnswerCopier:
    """A planned test none of whose calls holds an expected value (``release_after`` all 0): the
    program reads every call from the tests descriptor and writes its answers to a memfd of its
    own, which the zygote copies into the result after the token once the program has ended.
    The program sees what the relay would give it (every call at once, nothing the agent
    keeps), without a wake-up of the zygote per answer; answers written before a crash or a
    kill are in the memfd and are copied as the relay would have copied them. The file-size
    limit stops a program that writes past the result's limit, as the relay's count did."""

    def __init__(self, request: dict[str, Any], fds: list[int]) -> None:
        self.result_fd = fds[CHILD_FDS.index("result")]
        self.token = request["token"].encode()
        self.limit = int(request["rlimits"]["fsize"])
        self.answers = os.memfd_create("answers")
        self.child_fds = list(fds)
        self.child_fds[CHILD_FDS.index("result")] = self.answers

    def close_after_fork(self) -> list[int]:
        return [fd for fd in self.child_fds if fd != self.answers]

    def feed(self, pid: int) -> None:
        pass

    def collect(self) -> None:
        try:
            answers = os.pread(self.answers, max(self.limit - len(self.token) - 1, 0), 0)
            os.write(self.result_fd, self.token + b"\n" + answers)
        except OSError:
            pass
        finally:
            os.close(self.answers)
            os.close(self.result_fd)


class CallFeeder:
    """Hands a planned test's calls to the program (see ``_run_calls``) as its answers allow.

    A call whose arguments hold an earlier call's expected value (``release_after``, from the
    plan) goes to the program only once the zygote has copied the answers up to that call into
    the result, where they can no longer be changed: as with the runner, a program never sees
    an answer in a later call's arguments before it has committed to its own. The zygote holds
    the result descriptor; the program only has the two pipes.
    """

    def __init__(self, request: dict[str, Any], fds: list[int]) -> None:
        self.release_after: list[int] = request["release_after"]
        named = dict(zip(CHILD_FDS, fds, strict=False))
        self.result_fd, self.tests_fd = named["result"], named["tests"]
        self.token = request["token"].encode()
        self.limit = int(request["rlimits"]["fsize"])
        self.calls_in, self.calls_out = os.pipe()
        self.answers_in, self.answers_out = os.pipe()
        self.child_fds = list(fds)
        self.child_fds[CHILD_FDS.index("result")] = self.answers_out
        self.child_fds[CHILD_FDS.index("tests")] = self.calls_in

    def collect(self) -> None:
        # Open until the program has ended: closed before, a program still writing an answer
        # past the limit got SIGPIPE as well as the SIGXFSZ sent to it, and the kernel delivers
        # the lower number first (RE or OLE by a race).
        os.close(self.answers_in)

    def close_after_fork(self) -> list[int]:
        """Our copies of what only the program uses, and the descriptors we keep aside."""
        others = [fd for fd in self.child_fds if fd not in (self.answers_out, self.calls_in)]
        return [*others, self.answers_out, self.calls_in]

    def feed(self, pid: int) -> None:
        try:
            calls = [call for call in read_all(self.tests_fd).split(b"\n") if call]
            written = self._copy_answers(pid, calls)
            if written > self.limit:
                os.kill(pid, signal.SIGXFSZ)  # as the file-size limit would have
        except OSError:
            pass
        finally:
            for fd in (self.result_fd, self.calls_out):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _copy_answers(self, pid: int, calls: list[bytes]) -> int:
        written = os.write(self.result_fd, self.token + b"\n")
        lines = released = 0
        exited = os.pidfd_open(pid)
        try:
            while True:
                readable = select.select([self.answers_in, exited], [], [])[0]
                data = os.read(self.answers_in, 1 << 16) if self.answers_in in readable else b""
                if not data and (exited in readable or self.answers_in in readable):
                    return written
                if written + len(data) > self.limit:
                    return written + len(data)
                written += os.write(self.result_fd, data)
                lines += data.count(b"\n")
                answered = lines - 1  # the first line says the program is ready
                end = released
                while end < len(calls) and self._release_after(end) <= answered:
                    end += 1
                if lines and end > released:
                    self._send(calls[released:end], last=end == len(calls))
                    released = end
                elif lines and not calls:
                    self._send([], last=True)
        finally:
            os.close(exited)

    def _release_after(self, index: int) -> int:
        return self.release_after[index] if index < len(self.release_after) else index

    def _send(self, calls: list[bytes], last: bool) -> None:
        if self.calls_out < 0:
            return
        try:
            if calls:
                os.write(self.calls_out, b"\n".join(calls) + b"\n")
        except BrokenPipeError:
            pass
        if last:
            os.close(self.calls_out)  # no more calls: the program says it is done
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
