"""A warm javac: one long-lived JVM per Java sandbox that compiles each job's source in-process
(javax.tools' ``Tool.run``, the javac command line's own entry), so a job pays no JVM start-up
and runs JIT-compiled javac.

Trust. Candidate programs run in the same container, as the same uid, after the server is up:
- it is started only while no job process exists (at a compile, after the last job's
  processes were killed), and makes itself non-dumpable (prctl, through the FFM API) before
  it says ready: no ptrace, no /proc/PID/{fd,mem,environ} for the candidate;
- it is spoken to over two pipes only the agent holds (no socket, no file), with the attach
  mechanism off, no signal handlers of its own (-Xrs, so SIGQUIT cannot print into the pipe)
  and no perf-data file in /tmp;
- it loads no candidate class: -proc:none (no annotation processors), its own class path is
  /opt; each compile is a fresh javac (fresh Context and file manager) reading /work, which
  holds only the current job's files;
- what a candidate *can* do to it, it does as the same uid: kill or stop it, change its
  limits or scheduling. The agent checks state, limits and scheduling after every test and
  before every compile and replaces a changed server; a compile that the server does not
  answer (dead, stopped, timed out by the wall clock) is done again by plain javac.
Standard library only: this module runs inside the sandbox.
"""

from __future__ import annotations

import os
import select
import struct
import time
from dataclasses import dataclass

from judge_service.sandbox.agent import procfs

JAVAC = "/usr/bin/javac"
JAVA = "/usr/bin/java"
READY = 0x4A415643  # "JAVC"
START_TIMEOUT_S = 60.0
# Compiles answered with these javac exit codes (3: out of resources, 4: abnormal) leave the
# server in a state nobody checked: it is replaced.
SERVER_TROUBLE = (3, 4)
REQUIRED_OPTION = "-proc:none"
# The server's resident memory (a -Xmx512m heap, given back after each compile, and the JIT's
# code) counts against a compile's memory limit as plain javac's does; a limit below this
# compiles with plain javac, whose smaller start would fit where the warm JVM might not.
SERVER_MIN_MEMORY_KB = 768 << 10

# Kept short and JDK-only; run by the source launcher from a memfd.
JAVA_SOURCE = r"""
import java.io.*;
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import javax.tools.*;

public class CompileServer {
    public static void main(String[] argv) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle prctl = linker.downcallHandle(
            linker.defaultLookup().find("prctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
        if ((int) prctl.invokeExact(4, 0L, 0L, 0L, 0L) != 0) System.exit(3);  // not dumpable
        DataInputStream in = new DataInputStream(
            new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
        DataOutputStream out = new DataOutputStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        out.writeInt(0x4A415643);
        out.flush();
        while (true) {
            int size;
            try {
                size = in.readInt();
            } catch (EOFException closed) {
                return;
            }
            byte[] request = new byte[size];
            in.readFully(request);
            String[] args = new String(request, StandardCharsets.UTF_8).split("\0");
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int code;
            try (PrintStream printed = new PrintStream(diagnostics, true, StandardCharsets.UTF_8)) {
                try {
                    code = javac.run(null, printed, printed, args);
                } catch (Throwable error) {
                    error.printStackTrace(printed);
                    code = 4;
                }
            }
            System.gc();  // give the heap back before the job's tests run
            byte[] text = diagnostics.toByteArray();
            out.writeInt(code);
            out.writeInt(text.length);
            out.write(text);
            out.flush();
        }
    }
}
"""


def server_argv(source_fd: int) -> list[str]:
    return [
        JAVA,
        "-Xmx512m",  # javac's own -J-Xmx512m
        "-XX:+UseSerialGC",
        "-XX:MaxHeapFreeRatio=30",
        "-XX:MinHeapFreeRatio=10",
        "-XX:-UsePerfData",
        "-XX:+DisableAttachMechanism",
        "-XX:-CreateCoredumpOnCrash",
        "-Xrs",
        "-cp",
        "/opt",
        "--enable-preview",
        "--enable-native-access=ALL-UNNAMED",
        "--source",
        "21",
        f"/proc/self/fd/{source_fd}",
    ]


def serves(argv: list[str], memory_kb: int) -> bool:
    """Whether the server can run this compile: javac with annotation processing off, under a
    memory limit the warm JVM fits in."""
    return (
        bool(argv)
        and argv[0] == JAVAC
        and REQUIRED_OPTION in argv
        and memory_kb >= SERVER_MIN_MEMORY_KB
    )


def javac_arguments(argv: list[str]) -> list[str]:
    """The command line without the program name and the launcher's -J options."""
    return [arg for arg in argv[1:] if not arg.startswith("-J")]


@dataclass
class ServerCompile:
    """What one compile on the server came to (``killed_for`` as the agent's watch uses it)."""

    status: int
    output: bytes
    cpu_ms: float
    wall_ms: float
    peak_kb: int
    killed_for: str = ""


