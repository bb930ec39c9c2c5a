"""Python fork server that runs inside the Python sandbox.

Starting ``python3`` costs 10-13 ms; forking a warm interpreter costs about 1 ms. The agent
starts this zygote as a fresh interpreter (never a fork of itself, so it holds none of the
agent's secrets, such as expected outputs) and asks it, over a SOCK_SEQPACKET socket, to fork one
child per test. Each child receives its standard streams as file descriptors, applies the
limits, and runs the user's program in a fresh ``__main__`` namespace through one of three
harnesses (stdin program, function call, assert-style tests).

Standard library only. The zygote blocks the standard signals and is not dumpable, so a user
program can only kill it, never inspect or steer it; the agent notices and starts a new one.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # signal.py's C half, which typeshed omits
import array
import atexit

# Preloaded so that forked children do not pay for them (they are what solutions import).
import bisect  # noqa: F401
import collections  # noqa: F401
import ctypes
import functools  # noqa: F401
import gc
import heapq  # noqa: F401
import io
import itertools  # noqa: F401
import json
import math  # noqa: F401
import os
import re  # noqa: F401
import resource
import signal
import socket
import string  # noqa: F401
import sys
import traceback
import typing  # noqa: F401
from typing import Any, NoReturn

from judge_service.sandbox.agent import isolated, plain
from judge_service.sandbox.agent.relay import CHILD_FDS, CallFeeder, read_all

PR_SET_DUMPABLE = 4
# Loaded once here: every forked child calls prctl, and dlopen with a new ctypes wrapper per
# test is measurable against a 1 ms fork.
_LIBC = ctypes.CDLL(None, use_errno=True)
MAX_MESSAGE = 1 << 16
CATCHABLE_SIGNALS = [
    sig
    for sig in signal.valid_signals()
    if sig not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD)
]
_STANDARD_SIGNALS = [sig for sig in CATCHABLE_SIGNALS if sig < signal.SIGRTMIN]


def main() -> None:
    global _STREAM_TEMPLATES
    control = socket.socket(fileno=os.dup(0))
    _harden()
    _STREAM_TEMPLATES = _stream_templates()
    control.send(json.dumps({"op": "ready", "pid": os.getpid()}).encode())
    # Everything built so far (the preloaded modules) is never collected again: a collection
    # writes to the header of every object it visits, and after a fork each write to a page
    # copies it, in this process and in the child (whose first full collection would copy
    # the whole heap).
    gc.freeze()
    environment: dict[str, str] | None = None
    while True:
        try:
            data, fds = _receive(control)
        except (ConnectionError, OSError):
            os._exit(0)
        if not data:
            os._exit(0)
        request = json.loads(data)
        if request["op"] == "ping":
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"op": "pong", "nonce": request["nonce"]}).encode())
            continue
        if request["env"] != environment:
            # Set here, not in each child: os.environ's Python code costs a fresh child
            # 0.25 ms of copy-on-write faults, and a sandbox's tests all share one environment.
            environment = request["env"]
            os.environ.clear()
            os.environ.update(environment)
        feeder = CallFeeder(request, fds) if request["mode"] == "calls" else None
        pid = os.fork()
        if pid == 0:
            control.close()
            _child(request, feeder.child_fds if feeder else fds)
        for fd in feeder.close_after_fork() if feeder else fds:
            os.close(fd)
        # JSON by hand while the child lives: after fork(2) every page this process writes
        # is copied first, and json.dumps writes to some 30 pages the loop touches nowhere
        # else (0.07 ms a test).
        control.send(b'{"op": "spawned", "pid": %d}' % pid)
        if feeder:
            feeder.feed(pid)
        _, status, usage = os.wait4(pid, 0)
        if feeder:
            feeder.program_ended()
        cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000.0
        control.send(
            b'{"op": "exit", "pid": %d, "status": %d, "cpu_ms": %r, "maxrss_kb": %d, "output": %d}'
            % (pid, status, cpu_ms, usage.ru_maxrss, bool(feeder and feeder.over_limit))
        )


def _harden() -> None:
    # Its children are born the OOM killer's first choice, as every program is (the agent's
    # watch takes any job process below 1000 under memory pressure for a program that lowered
    # it): written while the file is still this process's, before it turns non-dumpable.
    adj = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(adj, b"1000")
    finally:
        os.close(adj)
    _LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # Blocked, not ignored: as deaf to the program's signals, and with every disposition at its
    # default (the interpreter's SIGINT handler and ignored SIGPIPE and SIGXFSZ too: blocked,
    # the zygote never receives them) a child needs one call to start as after exec.
    # Resetting every disposition in each child cost it 0.16 ms, a tenth of a test.
    # The standard signals only: a blocked real-time signal is queued, and a program that
    # sent 300,000 filled the pending-signal quota its uid shares with every sandbox on the
    # host (timer_create and sigqueue then failed everywhere). A real-time signal at its
    # default ends the zygote, which the agent restarts: no more than SIGKILL can do.
    signal.pthread_sigmask(signal.SIG_BLOCK, _STANDARD_SIGNALS)
    for sig in CATCHABLE_SIGNALS:
        if signal.getsignal(sig) != signal.SIG_DFL:
            signal.signal(sig, signal.SIG_DFL)


def _receive(control: socket.socket) -> tuple[bytes, list[int]]:
    fds = array.array("i")
    data, ancillary, _, _ = control.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(16 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return data, list(fds)


def _child(request: dict[str, Any], fds: list[int]) -> None:
    """Runs in the forked child; never returns."""
    try:
        named = dict(zip(CHILD_FDS, fds, strict=False))
        source = read_all(named["source"])
        # Assert-mode tests hold the expected answers: the runner reads them only after it has
        # forked the candidate, whose memory must never have contained them.
        deferred = request["mode"] in ("assert", "calls")
        tests = b"" if deferred or "tests" not in named else read_all(named["tests"])
        _enter_sandbox(request, named, keep_tests=deferred)
    except BaseException:
        os._exit(121)
    if request["mode"] == "calls":
        del request["token"]  # the zygote writes the result; the program has no use for it
        _run_calls(request, source)
    token = request["token"].encode()
    write_result = _result_writer(token)
    del request["token"]
    runner = {"stdin": _run_stdin, "function": _run_function, "assert": _run_assert}
    runner[request["mode"]](request, source, tests, write_result)


def _enter_sandbox(request: dict[str, Any], named: dict[str, int], keep_tests: bool) -> None:
    os.setsid()
    # The C function: signal.py's wrapper converts the old mask to enums, which in a fresh
    # child costs more than the system call.
    _signal.pthread_sigmask(_signal.SIG_SETMASK, ())
    kept = ("stdin", "stdout", "stderr", "result", "tests") if keep_tests else CHILD_FDS[:4]
    for target, name in enumerate(kept):
        os.dup2(named[name], target)
    os.closerange(len(kept), 65536)
    # Dumpable again (the user's process owns its /proc entries, as a program started by exec
    # does; it was born at oom_score_adj 1000, the zygote's) only now that it holds the test's
    # descriptors alone, none of the zygote's.
    _LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
    rlimits = request["rlimits"]
    resource.setrlimit(resource.RLIMIT_CPU, (rlimits["cpu_s"], rlimits["cpu_s"] + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (rlimits["fsize"], rlimits["fsize"]))
    resource.setrlimit(resource.RLIMIT_STACK, (rlimits["stack"], rlimits["stack"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (rlimits["nofile"], rlimits["nofile"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Below the agent in its own container: a fork bomb of 128 programs must not starve the
    # agent that has to stop it (limits are CPU time, so this changes no verdict).
    os.nice(19)
    os.chdir(request["cwd"])
    sys.argv = [request["argv0"]]
    streams = _STREAM_TEMPLATES if _STREAM_TEMPLATES and _at_start(0, 1, 2) else _new_streams()
    sys.stdin = sys.__stdin__ = streams[0]  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = streams[1]  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = streams[2]  # type: ignore[misc]
    sys.setrecursionlimit(int(request.get("recursion_limit", 10000)))
    # Contest answers are often big integers (Python's default caps int/str at 4300 digits).
    sys.set_int_max_str_digits(0)


Streams = tuple[io.TextIOWrapper, io.TextIOWrapper, io.TextIOWrapper]


def _new_streams() -> Streams:
    """The program's stdin, stdout and stderr, on descriptors 0, 1 and 2."""
    return (
        io.TextIOWrapper(
            io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8", newline="\n"
        ),
        io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8", newline="\n"
        ),
        io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            newline="\n",
            line_buffering=True,
        ),
    )


