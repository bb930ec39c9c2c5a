"""Adversarial integration tests: hostile programs against the real Docker sandboxes.

Every test runs a hostile program and asserts two things: the verdict is the right *user*
verdict (never SE, never an exception out of the pool), and the attack is contained: the next
job in the same sandbox is clean (a probe scans /proc, the scratch directories and SysV IPC),
and the host is unaffected.

The module uses its own pool with one sandbox per language, so consecutive jobs of a language
land in the same container. A sandbox whose reset failed is destroyed and replaced (allowed);
the tests note it in the end-of-module summary, and the next job must be clean either way.

Network traffic goes to 127.0.0.1 only (inside a sandbox that is the sandbox's own loopback).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import textwrap
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.errors import SandboxError
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

pytestmark = pytest.mark.integration

AC, WA, RE, TLE, MLE, OLE, CE, SE = (
    Verdict.AC,
    Verdict.WA,
    Verdict.RE,
    Verdict.TLE,
    Verdict.MLE,
    Verdict.OLE,
    Verdict.CE,
    Verdict.SE,
)
USER_VERDICTS = (AC, WA, RE, TLE, MLE, OLE, CE)
HOST_SERVICES = {"redis": 6379, "postgres": 5432}
FAST = {"time_limit_ms": 500}
EVENTS: list[str] = []


def dedent(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


# ---- the clean-sandbox probe ---------------------------------------------------------------
# A Python program (every image has python3: the agent needs it); compiled languages exec it.
# It prints CLEAN, or DIRTY and what it found: processes outside the judge's own session (PID 1,
# the spawner, the zygote) and the probe's session, stopped helpers, files in the scratch
# directories, SysV IPC objects, and scratch space that cannot be written.
PROBE_TEMPLATE = dedent(
    """
    import os, sys, time
    ALLOWED = __ALLOWED__
    text = sys.stdin.read().strip()
    time.sleep(float(text or 0))
    problems = []
    def fields(pid):
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()
    def command(pid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                return handle.read().replace(bytes(1), b" ").strip()
        except OSError:
            return b"?"
    me = os.getpid()
    mine = os.getsid(0)
    judge_session = int(fields(1)[3])
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        pid = int(name)
        try:
            stat = fields(pid)
        except (OSError, IndexError):
            continue
        session, cmd = int(stat[3]), command(pid)
        if session == mine:
            continue
        helper = cmd.startswith(b"/opt/judge/spawner") or b"sandbox.agent.zygote" in cmd
        if session == judge_session and helper:
            if stat[0] not in ("S", "R"):
                problems.append("helper %d in state %s" % (pid, stat[0]))
            continue
        problems.append("process %d session %d state %s %r" % (pid, session, stat[0], cmd[:60]))
    for directory in ("/work", "/tmp", "/dev/shm", "/dev/mqueue"):
        try:
            names = set(os.listdir(directory))
        except OSError as error:
            problems.append("%s: %s" % (directory, error))
            continue
        names -= set(ALLOWED.get(directory, ()))
        if names:
            problems.append("%s holds %s" % (directory, sorted(names)[:6]))
    for kind in ("shm", "msg", "sem"):
        with open("/proc/sysvipc/" + kind) as handle:
            rows = handle.read().splitlines()[1:]
        if rows:
            problems.append("%d SysV %s left" % (len(rows), kind))
    for directory in ("/work", "/tmp", "/dev/shm"):
        path = directory + "/probe.bin"
        try:
            with open(path, "wb") as handle:
                handle.write(b"p" * (1 << 20))
            os.unlink(path)
        except OSError as error:
            problems.append("cannot write %s: %s" % (directory, error))
    print("CLEAN" if not problems else "DIRTY " + " | ".join(problems))
    """
)

# What the probe's own job leaves: its source, its binary, and (Go) the compiler's cache.
PROBE_ALLOWED = {
    "python": {"/work": ["main.py"]},
    "c": {"/work": ["main.c", "main"]},
    "cpp": {"/work": ["main.cpp", "main"]},
    "rust": {"/work": ["main.rs", "main"]},
    "go": {"/work": ["main.go", "main"], "/tmp": ["go-cache"]},
    "javascript": {"/work": ["main.js"]},
}

PROBE_WRAPPERS = {
    "c": '#include <unistd.h>\nint main(void) {\n  execl("/usr/bin/python3", "python3", "-I", '
    '"-S", "-c", __PROBE__, (char *)0);\n  return 99;\n}\n',
    "cpp": '#include <unistd.h>\nint main() {\n  execl("/usr/bin/python3", "python3", "-I", '
    '"-S", "-c", __PROBE__, (char *)0);\n  return 99;\n}\n',
    "rust": "use std::os::unix::process::CommandExt;\nfn main() {\n  let error = "
    'std::process::Command::new("/usr/bin/python3").args(["-I", "-S", "-c", __PROBE__]).exec();'
    '\n  panic!("{}", error);\n}\n',
    "go": 'package main\n\nimport (\n\t"os"\n\t"syscall"\n)\n\nfunc main() {\n\terr := '
    'syscall.Exec("/usr/bin/python3", []string{"python3", "-I", "-S", "-c", __PROBE__}, '
    "os.Environ())\n\tpanic(err)\n}\n",
    "javascript": "const result = require('child_process').spawnSync('/usr/bin/python3', "
    "['-I', '-S', '-c', __PROBE__], { stdio: 'inherit' });\n"
    "process.exitCode = result.status === null ? 99 : result.status;\n",
}


def probe_source(language: str) -> str:
    python = PROBE_TEMPLATE.replace("__ALLOWED__", repr(PROBE_ALLOWED[language]))
    if language == "python":
        return python
    literal = json.dumps(python)
    assert literal.isascii() and "\\u" not in literal and "\\b" not in literal
    return PROBE_WRAPPERS[language].replace("__PROBE__", literal)


# ---- helpers -------------------------------------------------------------------------------
def describe(result: JobResult) -> str:
    lines = [f"job verdict {result.verdict.value}, system_error={result.system_error!r}"]
    if result.compile is not None:
        lines.append(f"compile ok={result.compile.ok}: {result.compile.output[-600:]!r}")
    for index, test in enumerate(result.tests[:4]):
        lines.append(
            f"test {index}: {test.verdict.value} {test.message!r} exit={test.exit_code} "
            f"signal={test.signal} cpu={test.time_ms}ms wall={test.wall_ms}ms "
            f"mem={test.memory_kb}KB\n  stdout={test.stdout[:600]!r}"
            f"\n  stderr={test.stderr[-600:]!r}"
        )
    if len(result.tests) > 4:
        verdicts = sorted({test.verdict.value for test in result.tests[4:]})
        lines.append(f"... {len(result.tests) - 4} more tests, verdicts {verdicts}")
    for fetched in result.files:
        lines.append(f"file {fetched.name}: error={fetched.error!r} content={fetched.content!r}")
    return "\n".join(lines)


def judge(
    pool: SandboxPool,
    language: str,
    code: str,
    tests: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> JobResult:
    """Judge a job; an exception out of the pool is a judge failure, reported as such."""
    job = Job(language=language, code=code, tests=tests or [{"input": "", "output": ""}], **fields)
    destroyed = pool.stats.sandboxes_destroyed
    try:
        result = pool.judge(job)
    except SandboxError as error:
        EVENTS.append(f"{_current_test()}: judge raised {type(error).__name__}")
        pytest.fail(f"the judge failed on a user program: {type(error).__name__}: {error}")
    if pool.stats.sandboxes_destroyed != destroyed:
        EVENTS.append(f"{_current_test()}: the {language} sandbox was destroyed and replaced")
    return result


def _current_test() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].rpartition("::")[2]


def expect(result: JobResult, *verdicts: Verdict) -> None:
    assert result.verdict is not SE, describe(result)
    assert result.verdict in verdicts, describe(result)


def assert_next_job_clean(pool: SandboxPool, language: str, delay: float = 0.0) -> None:
    """The next job of this language (same sandbox, or its replacement) is a clean slate."""
    result = judge(
        pool,
        language,
        probe_source(language),
        [{"input": str(delay), "output": "CLEAN"}],
        limits={"time_limit_ms": 5000, "compile_time_limit_ms": 30000},
    )
    assert result.verdict is AC, "the next job is not clean:\n" + describe(result)


def host_port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


def assert_host_fine(services: dict[str, bool]) -> None:
    subprocess.run(["true"], check=True, timeout=10)
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0
    for name, was_open in services.items():
        if was_open:
            assert host_port_open(HOST_SERVICES[name]), f"host {name} became unreachable"


# ---- fixtures ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spool(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool
        summary = (
            f"adversarial pool: {pool.stats.jobs} jobs, {pool.stats.sandboxes_started} "
            f"sandboxes started, {pool.stats.sandboxes_destroyed} destroyed"
        )
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("")
            reporter.write_line(summary)
            for event in EVENTS:
                reporter.write_line("  " + event)


@pytest.fixture
def fresh_pool() -> Iterator[SandboxPool]:
    """A pool of its own, for attacks whose damage would otherwise leak into later tests."""
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool


@pytest.fixture(scope="module")
def host_services() -> dict[str, bool]:
    """Which host services on loopback were reachable from the host before the attacks."""
    return {name: host_port_open(port) for name, port in HOST_SERVICES.items()}


@pytest.fixture
def host_listener() -> Iterator[socket.socket]:
    """A TCP listener on the host's 127.0.0.1, so 'blocked' is meaningful even without Redis."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    yield listener
    listener.close()


def assert_listener_untouched(listener: socket.socket) -> None:
    with pytest.raises(BlockingIOError):
        connection, _ = listener.accept()
        connection.close()


# Finds the judge's processes from inside a sandbox (cmdline is world-readable).
FIND_JUDGE = dedent(
    """
    def judge_pids():
        # The helpers share PID 1's session; this program's cmdline can match the zygote's.
        def session(pid):
            with open("/proc/%s/stat" % pid) as handle:
                return int(handle.read().rsplit(")", 1)[1].split()[3])
        found = {"agent": 1}
        for name in os.listdir("/proc"):
            if not name.isdigit() or name in ("1", str(os.getpid())):
                continue
            try:
                with open("/proc/%s/cmdline" % name, "rb") as handle:
                    cmd = handle.read()
                if session(name) != session(1):
                    continue
            except OSError:
                continue
            if cmd.startswith(b"/opt/judge/spawner"):
                found["spawner"] = int(name)
            elif b"sandbox.agent.zygote" in cmd:
                found["zygote"] = int(name)
        return found
    """
)


# ==== fork bombs ============================================================================
def test_python_fork_bomb(spool: SandboxPool, host_services: dict[str, bool]) -> None:
    code = dedent(
        """
        import os
        while True:
            try:
                os.fork()
            except OSError:
                pass
        """
    )
    result = judge(spool, "python", code, limits=FAST)
    expect(result, TLE, RE)
    assert_host_fine(host_services)
    assert_next_job_clean(spool, "python")


def test_c_fork_bomb(spool: SandboxPool, host_services: dict[str, bool]) -> None:
    code = "#include <unistd.h>\nint main(void) {\n  for (;;) fork();\n}\n"
    result = judge(spool, "c", code, limits=FAST)
    expect(result, TLE, RE)
    assert_host_fine(host_services)
    assert_next_job_clean(spool, "c")


# ==== memory ================================================================================
def test_python_memory_bomb(spool: SandboxPool) -> None:
    code = "hoard = []\nwhile True:\n    hoard.append(b'x' * (8 << 20))\n"
    result = judge(spool, "python", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "python")


def test_c_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdlib.h>
        #include <string.h>
        int main(void) {
          for (;;) {
            char *block = malloc(8 << 20);
            if (!block) return 3;
            memset(block, 1, 8 << 20);
          }
        }
        """
    )
    result = judge(spool, "c", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "c")


def test_cpp_vector_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <string>
        #include <vector>
        int main() {
          std::vector<std::string> hoard;
          for (;;) hoard.emplace_back(8 << 20, 'x');
        }
        """
    )
    result = judge(spool, "cpp", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "cpp")


