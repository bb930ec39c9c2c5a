"""Memory the kernel holds for a program: extended attributes, inodes, socket buffers.

None of it is in any process's resident set, and all of it is charged to the sandbox's memory
cgroup: a program with a tiny RSS could hold hundreds of MB there, pass a 64 MB limit, and drive
the container to its cap, where the OOM killer took the judge's agent (PID 1) and a wrong answer
became a system error (no reward instead of zero). Now the kernel memory a test adds is the
test's memory (MLE), the tmpfs mounts cap their inodes and xattrs at the source (so some
attacks end with the wrong answer they printed: WA), the program is the OOM killer's first
choice (oom_score_adj 1000), and the next job in the sandbox is clean.
"""

from __future__ import annotations

import threading
import time

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    MLE,
    RE,
    WA,
    assert_next_job_clean,
    dedent,
    describe,
    expect,
    judge,
)

pytestmark = pytest.mark.integration

LIMITS = {"memory_limit_mb": 64, "time_limit_ms": 4000}
# Every attack prints 41; the answer is 42 (the socket attacks print 42: see there).
WRONG = [{"input": "", "output": "42"}]
C_HELLO = '#include <stdio.h>\nint main(void) { puts("42"); return 0; }\n'

# ---- extended attributes: 64 KB values on as many files as the kernel takes -----------------
C_XATTRS = dedent(
    """
    #include <fcntl.h>
    #include <stdio.h>
    #include <string.h>
    #include <sys/xattr.h>
    #include <unistd.h>
    static char value[65536];
    int main(void) {
        memset(value, 'x', sizeof value);
        printf("41\\n");
        fflush(stdout);
        const char *dirs[] = {"/work", "/tmp", "/dev/shm"};
        for (int d = 0; d < 3; d++) {
            for (int i = 0;; i++) {
                char path[64], name[32];
                snprintf(path, sizeof path, "%s/x%d", dirs[d], i);
                int fd = open(path, O_CREAT | O_WRONLY, 0600);
                if (fd < 0) break;
                close(fd);
                int attached = 0;
                for (int j = 0; j < 16; j++, attached++) {
                    snprintf(name, sizeof name, "user.x%d", j);
                    if (setxattr(path, name, value, sizeof value, 0) != 0) break;
                }
                if (!attached) break;
            }
        }
        sleep(1);
        return 0;
    }
    """
)

# setxattr is system call 188 on x86_64; Perl passes its strings' buffers as pointers.
PERL_XATTRS = dedent(
    """
    use strict;
    $| = 1;
    print "41\\n";
    my $value = "x" x 65536;
    for my $dir ("/work", "/tmp", "/dev/shm") {
        for (my $i = 0; ; $i++) {
            my $path = "$dir/x$i";
            open(my $fh, ">", $path) or last;
            close($fh);
            my $name = "user.x";
            last if syscall(188, $path, $name, $value, length($value), 0) != 0;
        }
    }
    sleep 1;
    """
)

FORTRAN_XATTRS = dedent(
    """
    program main
      use iso_c_binding
      implicit none
      interface
        integer(c_int) function setxattr(path, name, value, size, flags) bind(C, name="setxattr")
          import :: c_char, c_int, c_size_t
          character(kind=c_char), dimension(*) :: path, name, value
          integer(c_size_t), value :: size
          integer(c_int), value :: flags
        end function setxattr
      end interface
      character(len=65536) :: value
      character(len=64) :: path
      integer :: i, unit, rc
      value = repeat('x', 65536)
      print '(a)', '41'
      flush(6)
      do i = 1, 1000000
        write(path, '(a,i0)') '/work/x', i
        open(newunit=unit, file=trim(path), status='replace', iostat=rc)
        if (rc /= 0) exit
        close(unit)
        rc = setxattr(trim(path)//c_null_char, 'user.x'//c_null_char, value, &
                      int(65536, c_size_t), 0_c_int)
        if (rc /= 0) exit
      end do
      call sleep(1)
    end program main
    """
)


@pytest.mark.parametrize(
    ("language", "code"),
    [("c", C_XATTRS), ("perl", PERL_XATTRS), ("fortran", FORTRAN_XATTRS)],
)
def test_extended_attributes_are_the_tests_memory(
    spool: SandboxPool, language: str, code: str
) -> None:
    result = judge(spool, language, code, WRONG, limits=LIMITS)
    expect(result, MLE, WA)
    assert_next_job_clean(spool, language)


