"""The warm javac (agent/javac_server.py): the same verdicts and compiler output as plain javac,
and a program that attacks it (kills, stops, re-limits or renices it, looks for its pipes,
leaves classes behind) changes no later job's verdict on the same sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judge_service.sandbox._jobs import compile_spec
from judge_service.sandbox.agent import javac_server
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, JobResult, Verdict
from judge_service.sandbox.pool import SandboxPool

SUM = (
    "import java.util.*;\npublic class Main { public static void main(String[] a) {"
    " Scanner s = new Scanner(System.in); System.out.println(s.nextInt() + s.nextInt()); } }\n"
)
TESTS = [{"input": "1 2\n", "output": "3\n"}]
# Each a whole program judged on TESTS; the name says what plain javac makes of it.
PROGRAMS = {
    "AC": SUM,
    "AC, class not named Main": SUM.replace("public class Main", "class Adder"),
    "AC, public class of another name, a second class": (
        "import java.util.*;\nclass Twice { static int of(int x) { return 2 * x; } }\n"
        "public class Sum { public static void main(String[] a) { Scanner s = new Scanner("
        "System.in); System.out.println(Twice.of(s.nextInt() + s.nextInt()) / 2); } }\n"
    ),
    "AC, with a note from javac": SUM.replace(
        "Scanner s", "List raw = new ArrayList(); raw.add(1); Scanner s"
    ),
    "WA": SUM.replace("s.nextInt() + s.nextInt()", "s.nextInt() - s.nextInt()"),
    "RE, assertion (-ea)": SUM.replace("Scanner s", 'assert a.length > 5 : "ea is on"; Scanner s'),
    "RE, exception": SUM.replace("System.out.println(", "System.out.println(1 / 0 + "),
    "CE, type": SUM.replace("System.out.println(", 'int bad = "s"; System.out.println('),
    "CE, syntax": SUM.replace("; } }", " } }"),
    "CE, unknown class": SUM.replace("Scanner s =", "Missing m = null; Scanner s ="),
    "CE, non-ASCII in the message": SUM.replace(
        "System.out.println(", 'int é = "ü"; System.out.println('
    ),
}
# Runs the test's input as a Python script: a program can do anything Python can.
PYTHON = (
    "public class Main { public static void main(String[] a) throws Exception {"
    ' System.exit(new ProcessBuilder("/usr/bin/python3", "-").inheritIO().start().waitFor());'
    " } }\n"
)
OTHERS = (
    "import os\nme, parent = os.getpid(), os.getppid()\n"
    "others = [int(n) for n in os.listdir('/proc') if n.isdigit()]\n"
    "others = [pid for pid in others if pid not in (1, me, parent)]\n"
)
ATTACKS = {
    "kill": OTHERS + "for pid in others:\n    try: os.kill(pid, 9)\n    except OSError: pass\n",
    "stop": OTHERS + "for pid in others:\n    try: os.kill(pid, 19)\n    except OSError: pass\n",
    "prlimit": OTHERS
    + "import resource\nfor pid in others:\n"
    + "    for limit, value in ((resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_NOFILE, 4)):\n"
    + "        try: resource.prlimit(pid, limit, (value, value))\n"
    + "        except OSError: pass\n",
    "fsize": OTHERS
    + "import resource\nfor pid in others:\n"
    + "    try: resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, 0))\n"
    + "    except OSError: pass\n",
    "renice": OTHERS
    + "for pid in others:\n    try:\n        os.setpriority(os.PRIO_PROCESS, pid, 19)\n"
    + "        os.sched_setaffinity(pid, {0})\n    except OSError: pass\n",
}
# What a program can reach of the server: it finds it (its command line is public) but can
# open none of its descriptors (its pipes), read none of its memory, trace none of it.
PROBE = OTHERS + (
    "import ctypes, stat\nlibc = ctypes.CDLL(None, use_errno=True)\nservers = reached = 0\n"
    "for pid in others:\n"
    "    try: line = open(f'/proc/{pid}/cmdline', 'rb').read()\n"
    "    except OSError: continue\n"
    "    if b'DisableAttachMechanism' not in line: continue\n"
    "    servers += 1\n"
    "    for path in ('fd/0', 'fd/1', 'mem', 'environ'):\n"
    "        try: os.close(os.open(f'/proc/{pid}/{path}', os.O_RDWR if path != 'environ' else 0))\n"
    "        except OSError: continue\n"
    "        reached += 1\n"
    "    reached += libc.ptrace(16, pid, 0, 0) == 0\n"
    "places = 0\n"
    "for top in ('/tmp', '/work', '/dev/shm', '/run', '/var/tmp'):\n"
    "    for root, dirs, files in os.walk(top):\n"
    "        for name in files:\n"
    "            try: mode = os.lstat(os.path.join(root, name)).st_mode\n"
    "            except OSError: continue\n"
    "            places += stat.S_ISSOCK(mode) or stat.S_ISFIFO(mode)\n"
    "print(f'servers={servers} reached={reached} sockets={places}')\n"
)
PROBED = "servers=1 reached=0 sockets=0\n"


@pytest.fixture(scope="module")
def warm() -> Iterator[SandboxPool]:
    """One sandbox, so every job of a test runs where the one before it ran."""
    with SandboxPool(SandboxConfig(sandboxes_per_language=1, compile_cache_mb=0)) as pool:
        yield pool


@pytest.fixture(scope="module")
def plain() -> Iterator[SandboxPool]:
    settings = SandboxConfig(sandboxes_per_language=1, compile_cache_mb=0, warm_compilers=False)
    with SandboxPool(settings) as pool:
        yield pool


def _judge(pool: SandboxPool, code: str, tests: list[dict[str, str]], **limits: int) -> JobResult:
    return pool.judge(Job(language="java", code=code, tests=tests, limits=limits or {}))


def _outcome(result: JobResult) -> tuple[object, ...]:
    compiled = result.compile
    return (
        result.verdict,
        compiled.ok if compiled else None,
        compiled.output if compiled else None,
        [(test.verdict, test.message, test.stdout) for test in result.tests],
    )


# ---- units ------------------------------------------------------------------------------
def test_java_compiles_without_annotation_processors_on_the_server() -> None:
    spec = LANGUAGES["java"]
    job = Job(language="java", code=SUM, tests=TESTS)
    frame = compile_spec(job, spec, SandboxConfig())
    assert frame["server"] == "javac"
    assert javac_server.REQUIRED_OPTION in frame["argv"]
    assert javac_server.serves(frame["argv"], frame["limits"]["memory_kb"])
    assert "server" not in compile_spec(job, spec, SandboxConfig(warm_compilers=False))


def test_the_server_serves_only_javac_with_processors_off_and_room_to_run() -> None:
    argv = ["/usr/bin/javac", "-J-Xmx512m", "-proc:none", "-d", ".", "Main.java"]
    roomy = javac_server.SERVER_MIN_MEMORY_KB
    assert javac_server.serves(argv, roomy)
    assert not javac_server.serves([a for a in argv if a != "-proc:none"], roomy)
    assert not javac_server.serves(["/usr/bin/scalac", *argv[1:]], roomy)
    assert not javac_server.serves(argv, roomy - 1)
    assert javac_server.javac_arguments(argv) == ["-proc:none", "-d", ".", "Main.java"]


# ---- against plain javac ------------------------------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_same_verdict_and_compiler_output_as_plain_javac(
    warm: SandboxPool, plain: SandboxPool, name: str
) -> None:
    ours = _judge(warm, PROGRAMS[name], TESTS)
    theirs = _judge(plain, PROGRAMS[name], TESTS)
    assert ours.verdict.value == name.split(",")[0]
    assert _outcome(ours) == _outcome(theirs)


# ---- attacks ------------------------------------------------------------------------------
@pytest.mark.integration
def test_a_program_finds_the_server_but_reaches_none_of_it(warm: SandboxPool) -> None:
    result = _judge(warm, PYTHON, [{"input": PROBE, "output": PROBED}])
    assert result.verdict is Verdict.AC, result.tests[0].stdout


@pytest.mark.integration
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_on_the_server_changes_no_later_verdict(warm: SandboxPool, attack: str) -> None:
    _judge(warm, PYTHON, [{"input": ATTACKS[attack], "output": ""}])
    later = _judge(warm, SUM, TESTS)
    assert later.verdict is Verdict.AC, _outcome(later)
    # ... and a server serves again (a replaced one: the attacked one is gone).
    probe = _judge(warm, PYTHON, [{"input": PROBE, "output": PROBED}])
    assert probe.verdict is Verdict.AC, probe.tests[0].stdout


@pytest.mark.integration
def test_classes_an_earlier_job_left_are_not_found(warm: SandboxPool) -> None:
    """A job compiles a Helper and copies its class everywhere it may write; a later job that
    uses Helper without defining it does not compile, one that defines it gets its own."""
    planted = PYTHON.replace(
        "public class Main {",
        "class Helper { static int value() { return 666; } }\npublic class Main {",
    )
    spread = (
        "import glob, shutil\nfor top in ('/tmp', '/dev/shm', '/work/..', '/'):\n"
        "    for name in glob.glob('/work/*.class'):\n"
        "        try: shutil.copy(name, top)\n        except OSError: pass\n"
    )
    _judge(warm, planted, [{"input": spread, "output": ""}])
    uses = SUM.replace("System.out.println(", "System.out.println(Helper.value() * 0 + ")
    missing = _judge(warm, uses, TESTS)
    assert missing.verdict is Verdict.CE
    assert "cannot find symbol" in (missing.compile.output if missing.compile else "")
    own = uses + "class Helper { static int value() { return 1; } }\n"
    assert _judge(warm, own, TESTS).verdict is Verdict.AC


@pytest.mark.integration
def test_a_compile_over_its_cpu_limit_is_ce_and_the_next_compiles(warm: SandboxPool) -> None:
    """javac on 3000 methods takes more than 100 ms of CPU even warm."""
    methods = "".join(
        f"static int m{i}(int x) {{ return x * {i} + m{i}(x - 1); }}\n" for i in range(3000)
    )
    heavy = SUM.replace("public class Main {", "public class Main {\n" + methods)
    slow = _judge(warm, heavy, TESTS, compile_time_limit_ms=100)
    assert slow.verdict is Verdict.CE
    assert slow.compile is not None and slow.compile.limit == "cpu"
    assert _judge(warm, SUM + "// again\n", TESTS).verdict is Verdict.AC


@pytest.mark.integration
def test_the_server_makes_room_for_a_test_at_the_largest_memory_limit() -> None:
    """Under a 1 GB container the largest limit is 736 MB (832 MB with the JVM allowance):
    beside the judge's processes (a warm JVM of about 100-150 MB among them) and 128 MB for its
    files it does not fit, so the server is stopped before such a test runs; a test with room
    beside it keeps it."""
    settings = SandboxConfig(sandboxes_per_language=1, compile_cache_mb=0, sandbox_memory_mb=1024)
    limits = {"compile_memory_limit_mb": 800}
    with SandboxPool(settings) as pool:
        roomy = _judge(pool, PYTHON, [{"input": PROBE, "output": PROBED}], **limits)
        assert roomy.verdict is Verdict.AC, roomy.tests[0].stdout
        stopped = PROBED.replace("servers=1", "servers=0")
        tight = _judge(
            pool, PYTHON, [{"input": PROBE, "output": stopped}], memory_limit_mb=736, **limits
        )
        assert tight.verdict is Verdict.AC, tight.tests[0].stdout