def test_go_memory_bomb(spool: SandboxPool) -> None:
    code = dedent(
        """
        package main

        import "fmt"

        func main() {
        \tvar hoard [][]byte
        \tfor {
        \t\tblock := make([]byte, 8<<20)
        \t\tfor i := range block {
        \t\t\tblock[i] = 1
        \t\t}
        \t\thoard = append(hoard, block)
        \t\tif len(hoard) < 0 {
        \t\t\tfmt.Println(len(hoard))
        \t\t}
        \t}
        }
        """
    )
    result = judge(spool, "go", code, limits={"memory_limit_mb": 64})
    expect(result, MLE)
    assert_next_job_clean(spool, "go")


def test_memory_hoarded_by_an_unwaited_child_is_counted(spool: SandboxPool) -> None:
    """A child allocates 512 MB (limit 64 MB); the parent answers and exits without waiting."""
    code = dedent(
        """
        import os, time
        ready, done = os.pipe()
        if os.fork() == 0:
            hoard = [b"m" * (16 << 20) for _ in range(32)]
            os.write(done, b"x")
            time.sleep(30)
        os.read(ready, 1)
        print(42)
        """
    )
    result = judge(
        spool, "python", code, [{"input": "", "output": "42"}], limits={"memory_limit_mb": 64}
    )
    expect(result, MLE)
    assert_next_job_clean(spool, "python")


def test_cpu_burned_by_an_unwaited_child_is_counted(spool: SandboxPool) -> None:
    """A child burns 1.5 s of CPU (limit 1 s) while the parent sleeps on a pipe, then exits."""
    code = dedent(
        """
        import os, time
        ready, done = os.pipe()
        if os.fork() == 0:
            end = time.process_time() + 1.5
            while time.process_time() < end:
                pass
            os.write(done, b"x")
            os._exit(0)
        os.read(ready, 1)
        print(42)
        """
    )
    result = judge(
        spool,
        "python",
        code,
        [{"input": "", "output": "42"}],
        limits={"time_limit_ms": 1000, "wall_time_limit_ms": 5000},
    )
    expect(result, TLE)
    assert_next_job_clean(spool, "python")


# ==== output ================================================================================
def test_python_endless_stdout(spool: SandboxPool) -> None:
    code = "while True:\n    print('y' * 1000)\n"
    result = judge(spool, "python", code, limits={**FAST, "output_limit_kb": 64})
    expect(result, OLE)
    assert len(result.tests[0].stdout) <= 4096
    assert_next_job_clean(spool, "python")