# ---- inodes: empty files and directories until the kernel refuses -----------------------------
C_INODES = dedent(
    """
    #include <fcntl.h>
    #include <stdio.h>
    #include <unistd.h>
    int main(void) {
        printf("41\\n");
        fflush(stdout);
        const char *dirs[] = {"/work", "/tmp", "/dev/shm"};
        for (int d = 0; d < 3; d++) {
            for (int i = 0; i < 1000000; i++) {
                char path[64];
                snprintf(path, sizeof path, "%s/f%d", dirs[d], i);
                int fd = open(path, O_CREAT | O_WRONLY, 0600);
                if (fd < 0) break;
                close(fd);
            }
        }
        sleep(1);
        return 0;
    }
    """
)

PYTHON_INODES = dedent(
    """
    import os, time
    print(41, flush=True)
    for root in ("/work", "/tmp", "/dev/shm"):
        try:
            for i in range(1000000):
                os.mkdir(f"{root}/d{i}")
                os.symlink("/nowhere", f"{root}/d{i}/link")
        except OSError:
            pass
    time.sleep(1)
    """
)


@pytest.mark.parametrize(("language", "code"), [("c", C_INODES), ("python", PYTHON_INODES)])
def test_an_inode_flood_is_capped_and_counted(spool: SandboxPool, language: str, code: str) -> None:
    result = judge(spool, language, code, WRONG, limits=LIMITS)
    expect(result, MLE, WA)
    assert_next_job_clean(spool, language)


# ---- socket buffers: full Unix socket pairs, in many processes ---------------------------------
# These print the right answer: socket buffers are capped by no mount, so a test holding 64 MB
# and more of them must be MLE (it was AC: the memory showed in no RSS).
C_SOCKETS = dedent(
    """
    #include <fcntl.h>
    #include <stdio.h>
    #include <sys/socket.h>
    #include <unistd.h>
    static char chunk[65536];
    static void fill(void) {
        for (;;) {
            int pair[2];
            if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return;
            for (int side = 0; side < 2; side++) {
                fcntl(pair[side], F_SETFL, O_NONBLOCK);
                while (write(pair[side], chunk, sizeof chunk) > 0) {}
            }
        }
    }
    int main(void) {
        printf("42\\n");
        fflush(stdout);
        for (int i = 0; i < 12; i++)
            if (fork() == 0) { fill(); sleep(2); return 0; }
        fill();
        sleep(2);
        return 0;
    }
    """
)

PYTHON_SOCKETS = dedent(
    """
    import os, socket, time
    print(42, flush=True)
    held = []
    for _ in range(8):
        if os.fork() == 0:
            break
    try:
        while True:
            pair = socket.socketpair()
            held.append(pair)
            for side in pair:
                side.setblocking(False)
                try:
                    while True:
                        side.send(b"x" * 65536)
                except BlockingIOError:
                    pass
    except OSError:
        pass
    time.sleep(2)
    """
)


@pytest.mark.parametrize(("language", "code"), [("c", C_SOCKETS), ("python", PYTHON_SOCKETS)])
def test_socket_buffers_are_the_tests_memory(spool: SandboxPool, language: str, code: str) -> None:
    result = judge(spool, language, code, WRONG, limits=LIMITS)
    expect(result, MLE)
    assert result.tests[0].memory_kb > 64 << 10, describe(result)
    assert_next_job_clean(spool, language)


def test_a_program_within_its_limit_is_still_accepted(spool: SandboxPool) -> None:
    """A few files with small xattrs and one socket pair: kernel memory well under the limit."""
    code = dedent(
        """
        import os, socket
        for i in range(50):
            path = f"/work/f{i}"
            open(path, "w").close()
            os.setxattr(path, "user.note", b"x" * 256)
        a, b = socket.socketpair()
        a.sendall(b"y" * 4096)
        print(42)
        """
    )
    result = judge(spool, "python", code, WRONG, limits=LIMITS)
    expect(result, AC)


