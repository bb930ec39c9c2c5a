"""Attacks on the judge's processes and what a program leaves behind.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import json

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    FAST,
    FIND_JUDGE,
    PROBE_WRAPPERS,
    RE,
    TLE,
    WA,
    assert_next_job_clean,
    dedent,
    describe,
    expect,
    judge,
)

pytestmark = pytest.mark.integration


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
        agent = handle.read().rsplit(")", 1)[1].split()
    print(os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0), agent[16], agent[38],
          sorted(os.sched_getaffinity(0)))
    """
)
# What each attack does to a judge process (pid), in Python and in C.
SCHEDULING_ATTACKS = {
    "nice-and-affinity": (
        "os.setpriority(os.PRIO_PROCESS, pid, 19)",
        "os.sched_setaffinity(pid, {min(os.sched_getaffinity(0))})",
        "setpriority(PRIO_PROCESS, targets[i], 19);"
        " sched_setaffinity(targets[i], sizeof one, &one);",
    ),
    "sched-idle": (
        "os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))",
        "None",
        "sched_setscheduler(targets[i], SCHED_IDLE, &zero);",
    ),
}


@pytest.mark.parametrize("attack", list(SCHEDULING_ATTACKS))
@pytest.mark.parametrize("language", ["python", "c"])
def test_scheduling_tampering_does_not_outlive_the_job(
    fresh_pool: SandboxPool, language: str, attack: str
) -> None:
    """Nice 19, a one-CPU affinity or SCHED_IDLE set on PID 1 and the helpers (setpriority(2),
    sched_setaffinity(2) and sched_setscheduler(2) check only uids) must not reach the next
    job's programs."""
    first, second, in_c = SCHEDULING_ATTACKS[attack]
    baseline = judge(fresh_pool, "python", SCHEDULING_REPORT).tests[0].stdout.strip()
    if language == "python":
        code = (
            "import os\n"
            + FIND_JUDGE
            + dedent(
                f"""
            for pid in judge_pids().values():
                for action in (lambda: {first}, lambda: {second}):
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
              struct sched_param zero = {0};
              (void)zero;
              pid_t targets[] = {getppid(), 1};
              for (int i = 0; i < 2; i++) {
                __ATTACK__
              }
              puts("done");
              return 0;
            }
            """
        ).replace("__ATTACK__", in_c)
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