def test_c_endless_stderr(spool: SandboxPool) -> None:
    code = '#include <stdio.h>\nint main(void) {\n  for (;;) fputs("zzzzzzzz\\n", stderr);\n}\n'
    result = judge(spool, "c", code, limits={**FAST, "output_limit_kb": 64})
    expect(result, OLE)
    assert_next_job_clean(spool, "c")


def test_javascript_endless_stdout(spool: SandboxPool) -> None:
    code = "const line = 'j'.repeat(1000) + '\\n';\nfor (;;) process.stdout.write(line);\n"
    result = judge(spool, "javascript", code, limits={"time_limit_ms": 2000, "output_limit_kb": 64})
    expect(result, OLE)
    assert_next_job_clean(spool, "javascript")


# ==== disk ==================================================================================
def test_c_one_gigabyte_file_in_work(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        #include <string.h>
        static char block[1 << 20];
        int main(void) {
          memset(block, 'h', sizeof block);
          FILE *file = fopen("/work/huge.bin", "wb");
          if (!file) return 2;
          for (int i = 0; i < 1024; i++)
            if (fwrite(block, 1, sizeof block, file) != sizeof block) return 1;
          fclose(file);
          puts("written");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, limits={"time_limit_ms": 3000})
    expect(result, OLE, RE)
    assert_next_job_clean(spool, "c")


def test_python_fills_every_tmpfs(spool: SandboxPool) -> None:
    """/tmp and /dev/shm filled (errors caught), then /work until ENOSPC (uncaught): RE."""
    code = dedent(
        """
        chunk = b"f" * (4 << 20)
        def fill(directory, uncaught):
            index = 0
            while True:
                try:
                    with open("%s/fill-%d" % (directory, index), "wb") as handle:
                        for _ in range(8):
                            handle.write(chunk)
                except OSError:
                    if uncaught:
                        raise
                    return
                index += 1
        fill("/tmp", False)
        fill("/dev/shm", False)
        fill("/work", True)
        """
    )
    result = judge(spool, "python", code, limits={"time_limit_ms": 5000, "output_limit_kb": 262144})
    expect(result, RE, OLE)
    assert "No space left" in result.tests[0].stderr, describe(result)
    assert_next_job_clean(spool, "python")


# ==== secrets ===============================================================================
def test_read_etc_shadow(spool: SandboxPool) -> None:
    code = dedent(
        """
        try:
            with open("/etc/shadow") as handle:
                print("LEAKED", handle.read()[:40])
        except PermissionError:
            print("denied")
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "denied"}])
    expect(result, AC)


def test_agent_source_is_not_on_disk(spool: SandboxPool) -> None:
    """The agent's code is sent over a pipe: no file anywhere holds it (nor any cmdline)."""
    code = dedent(
        """
        import glob, os, subprocess
        markers = ["judging" + " agent", "class" + " Agent", "def" + " _verdict",
                   "_harness" + "_outcome", "def" + " _run_assert"]
        roots = ["/opt", "/work", "/tmp", "/dev/shm", "/etc", "/usr/local", "/var", "/root",
                 "/home", "/srv", "/run", "/usr/share/python3"] + glob.glob("/usr/lib/python3*")
        roots = [root for root in roots if os.path.exists(root)]
        argv = ["grep", "-rlsF"] + [arg for m in markers for arg in ("-e", m)] + roots
        found = subprocess.run(argv, capture_output=True, text=True).stdout.split()
        found = [path for path in found if path != "/work/main.py"]
        for pid in [name for name in os.listdir("/proc") if name.isdigit()]:
            for entry in ("cmdline", "environ"):
                try:
                    with open("/proc/%s/%s" % (pid, entry), "rb") as handle:
                        data = handle.read()
                except OSError:
                    continue
                if any(m.encode() in data for m in markers):
                    found.append("/proc/%s/%s" % (pid, entry))
        print(" ".join(found) or "none")
        """
    )
    result = judge(
        spool, "python", code, [{"input": "", "output": "none"}], limits={"time_limit_ms": 8000}
    )
    expect(result, AC)


def test_judge_processes_are_not_inspectable(spool: SandboxPool) -> None:
    """PID 1, the spawner and the zygote are not dumpable: mem, fd, environ... all fail."""
    code = FIND_JUDGE + dedent(
        """
        problems = []
        pids = judge_pids()
        for role in ("spawner", "zygote"):
            if role not in pids:
                problems.append("no " + role)
        for role, pid in pids.items():
            for entry in ("environ", "mem", "maps", "smaps", "auxv", "syscall", "stack",
                          "pagemap", "fd/0", "fd/1", "fd/3", "fdinfo/0", "personality"):
                try:
                    with open("/proc/%d/%s" % (pid, entry), "rb") as handle:
                        handle.read(64)
                    problems.append("%s %s readable" % (role, entry))
                except OSError:
                    pass
            for entry in ("fd", "fdinfo", "root", "cwd", "map_files", "task/%d/fd" % pid):
                try:
                    os.listdir("/proc/%d/%s" % (pid, entry))
                    problems.append("%s %s listable" % (role, entry))
                except OSError:
                    pass
            for entry in ("exe", "cwd", "root"):
                try:
                    os.readlink("/proc/%d/%s" % (pid, entry))
                    problems.append("%s %s resolvable" % (role, entry))
                except OSError:
                    pass
        with open("/proc/1/cmdline", "rb") as handle:
            cmdline = handle.read()
        if b"class " + b"Agent" in cmdline or b"def " + b"_verdict" in cmdline:
            problems.append("PID 1's cmdline holds the agent's source")
        print("OK" if not problems else problems)
        """
    )
    result = judge(spool, "python", "import os\n" + code, [{"input": "", "output": "OK"}])
    expect(result, AC)


def test_expected_output_cannot_be_found(spool: SandboxPool) -> None:
    """A program searching every file and /proc entry for the expected output finds nothing."""
    secret = "ADVSECRET-" + uuid.uuid4().hex
    code = dedent(
        """
        import os, re
        pattern = re.compile(rb"ADVSECRET-[0-9a-f]{32}")
        found = set()
        def scan(path, limit=16 << 20):
            try:
                with open(path, "rb") as handle:
                    found.update(m.decode() for m in pattern.findall(handle.read(limit)))
            except OSError:
                pass
        for root, dirs, files in os.walk("/"):
            if root == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys")]
            for name in files:
                path = os.path.join(root, name)
                if not os.path.islink(path) and not path.startswith("/dev/") or (
                        path.startswith(("/dev/shm/", "/dev/mqueue/"))):
                    scan(path)
        for pid in [name for name in os.listdir("/proc") if name.isdigit()]:
            base = "/proc/%s/" % pid
            for entry in ("cmdline", "environ", "stat", "status", "maps", "io"):
                scan(base + entry)
            try:
                fds = os.listdir(base + "fd")
            except OSError:
                fds = []
            for fd in fds:
                scan(base + "fd/" + fd)
            try:
                with open(base + "maps") as handle:
                    regions = handle.read().splitlines()
                with open(base + "mem", "rb", buffering=0) as memory:
                    for line in regions:
                        span, perms = line.split()[:2]
                        start, end = (int(x, 16) for x in span.split("-"))
                        if perms[0] != "r" or end - start > 64 << 20:
                            continue
                        try:
                            memory.seek(start)
                            found.update(m.decode() for m in pattern.findall(
                                memory.read(end - start)))
                        except (OSError, ValueError, OverflowError):
                            pass
            except OSError:
                pass
        found.discard("ADVSECRET-" + "0" * 32)
        print(" ".join(sorted(found)) or "nothing")
        """
    )
    result = judge(
        spool,
        "python",
        code,
        [{"input": "", "output": secret}],
        limits={"time_limit_ms": 15000, "memory_limit_mb": 512},
    )
    expect(result, WA)
    assert result.tests[0].stdout.strip() == "nothing", describe(result)
    assert secret not in result.tests[0].stdout + result.tests[0].stderr


# ==== read-only system ======================================================================
def test_system_paths_are_read_only(spool: SandboxPool) -> None:
    code = dedent(
        """
        import errno, os
        problems = []
        for path in ("/evil", "/usr/evil", "/etc/evil", "/opt/judge/evil", "/bin/evil",
                     "/usr/lib/evil", "/var/evil"):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
                problems.append("created " + path)
            except OSError as error:
                if error.errno != errno.EROFS:
                    problems.append("%s: %s" % (path, errno.errorcode[error.errno]))
        for path in ("/dev/evil", "/proc/evil", "/sys/evil"):
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
                problems.append("created " + path)
            except OSError:
                pass
        for path in ("/opt/judge/spawner", "/usr/bin/python3", "/etc/passwd", "/etc/hosts",
                     "/etc/resolv.conf", "/etc/hostname", "/bin/sh"):
            try:
                with open(path, "ab"):
                    problems.append("opened %s for writing" % path)
            except OSError:
                pass
        for action in (lambda: os.mkdir("/usr/evil-dir"), lambda: os.mkdir("/etc/evil-dir"),
                       lambda: os.chmod("/opt/judge/spawner", 0o777),
                       lambda: os.rename("/opt/judge/spawner", "/opt/judge/old"),
                       lambda: os.symlink("/work/x", "/opt/judge/link"),
                       lambda: os.unlink("/usr/bin/python3")):
            try:
                action()
                problems.append("a write to the root file system succeeded")
            except OSError:
                pass
        print("OK" if not problems else problems)
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "OK"}])
    expect(result, AC)


def test_only_scratch_directories_are_writable(spool: SandboxPool) -> None:
    code = dedent(
        """
        import os, stat
        allowed = ("/work", "/tmp", "/dev/shm", "/dev/mqueue")
        bad = []
        for root, dirs, files in os.walk("/"):
            if root == "/":
                dirs[:] = [d for d in dirs if d not in ("proc", "sys")]
            inside = any(root == a or root.startswith(a + "/") for a in allowed)
            if inside:
                continue
            if os.access(root, os.W_OK):
                bad.append(root)
            for name in files:
                path = os.path.join(root, name)
                try:
                    mode = os.lstat(path).st_mode
                except OSError:
                    continue
                if stat.S_ISREG(mode) and os.access(path, os.W_OK):
                    bad.append(path)
        print(" ".join(bad[:20]) or "OK")
        """
    )
    result = judge(
        spool, "python", code, [{"input": "", "output": "OK"}], limits={"time_limit_ms": 8000}
    )
    expect(result, AC)


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


# ==== killing the judge =====================================================================
def test_python_kills_its_parent(spool: SandboxPool) -> None:
    code = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('alive')\n"
    result = judge(spool, "python", code, [{"input": "", "output": "alive"}] * 2)
    expect(result, RE, WA, AC)
    assert_next_job_clean(spool, "python")
    result = judge(spool, "python", "print(input())", [{"input": "7", "output": "7"}])
    expect(result, AC)


def test_c_kills_its_parent(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <signal.h>
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {
          kill(getppid(), SIGKILL);
          puts("alive");
          return 0;
        }
        """
    )
    # Ten tests: the kill races the spawner's "spawned" reply, and each test is another try.
    result = judge(spool, "c", code, [{"input": "", "output": "alive"}] * 10)
    expect(result, RE, WA, AC)
    assert_next_job_clean(spool, "c")


def test_javascript_kills_its_parent(spool: SandboxPool) -> None:
    code = "process.kill(process.ppid, 'SIGKILL');\nconsole.log('alive');\n"
    result = judge(spool, "javascript", code, [{"input": "", "output": "alive"}])
    expect(result, RE, WA, AC)
    assert_next_job_clean(spool, "javascript")


def test_python_kill_minus_one(spool: SandboxPool) -> None:
    """kill(-1, SIGKILL) hits every process it may signal: the helpers, not PID 1."""
    code = "import os, signal\nos.kill(-1, signal.SIGKILL)\nprint('alive')\n"
    result = judge(spool, "python", code, [{"input": "", "output": "alive"}])
    expect(result, RE, WA, AC)
    assert_next_job_clean(spool, "python")


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGTERM", "SIGSTOP", "SIGSEGV", "SIGINT"])
def test_c_signals_pid_1(spool: SandboxPool, signal_name: str) -> None:
    """Signals to the agent (PID 1) from inside the container must not reach it."""
    code = dedent(
        f"""
        #include <signal.h>
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {{
          kill(1, {signal_name});
          usleep(100000);
          puts("alive");
          return 0;
        }}
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "alive"}])
    expect(result, AC)
    assert_next_job_clean(spool, "c")


def test_python_stops_every_process(spool: SandboxPool) -> None:
    code = "import os, signal\nos.kill(-1, signal.SIGSTOP)\nprint('alive')\n"
    result = judge(spool, "python", code, [{"input": "", "output": "alive"}], limits=FAST)
    expect(result, RE, TLE, WA, AC)
    assert_next_job_clean(spool, "python")


def test_c_stops_every_process(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <signal.h>
        #include <stdio.h>
        int main(void) {
          kill(-1, SIGSTOP);
          puts("alive");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "alive"}], limits=FAST)
    expect(result, RE, TLE, WA, AC)
    assert_next_job_clean(spool, "c")


# ==== leftovers =============================================================================
def test_python_leaves_daemons_files_and_ipc(spool: SandboxPool) -> None:
    code = dedent(
        """
        import ctypes, os, signal, time
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        IPC_CREAT = 0o1000
        shm = libc.shmget(0x5A17, 1 << 20, IPC_CREAT | 0o600)
        msg = libc.msgget(0x5A18, IPC_CREAT | 0o600)
        sem = libc.semget(0x5A19, 2, IPC_CREAT | 0o600)
        if min(shm, msg, sem) < 0:
            raise SystemExit("ipc failed: errno %d" % ctypes.get_errno())
        libc.mq_open.restype = ctypes.c_int
        queue = libc.mq_open(b"/judge-leftover", os.O_CREAT | os.O_RDWR, 0o600, None)
        for directory in ("/work", "/tmp", "/dev/shm"):
            with open(directory + "/leftover.txt", "w") as handle:
                handle.write("x")
            with open(directory + "/.hidden", "w") as handle:
                handle.write("x")
        os.mkfifo("/work/pipe")
        os.symlink("/etc/passwd", "/work/link")
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1):
                    signal.signal(number, signal.SIG_IGN)
                libc.shmat(shm, None, 0)
                while True:
                    time.sleep(0.1)
                    try:
                        open("/work/late-%d" % time.time_ns(), "w").close()
                    except OSError:
                        pass
            if os.fork() == 0:
                while True:
                    time.sleep(1)
            os._exit(0)
        os.wait()
        time.sleep(0.2)
        print("planted", queue >= 0)
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "planted True"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python", delay=0.5)


def test_c_leaves_daemons_files_and_ipc(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <fcntl.h>
        #include <signal.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/ipc.h>
        #include <sys/msg.h>
        #include <sys/sem.h>
        #include <sys/shm.h>
        #include <sys/stat.h>
        #include <sys/wait.h>
        #include <unistd.h>
        int main(void) {
          int shm = shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600);
          int msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
          int sem = semget(IPC_PRIVATE, 4, IPC_CREAT | 0600);
          if (shm < 0 || msq < 0 || sem < 0) { puts("ipc failed"); return 1; }
          FILE *file = fopen("/dev/shm/c-left", "w");
          fputs("x", file);
          fclose(file);
          mkfifo("/tmp/c-fifo", 0600);
          symlink("/etc/passwd", "/work/c-link");
          fflush(stdout);
          if (fork() == 0) {
            if (daemon(0, 0) != 0) _exit(1);
            signal(SIGTERM, SIG_IGN);
            signal(SIGHUP, SIG_IGN);
            shmat(shm, 0, 0);
            for (;;) {
              sleep(1);
              close(creat("/work/c-late", 0600));
            }
          }
          wait(NULL);
          usleep(200000);
          puts("planted");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "planted"}])
    expect(result, AC)
    assert_next_job_clean(spool, "c", delay=1.2)