# ---- the host: three attacks at once cost about their limits -----------------------------------
# What three 64 MB jobs may take from the host beyond their limits: their processes' kernel
# memory the watch had not yet seen when it stopped them (it samples every 2-20 ms), and the
# sandboxes' own activity.
MARGIN_MB = 3 * 64


def _available_mb() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no MemAvailable in /proc/meminfo")


def test_three_attacks_at_once_cost_the_host_about_their_limits() -> None:
    with SandboxPool(SandboxConfig(sandboxes_per_language=3)) as pool:
        warmed = pool.judge_many([Job(language="c", code=C_HELLO, tests=WRONG)] * 3, workers=3)
        assert [result.verdict for result in warmed] == [AC] * 3
        before = _available_mb()
        lowest = [before]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                lowest[0] = min(lowest[0], _available_mb())
                time.sleep(0.005)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            attacks = [
                Job(language="c", code=code, tests=WRONG, limits=LIMITS)
                for code in (C_SOCKETS, C_XATTRS, C_SOCKETS)
            ]
            results = pool.judge_many(attacks, workers=3)
        finally:
            stop.set()
            sampler.join()
        for result in results:
            expect(result, MLE, WA)
        fallen = before - lowest[0]
        allowed = 3 * LIMITS["memory_limit_mb"] + MARGIN_MB
        assert fallen <= allowed, f"MemAvailable fell {fallen} MB (allowed {allowed} MB)"


# ---- TCP buffers: loopback connections left unread ---------------------------------------------
# A cgroup v1 host charges TCP buffers to no memory cgroup (911 MB held this way under a 64 MB
# limit was AC). IPv4 and IPv6 sockets are refused in the sandboxes (the agent's seccomp filter):
# the program holds nothing there, and says so.
PYTHON_TCP = dedent(
    """
    import socket
    held = 0
    try:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(256)
        port = server.getsockname()[1]
        pairs = []
        for _ in range(120):
            client = socket.create_connection(("127.0.0.1", port))
            pairs.append((client, server.accept()[0]))
            client.setblocking(False)
            try:
                while True:
                    held += client.send(b"x" * 65536)
            except BlockingIOError:
                pass
    except OSError:
        pass
    print(held >> 20)
    """
)


def test_tcp_buffers_cannot_hold_memory_past_the_limit(spool: SandboxPool) -> None:
    result = judge(spool, "python", PYTHON_TCP, [{"input": "", "output": "0"}], limits=LIMITS)
    held_mb = int(result.tests[0].stdout.strip() or 0)
    assert result.verdict is MLE or held_mb < 64, describe(result)
    assert_next_job_clean(spool, "python")


# ---- the OOM score: a program that lowers it back to the agent's ------------------------------
# At 0, like the agent, a program whose memory is in the kernel (which the OOM killer does not
# count against it) could leave the agent the larger target at the container's cap. Under memory
# pressure the watch reads the job's scores: one lowered is the program's runtime error.
PYTHON_LOWERED = dedent(
    """
    open("/proc/self/oom_score_adj", "w").write("0")
    hoard = bytearray(48 << 20)
    for i in range(0, len(hoard), 4096):
        hoard[i] = 1
    import time
    time.sleep(1)
    print(42)
    """
)

C_LOWERED_CHILD = dedent(
    """
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/wait.h>
    #include <unistd.h>
    int main(void) {
        if (fork() == 0) {
            FILE *adj = fopen("/proc/self/oom_score_adj", "w");
            fputs("0", adj);
            fclose(adj);
            char *hoard = malloc(48 << 20);
            memset(hoard, 1, 48 << 20);
            sleep(1);
            fprintf(stderr, "%d\\n", hoard[12345]);  /* used, so the compiler keeps it */
            return 0;
        }
        wait(NULL);
        puts("42");
        return 0;
    }
    """
)


@pytest.mark.parametrize(("language", "code"), [("python", PYTHON_LOWERED), ("c", C_LOWERED_CHILD)])
def test_a_program_that_lowers_its_oom_score_is_stopped(
    spool: SandboxPool, language: str, code: str
) -> None:
    result = judge(spool, language, code, [{"input": "", "output": "42"}], limits=LIMITS)
    expect(result, RE)
    assert "oom_score_adj" in result.tests[0].message, describe(result)
    assert_next_job_clean(spool, language)