def _stream_templates() -> Streams:
    """:func:`_new_streams` made once, here, on what a child's descriptors 0-2 always are: a
    memfd at offset 0. Building them costs a fresh child 0.25 ms (copy-on-write faults of the
    io and codecs code it runs); a child whose descriptors are such memfds adopts its copy of
    these instead, which the zygote itself never uses. What the objects note about their file
    at creation (seekable, the offset) is then what building them in the child would note."""
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    stand_in = os.memfd_create("stream-template")
    try:
        for fd in (0, 1, 2):
            os.dup2(stand_in, fd)
        return _new_streams()
    finally:
        for fd, copy in zip((0, 1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        os.close(stand_in)


def _at_start(*fds: int) -> bool:
    """Whether every descriptor is seekable and at offset 0 (as a test's memfds are)."""
    try:
        return all(os.lseek(fd, 0, os.SEEK_CUR) == 0 for fd in fds)
    except OSError:
        return False


_STREAM_TEMPLATES: Streams | None = None
# The interpreter's own streams, kept referenced so that replacing them in a child does not
# finalize them there (closing three file objects cost a child 0.15 ms).
_STARTUP_STREAMS = (sys.stdin, sys.stdout, sys.stderr)


def _result_writer(token: bytes) -> Any:
    raw_write, raw_ftruncate, raw_exit, dumps = os.write, os.ftruncate, os._exit, json.dumps

    def write_result(payload: dict[str, Any], exit_code: int = 0) -> None:
        _flush_streams()
        try:
            raw_ftruncate(3, 0)
            raw_write(3, token + b"\n" + dumps(payload).encode())
        finally:
            raw_exit(exit_code)

    return write_result


def _flush_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _compile(source: bytes, filename: str, write_result: Any) -> Any:
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        write_result({"status": "compile_error", "message": _describe_compile_error(error)})


def _describe_compile_error(error: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(error), error)).strip()


def _fresh_main() -> dict[str, Any]:
    module = type(sys)("__main__")
    module.__dict__["__builtins__"] = __builtins__
    module.__dict__["__file__"] = sys.argv[0]
    sys.modules["__main__"] = module
    return module.__dict__


def _exit_like_python(code: object) -> NoReturn:
    """Mirror the interpreter's shutdown: atexit handlers, flushed streams, SystemExit codes."""
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    _flush_streams()
    if code is None:
        os._exit(0)
    if isinstance(code, int):
        os._exit(code & 0xFF)
    print(code, file=sys.stderr)
    _flush_streams()
    os._exit(1)


def _print_uncaught(error: BaseException) -> None:
    traceback.print_exception(
        type(error), error, error.__traceback__.tb_next if error.__traceback__ else None
    )


def _run_stdin(request: dict[str, Any], source: bytes, tests: bytes, write_result: Any) -> None:
    code = _compile(source, request["argv0"], write_result)
    namespace = _fresh_main()
    try:
        exec(code, namespace)
    except SystemExit as stop:
        _exit_like_python(stop.code)
    except BaseException as error:
        _print_uncaught(error)
        _exit_like_python(1)
    _exit_like_python(0)


def _run_function(request: dict[str, Any], source: bytes, tests: bytes, write_result: Any) -> None:
    code = _compile(source, request["argv0"], write_result)
    call = json.loads(tests)
    namespace = _fresh_main()
    try:
        exec(code, namespace)
        function = _resolve_entry_point(namespace, request["entry_point"])
        value = function(*call.get("args", []), **call.get("kwargs", {}))
    except SystemExit:
        write_result({"status": "exited", "message": "the program exited before returning"}, 1)
    except BaseException as error:
        _print_uncaught(error)
        write_result(
            {"status": "exception", "type": type(error).__name__, "message": str(error)[:500]}, 1
        )
    try:
        encoded = json.loads(json.dumps(plain.to_plain(value), allow_nan=True))
    except (plain.NotPlainData, plain.DecodeError, TypeError, ValueError, RecursionError) as error:
        write_result({"status": "unserializable", "message": f"return value: {error}"})
    write_result({"status": "ok", "value": encoded})


def _run_calls(request: dict[str, Any], source: bytes) -> NoReturn:
    """Assert-mode tests planned as calls (see ``_assert_plan``): run the program, then make
    each call the zygote hands over (fd 4, one per line) and answer it with a line (fd 3),
    which the zygote appends to the result, so that the agent reads every value the program
    gave before whatever stopped it. The expected values stay in the agent; this process only
    ever sees the arguments, each after it has answered the call before."""
    raw_write, raw_exit = os.write, os._exit
    code = _compile_or_none(source, request["argv0"])
    if code is None:
        raw_exit(0)

    def report(line: list[Any] | bytes) -> None:
        raw_write(3, (line if isinstance(line, bytes) else plain.encode(line)) + b"\n")

    namespace = _fresh_main()
    try:
        exec(code, namespace)
    except SystemExit:
        report(["exited", "the program exited before the tests completed"])
        _exit_like_python(0)
    except BaseException as error:
        _print_uncaught(error)
        report(["raise", type(error).__name__, isolated.describe_message(error)])
        _exit_like_python(1)
    report(["ready"])
    for line in open(isolated.TESTS_FD, "rb", closefd=False):
        name, args = plain.decode(line)
        call = ["call", name, args, {}]
        answer = isolated.answer_call(namespace, _resolve_entry_point, call, write_back=False)
        report(answer)
        if not (isinstance(answer, bytes) or answer[0] == "return"):
            _exit_like_python(1)
    report(["done"])
    _exit_like_python(0)


def _compile_or_none(source: bytes, filename: str) -> Any:
    """The program's code, or ``None`` after reporting its syntax error as a result line."""
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as error:
        os.write(3, plain.encode(["compile_error", _describe_compile_error(error)]) + b"\n")
        return None


def _resolve_entry_point(namespace: dict[str, Any], entry_point: str) -> Any:
    if "." in entry_point:
        class_name, method = entry_point.split(".", 1)
        return getattr(namespace[class_name](), method)
    if callable(namespace.get(entry_point)) and not isinstance(namespace[entry_point], type):
        return namespace[entry_point]
    if "Solution" in namespace and hasattr(namespace["Solution"], entry_point):
        return getattr(namespace["Solution"](), entry_point)
    raise NameError(f"entry point {entry_point!r} is neither a function nor a Solution method")


def _run_assert(request: dict[str, Any], source: bytes, tests: bytes, write_result: Any) -> None:
    def serve(channel: socket.socket) -> NoReturn:
        isolated.serve_candidate(
            channel, source, request["argv0"], _fresh_main, _resolve_entry_point
        )

    isolated.run_assert(request["entry_point"], write_result, serve, read_tests=_read_tests)


def _read_tests() -> bytes:
    return read_all(isolated.TESTS_FD)


if __name__ == "__main__":
    main()
