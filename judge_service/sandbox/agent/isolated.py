"""Assert mode with the candidate and the test code in two processes.

The zygote's child for an assert-mode test is the *runner*: it holds the result descriptor and
the completion token, compiles the problem's test code, then forks the *candidate* process,
which runs the user's program and nothing else. The test code calls the candidate's functions
through proxies that send the arguments over a socket as plain data and decode the answer
(see ``plain``): every value the asserts compare was built by the runner itself from bytes, so
no ``__eq__``, trace hook, patched builtin or ``sys.modules`` entry of the candidate reaches
the code that decides the verdict. The runner is not dumpable, so the candidate (same uid)
can neither ptrace it nor open its ``/proc`` files; it can only kill or stop it, which reads
as a runtime error or a time-out, never as a pass.

Standard library only (sent into the Python sandbox with the zygote).
"""

from __future__ import annotations

import builtins
import ctypes
import importlib
import os
import signal
import socket
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

from judge_service.sandbox.agent.plain import (
    DecodeError,
    NotPlainData,
    decode,
    encode,
)

PR_SET_DUMPABLE = 4
FRAME = struct.Struct(">I")
MAX_MESSAGE = 64 << 20
MAX_NAMES = 10000
RESULT_FD = 3
TESTS_FD = 4
Finish = Callable[[dict[str, Any], int], NoReturn]


class CandidateError(Exception):
    """An exception the candidate raised whose type is not a builtin one."""


# ---- the wire ---------------------------------------------------------------------------------
def _send(channel: socket.socket, message: list[Any] | bytes) -> None:
    body = message if isinstance(message, bytes) else encode(message)
    channel.sendall(FRAME.pack(len(body)) + body)


def _receive(channel: socket.socket) -> Any:
    """The next message; ``EOFError`` when the peer is gone, ``DecodeError`` when malformed."""
    (size,) = FRAME.unpack(_read_exact(channel, FRAME.size))
    if size > MAX_MESSAGE:
        raise DecodeError(f"message of {size} bytes exceeds {MAX_MESSAGE}")
    return decode(_read_exact(channel, size), MAX_MESSAGE)


def _read_exact(channel: socket.socket, size: int) -> bytes:
    chunks, missing = [], size
    while missing:
        chunk = channel.recv(min(missing, 1 << 20))
        if not chunk:
            raise EOFError("the candidate's process ended")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)