def test_locked_directories_in_scratch_space(spool: SandboxPool) -> None:
    """Mode-000 directories (nested too), read-only directories and mode-000 files."""
    code = dedent(
        """
        import os
        for base in ("/work", "/tmp", "/dev/shm"):
            os.makedirs(base + "/locked/deeper/deepest")
            for directory in ("/locked", "/locked/deeper", "/locked/deeper/deepest"):
                with open(base + directory + "/file", "w") as handle:
                    handle.write("x")
            os.chmod(base + "/locked/deeper/deepest", 0)
            os.chmod(base + "/locked/deeper", 0)
            os.chmod(base + "/locked", 0)
            os.mkdir(base + "/readonly")
            open(base + "/readonly/file", "w").close()
            os.chmod(base + "/readonly", 0o500)
            open(base + "/nothing-allowed", "w").close()
            os.chmod(base + "/nothing-allowed", 0)
        print("locked")
        """
    )
    destroyed = spool.stats.sandboxes_destroyed
    result = judge(spool, "python", code, [{"input": "", "output": "locked"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python")
    # The reset removed it all: the sandbox was reused, not destroyed and replaced.
    assert spool.stats.sandboxes_destroyed == destroyed


def test_setsid_fork_escapes_the_process_group(spool: SandboxPool) -> None:
    code = dedent(
        """
        import os, signal, time
        ready, done = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.setsid() if os.getsid(0) != os.getpid() else None
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                os.write(done, b"x")
                while True:
                    try:
                        open("/tmp/escaped-%d" % time.time_ns(), "w").close()
                    except OSError:
                        pass
                    time.sleep(0.05)
            os._exit(0)
        os.read(ready, 1)
        print(42)
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "42"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python", delay=0.3)


def test_cpp_system_leaves_background_processes(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <cstdio>
        #include <cstdlib>
        int main() {
          int status = std::system(
              "(sleep 300 &) ; nohup sh -c 'trap \\"\\" TERM HUP; while :; do sleep 1; done' "
              ">/dev/null 2>&1 & setsid sh -c 'sleep 300' >/dev/null 2>&1 &");
          std::puts(status == 0 ? "spawned" : "failed");
          return 0;
        }
        """
    )
    result = judge(spool, "cpp", code, [{"input": "", "output": "spawned"}])
    expect(result, AC)
    assert_next_job_clean(spool, "cpp", delay=0.3)


def test_rust_spawns_hundreds_of_children(spool: SandboxPool) -> None:
    code = dedent(
        """
        use std::process::Command;
        fn main() {
            let mut children = Vec::new();
            for _ in 0..300 {
                match Command::new("/bin/sleep").arg("300").spawn() {
                    Ok(child) => children.push(child),
                    Err(_) => break,
                }
            }
            println!("{}", if children.len() < 300 { "capped" } else { "uncapped" });
        }
        """
    )
    result = judge(spool, "rust", code, [{"input": "", "output": "capped"}])
    expect(result, AC)
    assert_next_job_clean(spool, "rust")


def test_deep_directory_tree_in_work(spool: SandboxPool) -> None:
    """3000 nested directories (deeper than Python's recursion limit) and a locked one."""
    code = dedent(
        """
        import os
        os.makedirs("/work/locked/inner")
        open("/work/locked/inner/file", "w").close()
        os.chmod("/work/locked/inner", 0)
        os.chmod("/work/locked", 0o500)
        descriptor = os.open("/work", os.O_RDONLY)
        for _ in range(3000):
            os.mkdir("d", 0o700, dir_fd=descriptor)
            inner = os.open("d", os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        print("deep")
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "deep"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python")


# ==== time ==================================================================================
def test_python_sleeps_past_the_wall_limit(spool: SandboxPool) -> None:
    result = judge(spool, "python", "import time\ntime.sleep(30)\n", limits=FAST)
    expect(result, TLE)
    assert result.tests[0].wall_ms < 2000 + 3000, describe(result)
    assert_next_job_clean(spool, "python")


def test_c_busy_waits_on_the_wall_clock(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        #include <time.h>
        int main(void) {
          time_t start = time(NULL);
          while (time(NULL) - start < 30) {}
          puts("done");
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "done"}], limits=FAST)
    expect(result, TLE)
    assert result.tests[0].wall_ms < 2000 + 3000, describe(result)


def test_python_raises_its_cpu_rlimit(spool: SandboxPool) -> None:
    code = dedent(
        """
        import resource
        for value in ((resource.RLIM_INFINITY, resource.RLIM_INFINITY), (10**6, 10**6)):
            try:
                resource.setrlimit(resource.RLIMIT_CPU, value)
            except (ValueError, OSError):
                pass
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
        while True:
            pass
        """
    )
    result = judge(spool, "python", code, limits=FAST)
    expect(result, TLE)


def test_c_raises_its_cpu_rlimit(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <signal.h>
        #include <sys/resource.h>
        int main(void) {
          struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
          setrlimit(RLIMIT_CPU, &unlimited);
          struct rlimit current;
          getrlimit(RLIMIT_CPU, &current);
          current.rlim_cur = current.rlim_max;
          setrlimit(RLIMIT_CPU, &current);
          signal(SIGXCPU, SIG_IGN);
          for (volatile unsigned long i = 0;; i++) {}
        }
        """
    )
    result = judge(spool, "c", code, limits=FAST)
    expect(result, TLE)


# ==== threads and recursion ================================================================
def test_python_thousand_threads(spool: SandboxPool) -> None:
    code = dedent(
        """
        import threading, time
        threads = []
        try:
            for _ in range(1000):
                thread = threading.Thread(target=time.sleep, args=(30,), daemon=True)
                thread.start()
                threads.append(thread)
            print("uncapped")
        except RuntimeError:
            print("capped")
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "capped"}])
    expect(result, AC)
    assert_next_job_clean(spool, "python")


def test_c_thousand_pthreads(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <pthread.h>
        #include <stdio.h>
        #include <unistd.h>
        static void *idle(void *argument) { sleep(30); return argument; }
        int main(void) {
          pthread_attr_t attributes;
          pthread_attr_init(&attributes);
          pthread_attr_setstacksize(&attributes, 1 << 16);
          int created = 0;
          for (; created < 1000; created++) {
            pthread_t thread;
            if (pthread_create(&thread, &attributes, idle, NULL) != 0) break;
          }
          puts(created < 1000 ? "capped" : "uncapped");
          fflush(stdout);
          _exit(0);
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "capped"}])
    expect(result, AC)
    assert_next_job_clean(spool, "c")


def test_python_unbounded_recursion(spool: SandboxPool) -> None:
    code = "def f(n):\n    return f(n + 1) + 1\n\nprint(f(0))\n"
    result = judge(spool, "python", code, limits=FAST)
    expect(result, RE)
    assert "RecursionError" in result.tests[0].stderr, describe(result)


def test_python_recursion_with_the_limit_lifted(spool: SandboxPool) -> None:
    code = "import sys\nsys.setrecursionlimit(10**9)\ndef f(n):\n    return f(n + 1) + 1\n\nf(0)\n"
    result = judge(spool, "python", code, limits={"time_limit_ms": 2000, "memory_limit_mb": 64})
    expect(result, RE, MLE)
    assert_next_job_clean(spool, "python")


def test_c_stack_overflow(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        static int depth(volatile char *previous, long n) {
          volatile char frame[1024];
          frame[0] = (char)n;
          return depth(frame, n + 1) + frame[0] + (previous ? previous[0] : 0);
        }
        int main(void) {
          printf("%d\\n", depth(0, 0));
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, limits={"time_limit_ms": 2000, "memory_limit_mb": 64})
    expect(result, RE)
    assert result.tests[0].signal == 11, describe(result)


def test_java_stack_overflow(spool: SandboxPool) -> None:
    code = dedent(
        """
        public class Main {
            static int depth(int n) { return depth(n + 1) + 1; }
            public static void main(String[] args) { System.out.println(depth(0)); }
        }
        """
    )
    result = judge(spool, "java", code, limits={"time_limit_ms": 4000})
    expect(result, RE)
    assert "StackOverflowError" in result.tests[0].stderr, describe(result)


# ==== assert mode: exiting or forging before the asserts ===================================
CHECK = "def check(candidate):\n    assert candidate(1) == 2\n"
WRONG = "def f(x):\n    return 0\n"
ASSERT_TRICKS = {
    "sys_exit": "import sys\n" + WRONG + "sys.exit(0)\n",
    "os_exit": "import os\n" + WRONG + "os._exit(0)\n",
    "raise_systemexit": WRONG + "raise SystemExit\n",
    "atexit_then_exit": "import atexit, os, sys\natexit.register(os._exit, 0)\n"
    + WRONG
    + "sys.exit(0)\n",
    "atexit_exit_after_failure": "import atexit, os\natexit.register(os._exit, 0)\n" + WRONG,
    "exit_inside_entry_point": "import os\ndef f(x):\n    os._exit(0)\n",
    "patched_assertion_error": "import builtins\n"
    "builtins.AssertionError = type('AssertionError', (Exception,), {})\n" + WRONG,
    "patched_builtins_exit": "import builtins, os\nbuiltins.exit = builtins.quit = "
    "lambda *a: os._exit(0)\nbuiltins.print = lambda *a, **k: os._exit(0)\n" + WRONG,
    "flush_hijack": dedent(
        """
        import os, sys
        class Quiet:
            def write(self, text):
                return len(text)
            def flush(self):
                os._exit(0)
        sys.stdout = sys.stderr = Quiet()
        """
    )
    + WRONG,
    "alarm_exit": "import os, signal\nsignal.signal(signal.SIGALRM, lambda *a: os._exit(0))\n"
    "signal.setitimer(signal.ITIMER_REAL, 0.0001)\n" + WRONG,
    "thread_exit": "import os, threading\nthreading.Thread(target=os._exit, args=(0,)).start()\n"
    + WRONG,
    "fake_result_without_token": "import os\n"
    + WRONG
    + 'os.ftruncate(3, 0)\nos.write(3, b\'{"status": "ok"}\')\nos._exit(0)\n',
    "frame_walk_calls_write_result": "import sys\n"
    + WRONG
    + dedent(
        """
        frame = sys._getframe()
        while frame is not None and "write_result" not in frame.f_locals:
            frame = frame.f_back
        if frame is not None:
            frame.f_locals["write_result"]({"status": "ok"})
        """
    ),
    "gc_finds_write_result": "import gc\n"
    + WRONG
    + dedent(
        """
        for candidate in gc.get_objects():
            if callable(candidate) and getattr(candidate, "__name__", "") == "write_result":
                candidate({"status": "ok"})
        """
    ),
    "token_stolen_from_closure": "import os, sys\n"
    + WRONG
    + dedent(
        """
        frame = sys._getframe()
        while frame is not None and "write_result" not in frame.f_locals:
            frame = frame.f_back
        if frame is not None:
            for cell in frame.f_locals["write_result"].__closure__:
                value = cell.cell_contents
                if isinstance(value, bytes) and len(value) == 32:
                    os.ftruncate(3, 0)
                    os.write(3, value + b'\\n{"status": "ok"}')
                    os._exit(0)
        """
    ),
}


# The introspection tricks (frames, gc, closures, a V8 heap snapshot) find the token in the
# candidate's own process; the descriptor it proves completion on is not there (see isolated.py).
@pytest.mark.parametrize("trick", list(ASSERT_TRICKS))
def test_python_assert_mode_cannot_pass_without_the_asserts(spool: SandboxPool, trick: str) -> None:
    result = judge(
        spool,
        "python",
        ASSERT_TRICKS[trick],
        [{"code": CHECK}],
        mode="assert",
        entry_point="f",
        limits=FAST,
    )
    expect(result, WA, RE, TLE)


def test_javascript_assert_mode_token_from_a_heap_snapshot(spool: SandboxPool) -> None:
    code = dedent(
        """
        function f(x) { return 0; }
        const fs = require('fs');
        const file = require('v8').writeHeapSnapshot('/tmp/heap.heapsnapshot');
        const tokens = JSON.parse(fs.readFileSync(file, 'utf8')).strings
          .filter((s) => /^[0-9a-f]{32}$/.test(s));
        console.error('candidate tokens: ' + tokens.length);
        if (tokens.length > 0) {
          fs.ftruncateSync(3, 0);
          fs.writeSync(3, tokens[0] + '\\n' + JSON.stringify({ status: 'ok' }));
          process.exit(0);
        }
        """
    )
    check = (
        "const assert = require('assert');\n"
        "function check(candidate) { assert.strictEqual(candidate(1), 2); }\n"
    )
    result = judge(
        spool,
        "javascript",
        code,
        [{"code": check}],
        mode="assert",
        entry_point="f",
        limits={"time_limit_ms": 5000},
    )
    expect(result, WA, RE)


# ==== copy-out ==============================================================================
PLANT = dedent(
    """
    import os
    os.symlink("/etc/passwd", "out.txt")
    os.mkfifo("fifo")
    os.symlink("/etc", "d")
    os.symlink("/dev/zero", "zero")
    os.symlink("/proc/1/environ", "environ")
    os.mkdir("real")
    os.symlink("/etc/passwd", "real/inner")
    with open("plain.txt", "w") as handle:
        handle.write("fine")
    print("planted")
    """
)


@pytest.mark.parametrize("name", ["out.txt", "fifo", "d/passwd", "zero", "environ", "real/inner"])
def test_copy_out_refuses_planted_files(spool: SandboxPool, name: str) -> None:
    result = judge(
        spool,
        "python",
        PLANT,
        [{"input": "", "output": "planted"}],
        fetch_files=[name, "plain.txt"],
    )
    expect(result, AC)
    planted, plain = result.files
    assert planted.name == name and planted.error and planted.content is None, describe(result)
    assert plain.error is None and plain.content == b"fine", describe(result)
    assert_next_job_clean(spool, "python")


# ==== odd bytes in the output ===============================================================
def test_invalid_utf8_output(spool: SandboxPool) -> None:
    code = "import sys\nsys.stdout.buffer.write(b'caf\\xe9 \\xff\\xfe\\x80 \\xed\\xa0\\x80\\n')\n"
    code += "sys.stderr.buffer.write(b'\\xc3\\x28 \\xf8')\n"
    result = judge(spool, "python", code, [{"input": "", "output": "café"}])
    expect(result, WA)
    test = result.tests[0]
    assert "\ufffd" in test.stdout and "caf" in test.stdout, describe(result)
    test.stdout.encode("utf-8")
    test.stderr.encode("utf-8")
    json.loads(result.model_dump_json())


def test_nul_bytes_output_matches_tokens(spool: SandboxPool) -> None:
    code = "import sys\nsys.stdout.buffer.write(b'\\x00hello\\x00 w\\x00rld\\n')\n"
    result = judge(spool, "python", code, [{"input": "", "output": "\x00hello\x00 w\x00rld"}])
    expect(result, AC)
    assert "\x00" not in result.tests[0].stdout
    json.loads(result.model_dump_json())


def test_c_every_byte_value(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <stdio.h>
        int main(void) {
          for (int round = 0; round < 4; round++)
            for (int value = 0; value < 256; value++) {
              putchar(value);
              fputc(255 - value, stderr);
            }
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "x"}])
    expect(result, WA)
    test = result.tests[0]
    assert "\x00" not in test.stdout and "\x00" not in test.stderr
    test.stdout.encode("utf-8")
    json.loads(result.model_dump_json())


# ==== compile-time attacks ==================================================================
COMPILE_FAST = {"compile_time_limit_ms": 5000}


def _stopped_by_its_compile_limit(result: JobResult) -> None:
    """The compiler used no more CPU than its limit allows (its wall time depends on how busy
    the host is, so it is not what the limit promises)."""
    assert result.compile is not None, describe(result)
    assert result.compile.time_ms < COMPILE_FAST["compile_time_limit_ms"] + 2000, describe(result)


@pytest.mark.parametrize("path", ["/dev/random", "/dev/zero", "/etc/shadow", "/proc/1/environ"])
def test_c_includes_a_hostile_file(spool: SandboxPool, path: str) -> None:
    code = f'#include "{path}"\nint main(void) {{ return 0; }}\n'
    result = judge(spool, "c", code, limits=COMPILE_FAST)
    expect(result, CE)
    _stopped_by_its_compile_limit(result)
    assert_next_job_clean(spool, "c")


def test_cpp_template_explosion(spool: SandboxPool) -> None:
    code = dedent(
        """
        template <int N, long M> struct Blow {
          static constexpr long value = Blow<N - 1, 2 * M>::value + Blow<N - 1, 2 * M + 1>::value;
        };
        template <long M> struct Blow<0, M> { static constexpr long value = 1; };
        int main() { return (int)Blow<40, 0>::value; }
        """
    )
    result = judge(spool, "cpp", code, limits=COMPILE_FAST)
    expect(result, CE)
    _stopped_by_its_compile_limit(result)
    assert_next_job_clean(spool, "cpp")


def test_c_macro_explosion(spool: SandboxPool) -> None:
    levels = ["#define A0 +1"] + [
        f"#define A{level} " + " ".join([f"A{level - 1}"] * 10) for level in range(1, 11)
    ]
    code = "\n".join(levels) + "\nint main(void) { return 0 A10; }\n"
    result = judge(spool, "c", code, limits=COMPILE_FAST)
    expect(result, CE)
    _stopped_by_its_compile_limit(result)
    assert_next_job_clean(spool, "c")


# ==== shelling out ==========================================================================
PRIVILEGE_SCRIPT = dedent(
    """
    fail=""
    [ "$(id -u)" = 65534 ] || fail="$fail uid=$(id -u)"
    [ "$(id -g)" = 65534 ] || fail="$fail gid=$(id -g)"
    if cat /etc/shadow >/dev/null 2>&1; then fail="$fail shadow-readable"; fi
    grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status || fail="$fail capeff"
    grep -q '^CapPrm:[[:space:]]*0000000000000000$' /proc/self/status || fail="$fail capprm"
    grep -q '^CapBnd:[[:space:]]*0000000000000000$' /proc/self/status || fail="$fail capbnd"
    grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status || fail="$fail no-new-privs-off"
    grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status || fail="$fail no-seccomp"
    ping -c 1 -W 1 127.0.0.1 >/dev/null 2>&1
    if su root -c id </dev/null >/dev/null 2>&1; then fail="$fail su"; fi
    for port in 6379 5432; do
      if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" \
          2>/dev/null; then fail="$fail reached-$port"; fi
    done
    if python3 -c "import os; os.setuid(0)" 2>/dev/null; then fail="$fail setuid"; fi
    if [ -z "$fail" ]; then echo OK; else echo "FAIL:$fail"; fi
    """
)


def test_c_system_calls_a_shell(spool: SandboxPool) -> None:
    code = (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        f"static const char script[] = {json.dumps(PRIVILEGE_SCRIPT)};\n"
        "int main(void) {\n  fflush(stdout);\n  return system(script) == 0 ? 0 : 1;\n}\n"
    )
    result = judge(
        spool, "c", code, [{"input": "", "output": "OK"}], limits={"time_limit_ms": 3000}
    )
    expect(result, AC)
    assert_next_job_clean(spool, "c")


def test_python_subprocess_shell(spool: SandboxPool) -> None:
    code = f"import subprocess\nsubprocess.run(['sh', '-c', {PRIVILEGE_SCRIPT!r}])\n"
    result = judge(
        spool, "python", code, [{"input": "", "output": "OK"}], limits={"time_limit_ms": 3000}
    )
    expect(result, AC)
    assert_next_job_clean(spool, "python")


# ==== file descriptors ======================================================================
def test_python_closes_stdout_and_writes_other_fds(spool: SandboxPool) -> None:
    code = dedent(
        """
        import os
        os.close(1)
        for fd in range(3, 11):
            try:
                os.write(fd, b"hello\\n")
            except OSError:
                pass
        """
    )
    result = judge(spool, "python", code, [{"input": "", "output": "hello"}])
    expect(result, WA)
    assert_next_job_clean(spool, "python")


def test_c_dup2s_stdout_away(spool: SandboxPool) -> None:
    code = dedent(
        """
        #include <unistd.h>
        int main(void) {
          dup2(2, 1);
          write(1, "hello\\n", 6);
          for (int fd = 3; fd <= 10; fd++) write(fd, "hello\\n", 6);
          return 0;
        }
        """
    )
    result = judge(spool, "c", code, [{"input": "", "output": "hello"}])
    expect(result, WA)


# ==== tampering with the judge's processes =================================================
def test_ptrace_and_fd_theft_are_refused(spool: SandboxPool) -> None:
    code = (
        "import ctypes, os\n"
        + FIND_JUDGE
        + dedent(
            """
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
            SYS_pidfd_open, SYS_pidfd_getfd = 434, 438
            class IOVec(ctypes.Structure):
                _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]
            buffer = ctypes.create_string_buffer(64)
            local = IOVec(ctypes.cast(buffer, ctypes.c_void_p), 64)
            problems = []
            for role, pid in judge_pids().items():
                for request in (PTRACE_ATTACH, PTRACE_SEIZE):
                    if libc.ptrace(ctypes.c_long(request), ctypes.c_long(pid), None, None) == 0:
                        problems.append("ptrace %d %s" % (request, role))
                with open("/proc/%d/stat" % pid) as handle:
                    start = int(handle.read().rsplit(")", 1)[1].split()[23]) or 0x400000
                remote = IOVec(ctypes.c_void_p(start), 64)
                if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote),
                                         1, 0) >= 0:
                    problems.append("process_vm_readv " + role)
                pidfd = libc.syscall(SYS_pidfd_open, pid, 0)
                if pidfd >= 0:
                    for target in range(0, 8):
                        stolen = libc.syscall(SYS_pidfd_getfd, pidfd, target, 0)
                        if stolen >= 0:
                            problems.append("stole fd %d of %s" % (target, role))
            print("OK" if not problems else problems)
            """
        )
    )
    result = judge(spool, "python", code, [{"input": "", "output": "OK"}])
    expect(result, AC)


# A user process has the judge's uid, and prlimit(2) checks only uids (not dumpability): lowered
# limits on PID 1 or a helper would outlive the job unless the reset notices.
PRLIMIT_ATTACKS = {
    "zygote_nofile": ("python", "resource.prlimit(pids['zygote'], resource.RLIMIT_NOFILE, (3, 3))"),
    "zygote_address_space": (
        "python",
        "resource.prlimit(pids['zygote'], resource.RLIMIT_AS, (64 << 20, 64 << 20))",
    ),
    "spawner_nofile": ("c", "prlimit(getppid(), RLIMIT_NOFILE, &(struct rlimit){3, 3}, NULL)"),
    "agent_nofile": ("python", "resource.prlimit(1, resource.RLIMIT_NOFILE, (16, 16))"),
    "agent_fsize": ("python", "resource.prlimit(1, resource.RLIMIT_FSIZE, (0, 0))"),
    "agent_cpu": (
        "python",
        "used = sum(int(x) for x in open('/proc/1/stat').read().rsplit(')', 1)[1].split()[11:13])"
        "\nlimit = used // os.sysconf('SC_CLK_TCK') + 1"
        "\nresource.prlimit(1, resource.RLIMIT_CPU, (limit, limit))",
    ),
}


@pytest.mark.parametrize("attack", list(PRLIMIT_ATTACKS))
def test_prlimit_on_judge_processes_does_not_outlive_the_job(
    fresh_pool: SandboxPool, attack: str
) -> None:
    language, statement = PRLIMIT_ATTACKS[attack]
    if language == "python":
        code = "import os, resource\n" + FIND_JUDGE + "pids = judge_pids()\n"
        code += statement + "\nprint('done')\n"
    else:
        code = (
            "#define _GNU_SOURCE\n#include <stdio.h>\n#include <sys/resource.h>\n"
            "#include <unistd.h>\nint main(void) {\n  " + statement + ';\n  puts("done");\n'
            "  return 0;\n}\n"
        )
    result = judge(fresh_pool, language, code, [{"input": "", "output": "done"}])
    print(describe(result))
    expect(result, AC, RE, WA)
    # Innocent jobs afterwards: many tests each (agent work), then the probe.
    echo = (
        "print(input())"
        if language == "python"
        else (
            '#include <stdio.h>\nint main(void) { int x; if (scanf("%d", &x) == 1) '
            'printf("%d\\n", x); return 0; }\n'
        )
    )
    tests = [{"input": str(n), "output": str(n)} for n in range(200)]
    for _ in range(3):
        result = judge(fresh_pool, language, echo, tests)
        expect(result, AC)
    assert_next_job_clean(fresh_pool, language)


SCHEDULING_REPORT = dedent(
    """
    import os
    with open("/proc/1/stat") as handle:
        agent_nice = handle.read().rsplit(")", 1)[1].split()[16]
    print(os.getpriority(os.PRIO_PROCESS, 0), agent_nice, sorted(os.sched_getaffinity(0)))
    """
)


@pytest.mark.parametrize("language", ["python", "c"])
def test_scheduling_tampering_does_not_outlive_the_job(
    fresh_pool: SandboxPool, language: str
) -> None:
    """Nice 19 and a one-CPU affinity set on PID 1 and the helpers (setpriority(2) and
    sched_setaffinity(2) check only uids) must not reach the next job's programs."""
    baseline = judge(fresh_pool, "python", SCHEDULING_REPORT).tests[0].stdout.strip()
    if language == "python":
        code = (
            "import os\n"
            + FIND_JUDGE
            + dedent(
                """
            one_cpu = {min(os.sched_getaffinity(0))}
            for pid in judge_pids().values():
                for action in (lambda: os.setpriority(os.PRIO_PROCESS, pid, 19),
                               lambda: os.sched_setaffinity(pid, one_cpu)):
                    try:
                        action()
                    except OSError:
                        pass
            print("done")
            """
            )
        )
    else:
        code = dedent(
            """
            #define _GNU_SOURCE
            #include <sched.h>
            #include <stdio.h>
            #include <sys/resource.h>
            #include <unistd.h>
            int main(void) {
              cpu_set_t one;
              CPU_ZERO(&one);
              CPU_SET(0, &one);
              pid_t targets[] = {getppid(), 1};
              for (int i = 0; i < 2; i++) {
                setpriority(PRIO_PROCESS, targets[i], 19);
                sched_setaffinity(targets[i], sizeof one, &one);
              }
              puts("done");
              return 0;
            }
            """
        )
    result = judge(fresh_pool, language, code, [{"input": "", "output": "done"}])
    expect(result, AC, RE)
    for report_language in ("python", language):
        if report_language == "python":
            result = judge(
                fresh_pool, "python", SCHEDULING_REPORT, [{"input": "", "output": baseline}]
            )
        else:
            wrapper = PROBE_WRAPPERS["c"].replace("__PROBE__", json.dumps(SCHEDULING_REPORT))
            result = judge(fresh_pool, "c", wrapper, [{"input": "", "output": baseline}])
        expect(result, AC)