class JavacServer:
    def __init__(self) -> None:
        self.pid = 0
        self.to_server = -1
        self.from_server = -1
        self.env: dict[str, str] = {}

    def running(self) -> bool:
        return self.pid > 0

    def start(self, env: dict[str, str], cwd: str) -> bool:
        """Start and wait for ready (not dumpable by then); False when it could not start."""
        self.stop()
        source = os.memfd_create("CompileServer.java", 0)
        os.write(source, JAVA_SOURCE.encode())
        request_read, request_write = os.pipe()
        reply_read, reply_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.chdir(cwd)
                os.dup2(request_read, 0)
                os.dup2(reply_write, 1)
                null = os.open("/dev/null", os.O_WRONLY)
                os.dup2(null, 2)
                os.dup2(source, 3)
                os.closerange(4, 65536)
                os.execve(JAVA, server_argv(3), env)
            finally:
                os._exit(127)
        for fd in (request_read, reply_write, source):
            os.close(fd)
        self.pid, self.to_server, self.from_server, self.env = pid, request_write, reply_read, env
        ready = self._read(4, time.monotonic() + START_TIMEOUT_S)
        if ready is None or struct.unpack(">I", ready)[0] != READY:
            self.stop()
            return False
        return True

    def usable(self, limits: object, scheduling: object) -> bool:
        """Alive, not stopped, and with the limits and scheduling it was started with."""
        return (
            self.running()
            and procfs.process_state(self.pid) in ("S", "R")
            and procfs.limits_of(self.pid) == limits
            and procfs.scheduling_of(self.pid) == scheduling
        )

    def compile(self, argv: list[str], limits: dict[str, int]) -> ServerCompile | None:
        """Compile with the agent's limits; None when the server failed (not the program):
        it died, or stopped answering within the wall backstop. The caller compiles again with
        plain javac then."""
        request = "\0".join(javac_arguments(argv)).encode()
        started = time.monotonic()
        cpu_start = procfs.usage([self.pid])[1]
        try:
            _write_all(self.to_server, struct.pack(">I", len(request)) + request)
        except OSError:
            self.stop()
            return None
        wall_deadline = started + limits["wall_ms"] / 1000.0
        cpu_limit_s = limits["cpu_ms"] / 1000.0
        buffer = bytearray()
        peak_kb = 0
        needed = 8
        killed_for = ""
        interval = 0.002
        while True:
            if len(buffer) >= 8:
                needed = 8 + struct.unpack(">ii", buffer[:8])[1]
                if len(buffer) >= needed:
                    break
            rss_kb, cpu_s = procfs.usage([self.pid])
            peak_kb = max(peak_kb, rss_kb)
            now = time.monotonic()
            if cpu_s - cpu_start >= cpu_limit_s:
                killed_for = killed_for or "cpu"
            elif rss_kb > limits["memory_kb"]:
                killed_for = killed_for or "memory"
            elif now >= wall_deadline:
                # Blocked or starved: not evidence against the program.
                self.stop()
                return None
            if killed_for:
                cpu_ms = (cpu_s - cpu_start) * 1000.0
                self.stop()
                wall_ms = (now - started) * 1000.0
                return ServerCompile(0, bytes(buffer[8:]), cpu_ms, wall_ms, peak_kb, killed_for)
            if select.select([self.from_server], [], [], interval)[0]:
                try:
                    chunk = os.read(self.from_server, max(1 << 16, needed - len(buffer)))
                except OSError:
                    chunk = b""
                if not chunk:
                    self.stop()
                    return None
                buffer += chunk
            interval = min(interval * 2, 0.02)
        code = struct.unpack(">ii", buffer[:8])[0]
        rss_kb, cpu_s = procfs.usage([self.pid])
        output = bytes(buffer[8:needed])
        result = ServerCompile(
            status=(code & 0xFF) << 8,
            output=output,
            cpu_ms=(cpu_s - cpu_start) * 1000.0,
            wall_ms=(time.monotonic() - started) * 1000.0,
            peak_kb=max(peak_kb, rss_kb),
            killed_for="output" if len(output) > limits["output_bytes"] else "",
        )
        if code in SERVER_TROUBLE:
            self.stop()
        return result

    def memory_kb(self) -> int:
        return procfs.usage([self.pid])[0] if self.running() else 0

    def _read(self, size: int, deadline: float) -> bytes | None:
        data = b""
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_server], [], [], left)[0]:
                return None
            try:
                chunk = os.read(self.from_server, size - len(data))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
        return data

    def forget(self) -> None:
        """The process is gone (reaped elsewhere): close the pipes."""
        self.pid = 0
        self.stop()

    def stop(self) -> None:
        for fd in (self.to_server, self.from_server):
            if fd >= 0:
                os.close(fd)
        self.to_server = self.from_server = -1
        if self.pid:
            procfs.kill_and_reap(self.pid)
        self.pid = 0


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