# ---- the runner (trusted) -----------------------------------------------------------------------
def run_assert(
    entry_point: str,
    finish: Finish,
    serve: Callable[[socket.socket], NoReturn],
    read_tests: Callable[[], bytes],
) -> NoReturn:
    """Run the tests ``read_tests`` returns against the candidate ``serve`` runs in a forked
    process; never returns. The tests are read after the fork: the candidate's memory is a copy
    of ours at that moment, and it must not hold the expected answers."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    libc = ctypes.CDLL(None)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    pid = os.fork()
    if pid == 0:
        ours.close()
        os.close(RESULT_FD)
        os.close(TESTS_FD)
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        serve(theirs)
    theirs.close()
    candidate = _Candidate(ours, pid, finish)
    try:
        test_code = compile(read_tests(), "<tests>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        candidate.finish({"status": "compile_error", "message": _describe(error)}, 0)
    names = candidate.start()
    namespace = _test_namespace(names, candidate)
    try:
        exec(test_code, namespace)
        check = namespace.get("check")
        if callable(check):
            check(candidate.proxy(entry_point))
    except AssertionError as error:
        _print_uncaught(error)
        candidate.finish({"status": "assertion", "message": _message(error)}, 1)
    except BaseException as error:
        _print_uncaught(error)
        status = {"status": "exception", "type": type(error).__name__, "message": _message(error)}
        candidate.finish(status, 1)
    candidate.finish({"status": "ok"}, 0)


class _Candidate:
    def __init__(self, channel: socket.socket, pid: int, finish: Finish) -> None:
        self.channel, self.pid, self._finish = channel, pid, finish

    def finish(self, payload: dict[str, Any], exit_code: int) -> NoReturn:
        """Stop the candidate (reaped, so its CPU time counts in ours), then report."""
        self.channel.close()
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        self._finish(payload, exit_code)

    def start(self) -> list[tuple[str, str, str]]:
        reply = self._reply()
        if reply[0] != "ready" or len(reply) != 2 or not isinstance(reply[1], list):
            self._failed(reply)
        return [entry for entry in reply[1][:MAX_NAMES] if _valid_name_entry(entry)]

    def proxy(self, name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, args, kwargs)

        call.__name__ = call.__qualname__ = name.rpartition(".")[2]
        return call

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            request = encode(["call", name, list(args), kwargs])
        except NotPlainData as error:
            self.finish(
                {
                    "status": "harness_error",
                    "message": f"the tests pass the candidate a value that cannot cross the "
                    f"process boundary: {error}",
                },
                1,
            )
        try:
            _send(self.channel, request)
        except OSError:
            self.finish(_ended(), 1)
        reply = self._reply()
        if reply[0] == "return" and len(reply) == 3:
            _write_back(args, reply[2])
            return reply[1]
        if reply[0] == "raise" and len(reply) == 3:
            raise _exception(reply[1], reply[2])
        self._failed(reply)

    def _reply(self) -> list[Any]:
        try:
            reply = _receive(self.channel)
        except (EOFError, OSError):
            self.finish(_ended(), 1)
        except DecodeError as error:
            self.finish({"status": "exception", "message": f"malformed answer: {error}"}, 1)
        if not isinstance(reply, list) or not reply or not isinstance(reply[0], str):
            self.finish({"status": "exception", "message": "malformed answer"}, 1)
        return reply

    def _failed(self, reply: list[Any]) -> NoReturn:
        kind, detail = reply[0], str(reply[1] if len(reply) > 1 else "")[:2000]
        if kind == "not_plain":
            self.finish(
                {"status": "not_plain_data", "message": f"the candidate returned {detail}"}, 1
            )
        if kind == "compile_error":
            self.finish({"status": "compile_error", "message": detail}, 0)
        if kind == "exited":
            self.finish({"status": "exited", "message": detail}, 1)
        if kind == "raise":
            message = str(reply[2] if len(reply) > 2 else "")[:500]
            self.finish({"status": "exception", "type": detail[:100], "message": message}, 1)
        self.finish({"status": "exception", "message": f"unexpected answer {kind[:50]!r}"}, 1)


def _ended() -> dict[str, Any]:
    return {"status": "exited", "message": "the program exited before the tests completed"}


def _valid_name_entry(entry: Any) -> bool:
    return (
        isinstance(entry, tuple)
        and len(entry) == 3
        and all(isinstance(part, str) for part in entry)
        and entry[0].isidentifier()
        and not entry[0].startswith("__")
    )


def _test_namespace(names: list[tuple[str, str, str]], candidate: _Candidate) -> dict[str, Any]:
    """A fresh ``__main__`` where the candidate's top-level functions are proxies and its
    standard-library imports are the runner's own modules (HumanEval's tests call helpers the
    prompt defines, such as ``poly``, and modules it imports, such as ``math``). Builtin names
    stay the runner's own: a candidate that defines ``abs`` or ``sorted`` does not reach the
    tests through them.
    """
    module = type(sys)("__main__")
    namespace: dict[str, Any] = module.__dict__
    namespace["__builtins__"] = builtins
    sys.modules["__main__"] = module
    for name, kind, module_name in names:
        if hasattr(builtins, name):
            continue
        if kind == "function":
            namespace[name] = candidate.proxy(name)
        elif kind == "module" and module_name.partition(".")[0] in sys.stdlib_module_names:
            try:
                namespace[name] = importlib.import_module(module_name)
            except ImportError:
                pass
    return namespace


def _write_back(args: tuple[Any, ...], updated: Any) -> None:
    """Mirror the candidate's in-place changes to list, dict and set arguments."""
    if not isinstance(updated, list) or len(updated) != len(args):
        return
    for original, new in zip(args, updated, strict=True):
        if type(original) is list and type(new) is list:
            original[:] = new
        elif type(original) in (dict, set) and type(new) is type(original):
            original.clear()
            original.update(new)


