"""What a program must not read or change: secrets, the read-only system, copy-out.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import uuid

import pytest

from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    FIND_JUDGE,
    WA,
    assert_next_job_clean,
    dedent,
    describe,
    expect,
    judge,
)

pytestmark = pytest.mark.integration


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
        markers = ["judging" + " agent", "class" + " Agent", "def" + " decide(",
                   "class" + " JudgeProcesses", "def" + " harness_outcome", "def" + " _run_assert"]
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
        if b"class " + b"Agent" in cmdline or b"def " + b"decide(" in cmdline:
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
