"""Attacks through the harness, the output and the compiler.

See tests/sandbox/adversarial/_attack.py for what every test checks."""

from __future__ import annotations

import json

import pytest

from judge_service.sandbox.models import JobResult
from judge_service.sandbox.pool import SandboxPool
from tests.sandbox.adversarial._attack import (
    AC,
    CE,
    FAST,
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