def _exception(type_name: Any, message: Any) -> BaseException:
    kind = getattr(builtins, str(type_name), None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(str(message))
        except Exception:
            pass
    return CandidateError(f"{str(type_name)[:100]}: {str(message)[:500]}")


# ---- the candidate (untrusted from the first line of the program on) ---------------------------
def serve_candidate(
    channel: socket.socket,
    source: bytes,
    filename: str,
    fresh_main: Callable[[], dict[str, Any]],
    resolve: Callable[[dict[str, Any], str], Any],
) -> NoReturn:
    """Run the program, then answer calls until the runner closes the channel."""
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        _answer(channel, ["compile_error", _describe(error)], exit_code=0)
    namespace = fresh_main()
    try:
        exec(code, namespace)
    except SystemExit:
        _answer(channel, ["exited", "the program exited before the tests completed"], 0)
    except BaseException as error:
        _print_uncaught(error)
        _answer(channel, ["raise", type(error).__name__, _message(error)], 1)
    _send(channel, ["ready", _names(namespace)])
    while True:
        try:
            request = _receive(channel)
        except (EOFError, OSError, DecodeError):
            os._exit(0)
        _send(channel, answer_call(namespace, resolve, request))


def answer_call(
    namespace: dict[str, Any],
    resolve: Callable[[dict[str, Any], str], Any],
    request: Any,
    write_back: bool = True,
) -> list[Any] | bytes:
    """The call's outcome as a message: its value (and, with ``write_back``, the containers
    among its arguments, which it may have changed), or what stopped it."""
    _, name, args, kwargs = request
    try:
        value = resolve(namespace, name)(*args, **kwargs)
    except SystemExit:
        return ["exited", "the program exited before the tests completed"]
    except BaseException as error:
        _print_uncaught(error)
        return ["raise", type(error).__name__, _message(error)]
    try:
        # Only containers can have been changed in place; the rest need not travel back.
        changed = [
            arg if write_back and isinstance(arg, (list, dict, set)) else None for arg in args
        ]
        return encode(["return", value, changed])
    except NotPlainData as error:
        return ["not_plain", str(error)[:500]]
    except Exception as error:  # a container whose hash or items raise, a huge integer...
        return ["not_plain", f"a value that cannot be read as plain data ({error!r:.300})"]


def _names(namespace: dict[str, Any]) -> list[tuple[str, str, str]]:
    names = []
    for name, value in list(namespace.items())[:MAX_NAMES]:
        if isinstance(value, type(sys)):
            names.append((name, "module", str(getattr(value, "__name__", ""))))
        elif callable(value):
            names.append((name, "function", ""))
    return names


def _answer(channel: socket.socket, message: list[Any], exit_code: int) -> NoReturn:
    try:
        _send(channel, message)
    finally:
        os._exit(exit_code)


# ---- shared ---------------------------------------------------------------------------------
def _describe(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def describe_message(error: BaseException) -> str:
    """An exception's message for a result, never raising (``str`` of it may)."""
    return _message(error)


def _message(error: BaseException) -> str:
    try:
        return str(error)[:500]
    except Exception:
        return f"<unprintable {type(error).__name__}>"


def _print_uncaught(error: BaseException) -> None:
    try:
        traceback.print_exception(
            type(error), error, error.__traceback__.tb_next if error.__traceback__ else None
        )
    except Exception:
        pass
