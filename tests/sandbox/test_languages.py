"""Every language through a real sandbox: one program per verdict the judge can give."""

from __future__ import annotations

import signal

import pytest

from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

# Variants and PyPy run their language's programs: same verdicts from another standard,
# edition or interpreter.
VARIANTS = {"cpp17": "cpp", "cpp23": "cpp", "rust2024": "rust", "pypy": "python"}
LANGUAGES = ["python", "cpp", "c", "java", "javascript", "go", "rust", *VARIANTS]
COMPILED = ["cpp", "c", "java", "go", "rust", "cpp17", "cpp23", "rust2024"]
FAST = {"time_limit_ms": 1000, "memory_limit_mb": 128}

HELLO = {
    "python": 'print("Hello, World!")\n',
    "cpp": '#include <iostream>\nint main() { std::cout << "Hello, World!" << std::endl; }\n',
    "c": '#include <stdio.h>\nint main(void) { puts("Hello, World!"); return 0; }\n',
    "java": (
        "public class Hello {\n"
        "    public static void main(String[] args) {\n"
        '        System.out.println("Hello, World!");\n'
        "    }\n"
        "}\n"
    ),
    "javascript": 'console.log("Hello, World!");\n',
    "go": 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("Hello, World!") }\n',
    "rust": 'fn main() { println!("Hello, World!"); }\n',
}

# ``{delta}`` is 0 for the correct program and 1 for the wrong one.
SUM = {
    "python": "a, b = map(int, input().split())\nprint(a + b + {delta})\n",
    "cpp": (
        "#include <iostream>\n"
        "int main() {\n"
        "    long long a, b;\n"
        "    std::cin >> a >> b;\n"
        "    std::cout << a + b + {delta} << '\\n';\n"
        "}\n"
    ),
    "c": (
        "#include <stdio.h>\n"
        "int main(void) {\n"
        "    long long a, b;\n"
        '    if (scanf("%lld %lld", &a, &b) != 2) return 1;\n'
        '    printf("%lld\\n", a + b + {delta});\n'
        "    return 0;\n"
        "}\n"
    ),
    "java": (
        "import java.util.Scanner;\n"
        "public class Sum {\n"
        "    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n"
        "        long a = in.nextLong(), b = in.nextLong();\n"
        "        System.out.println(a + b + {delta});\n"
        "    }\n"
        "}\n"
    ),
    "javascript": (
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(BigInt);\n"
        "console.log(String(a + b + {delta}n));\n"
    ),
    "go": (
        'package main\n\nimport "fmt"\n\n'
        "func main() {\n"
        "\tvar a, b int64\n"
        "\tfmt.Scan(&a, &b)\n"
        "\tfmt.Println(a + b + {delta})\n"
        "}\n"
    ),
    "rust": (
        "use std::io::Read;\n"
        "fn main() {\n"
        "    let mut s = String::new();\n"
        "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
        '    println!("{}", v[0] + v[1] + {delta});\n'
        "}\n"
    ),
}

# Pairs whose sum (and sum + 1) fits in a signed 64-bit integer.
PAIRS = [
    (1, 2),
    (0, 0),
    (-1, 1),
    (-5, -7),
    (100, -250),
    (123456789, 987654321),
    (2**31 - 1, 1),
    (-(2**31), -1),
    (2**40, 2**40),
    (-(2**50), 3),
    (2**62, 2**62 - 2),
    (-(2**62), -(2**62)),
    (9223372036854775000, 800),
    (-9223372036854775000, -800),
    (4611686018427387904, -4611686018427387904),
    (999999999999, 1),
    (42, -42),
    (7, 8),
    (-1000000007, 1000000009),
    (314159265358979, 271828182845904),
]
SUM_TESTS = [{"input": f"{a} {b}\n", "output": str(a + b)} for a, b in PAIRS]

INFINITE_LOOP = {
    "python": "while True:\n    pass\n",
    "cpp": "int main() { volatile unsigned long x = 0; for (;;) ++x; }\n",
    "c": "int main(void) { volatile unsigned long x = 0; for (;;) ++x; }\n",
    "java": (
        "public class Spin {\n"
        "    static volatile long x;\n"
        "    public static void main(String[] args) { while (true) x++; }\n"
        "}\n"
    ),
    "javascript": "let x = 0;\nwhile (true) { x++; }\n",
    "go": "package main\n\nvar x int\n\nfunc main() {\n\tfor {\n\t\tx++\n\t}\n}\n",
    "rust": (
        "fn main() {\n"
        "    let mut x: u64 = 0;\n"
        "    loop { unsafe { std::ptr::write_volatile(&mut x, x.wrapping_add(1)) } }\n"
        "}\n"
    ),
}

# Each allocates about 128 MiB and writes every page; the limit is 64 MiB.
MEMORY_HOG = {
    "python": (
        "data = bytearray(128 * 1024 * 1024)\n"
        "for i in range(0, len(data), 4096):\n"
        "    data[i] = 1\n"
        "print(len(data))\n"
    ),
    "cpp": (
        "#include <cstdio>\n#include <cstdlib>\n"
        "int main() {\n"
        "    const size_t n = 128u << 20;\n"
        "    volatile char *p = static_cast<volatile char *>(std::malloc(n));\n"
        "    if (!p) return 3;\n"
        "    for (size_t i = 0; i < n; i += 4096) p[i] = 1;\n"
        '    std::printf("%d\\n", p[n - 4096]);\n'
        "}\n"
    ),
    "c": (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        "int main(void) {\n"
        "    const size_t n = (size_t)128 << 20;\n"
        "    volatile char *p = malloc(n);\n"
        "    if (!p) return 3;\n"
        "    for (size_t i = 0; i < n; i += 4096) p[i] = 1;\n"
        '    printf("%d\\n", p[n - 4096]);\n'
        "    return 0;\n"
        "}\n"
    ),
    "java": (
        "public class Hog {\n"
        "    public static void main(String[] args) {\n"
        "        byte[] data = new byte[128 * 1024 * 1024];\n"
        "        for (int i = 0; i < data.length; i += 4096) data[i] = 1;\n"
        "        System.out.println(data[4096]);\n"
        "    }\n"
        "}\n"
    ),
    "javascript": (
        "const data = Buffer.alloc(128 * 1024 * 1024);\n"
        "for (let i = 0; i < data.length; i += 4096) data[i] = 1;\n"
        "console.log(data[4096]);\n"
    ),
    "go": (
        'package main\n\nimport "fmt"\n\n'
        "func main() {\n"
        "\tdata := make([]byte, 128<<20)\n"
        "\tfor i := 0; i < len(data); i += 4096 {\n"
        "\t\tdata[i] = 1\n"
        "\t}\n"
        "\tfmt.Println(data[4096])\n"
        "}\n"
    ),
    "rust": (
        "fn main() {\n"
        "    let mut data = vec![0u8; 128 << 20];\n"
        "    let mut i = 0;\n"
        "    while i < data.len() {\n"
        "        unsafe { std::ptr::write_volatile(data.as_mut_ptr().add(i), 1) };\n"
        "        i += 4096;\n"
        "    }\n"
        '    println!("{}", data[4096]);\n'
        "}\n"
    ),
}

RUNTIME_ERROR = {
    "python": "x = 0\nprint(1 // x)\n",
    "cpp": (
        "#include <cstdio>\n"
        'int main() { volatile int n = 7, zero = 0; std::printf("%d\\n", n / zero); }\n'
    ),
    "c": (
        "#include <stdio.h>\n"
        'int main(void) { volatile int n = 7, zero = 0; printf("%d\\n", n / zero); return 0; }\n'
    ),
    "java": (
        "public class Boom {\n"
        "    public static void main(String[] args) {\n"
        '        throw new IllegalStateException("boom");\n'
        "    }\n"
        "}\n"
    ),
    "javascript": 'throw new Error("boom");\n',
    "go": 'package main\n\nfunc main() {\n\tpanic("boom")\n}\n',
    "rust": 'fn main() {\n    panic!("boom");\n}\n',
}

# Each has an error whose text the compiler quotes (an undeclared name or a bad token).
COMPILE_ERROR = {
    "python": ("def f(:\n    pass\n", "SyntaxError"),
    "cpp": ("int main() { return undeclared_thing; }\n", "undeclared_thing"),
    "c": ("int main(void) { return undeclared_thing; }\n", "undeclared_thing"),
    "java": (
        "public class Broken {\n"
        "    public static void main(String[] args) { int x = undeclaredThing; }\n"
        "}\n",
        "undeclaredThing",
    ),
    "javascript": ("function f( {\n", "SyntaxError"),
    "go": ("package main\n\nfunc main() {\n\tx := undeclaredThing\n}\n", "undeclaredThing"),
    "rust": ("fn main() {\n    let x = undeclared_thing;\n}\n", "undeclared_thing"),
}

ENDLESS_OUTPUT = {
    "python": 'while True:\n    print("spam spam spam spam spam spam spam spam")\n',
    "cpp": (
        "#include <cstdio>\n"
        "int main() {\n"
        '    for (;;) std::fputs("spam spam spam spam spam spam spam spam\\n", stdout);\n'
        "}\n"
    ),
    "c": (
        "#include <stdio.h>\n"
        'int main(void) { for (;;) fputs("spam spam spam spam spam spam spam spam\\n", stdout); }\n'
    ),
    "java": (
        "public class Spam {\n"
        "    public static void main(String[] args) {\n"
        "        java.io.PrintStream out = new java.io.PrintStream(\n"
        "            new java.io.BufferedOutputStream(System.out, 1 << 16), false);\n"
        '        while (true) out.println("spam spam spam spam spam spam spam spam");\n'
        "    }\n"
        "}\n"
    ),
    "javascript": (
        "const line = Buffer.from('spam spam spam spam spam spam spam spam\\n'.repeat(1024));\n"
        "const fs = require('fs');\n"
        "for (;;) fs.writeSync(1, line);\n"
    ),
    "go": (
        'package main\n\nimport (\n\t"bufio"\n\t"os"\n)\n\n'
        "func main() {\n"
        "\tw := bufio.NewWriter(os.Stdout)\n"
        "\tfor {\n"
        '\t\tw.WriteString("spam spam spam spam spam spam spam spam\\n")\n'
        "\t}\n"
        "}\n"
    ),
    "rust": (
        "use std::io::Write;\n"
        "fn main() {\n"
        "    let stdout = std::io::stdout();\n"
        "    let mut out = std::io::BufWriter::new(stdout.lock());\n"
        "    loop {\n"
        '        if out.write_all(b"spam spam spam spam spam spam spam spam\\n").is_err() {\n'
        "            std::process::exit(0);\n"
        "        }\n"
        "    }\n"
        "}\n"
    ),
}


for _variant, _of in VARIANTS.items():
    for _table in (
        HELLO,
        SUM,
        INFINITE_LOOP,
        MEMORY_HOG,
        RUNTIME_ERROR,
        COMPILE_ERROR,
        ENDLESS_OUTPUT,
    ):
        _table[_variant] = _table[_of]


@pytest.mark.parametrize("language", LANGUAGES)
def test_hello_world_is_accepted(judge, language: str) -> None:
    result = judge(language, HELLO[language], [{"output": "Hello, World!"}], limits=FAST)
    assert result.verdict is Verdict.AC, result
    assert result.pass_rate == 1.0
    assert result.tests[0].exit_code == 0
    assert result.tests[0].signal is None
    assert result.tests[0].stdout.strip() == "Hello, World!"
    assert result.tests[0].time_ms >= 0 and result.tests[0].memory_kb > 0
    if language in COMPILED:
        assert result.compile is not None and result.compile.ok


@pytest.mark.parametrize("language", LANGUAGES)
def test_stdin_sum_passes_twenty_tests(judge, language: str) -> None:
    result = judge(language, SUM[language].replace("{delta}", "0"), SUM_TESTS, limits=FAST)
    assert result.verdict is Verdict.AC, [(t.verdict, t.message, t.stderr) for t in result.tests]
    assert result.pass_rate == 1.0
    assert (result.passed, result.total, len(result.tests)) == (20, 20, 20)
    assert all(test.verdict is Verdict.AC for test in result.tests)


@pytest.mark.parametrize("language", LANGUAGES)
def test_wrong_answer(judge, language: str) -> None:
    tests = SUM_TESTS[:3]
    result = judge(language, SUM[language].replace("{delta}", "1"), tests, limits=FAST)
    assert result.verdict is Verdict.WA, result
    assert result.pass_rate == 0
    assert len(result.tests) == 3
    assert all(test.verdict is Verdict.WA for test in result.tests)
    assert all(test.exit_code == 0 for test in result.tests)
    assert "expected" in result.tests[0].message


@pytest.mark.parametrize("language", LANGUAGES)
def test_infinite_loop_is_a_time_limit(judge, language: str) -> None:
    limits = {"time_limit_ms": 500, "memory_limit_mb": 128}
    result = judge(language, INFINITE_LOOP[language], [{"output": ""}], limits=limits)
    assert result.verdict is Verdict.TLE, result
    test = result.tests[0]
    assert "time limit" in test.message
    assert test.time_ms >= 450 or test.wall_ms >= 2000  # CPU limit, or the wall backstop
    assert test.wall_ms < 10_000


@pytest.mark.parametrize("language", LANGUAGES)
def test_touching_twice_the_memory_limit_is_mle(judge, language: str) -> None:
    limits = {"time_limit_ms": 3000, "memory_limit_mb": 64}
    result = judge(language, MEMORY_HOG[language], [{"output": "1"}], limits=limits)
    assert result.verdict is Verdict.MLE, (result.tests[0].message, result.tests[0].stderr)
    assert "memory" in result.tests[0].message


@pytest.mark.parametrize("language", LANGUAGES)
def test_runtime_error(judge, language: str) -> None:
    result = judge(language, RUNTIME_ERROR[language], [{"output": "1"}], limits=FAST)
    assert result.verdict is Verdict.RE, result
    test = result.tests[0]
    assert "runtime error" in test.message
    if VARIANTS.get(language, language) in ("cpp", "c"):
        assert test.signal == signal.SIGFPE
        assert test.exit_code is None
    else:
        # An uncaught exception or a panic exits non-zero (Go: 2, Rust: 101, others: 1).
        assert test.signal is None
        assert test.exit_code not in (None, 0)
        expected_code = {"go": 2, "rust": 101}.get(VARIANTS.get(language, language), 1)
        assert test.exit_code == expected_code
    stderr_marker = {
        "python": "ZeroDivisionError",
        "java": "IllegalStateException",
        "javascript": "boom",
        "go": "panic: boom",
        "rust": "boom",
    }
    if VARIANTS.get(language, language) in stderr_marker:
        assert stderr_marker[VARIANTS.get(language, language)] in test.stderr
    # Stripped binaries still say where they panicked (Go from its pclntab, Rust from the
    # location compiled into the panic).
    where = {"go": "main.main()", "rust": "main.rs:2:5"}.get(VARIANTS.get(language, language))
    if where:
        assert where in test.stderr, test.stderr


@pytest.mark.parametrize("language", LANGUAGES)
def test_compile_error(judge, language: str) -> None:
    code, marker = COMPILE_ERROR[language]
    result = judge(language, code, [{"output": ""}, {"output": ""}], limits=FAST)
    assert result.verdict is Verdict.CE, result
    assert result.passed == 0 and result.total == 2 and result.pass_rate == 0
    assert result.tests == []
    assert result.compile is not None and not result.compile.ok
    assert result.compile.output.strip()
    assert marker in result.compile.output


@pytest.mark.parametrize("language", LANGUAGES)
def test_endless_output_is_ole(judge, language: str) -> None:
    limits = {"time_limit_ms": 2000, "memory_limit_mb": 128, "output_limit_kb": 1024}
    result = judge(language, ENDLESS_OUTPUT[language], [{"output": "spam"}], limits=limits)
    assert result.verdict is Verdict.OLE, (result.tests[0].message, result.tests[0].stderr)
    assert "output limit" in result.tests[0].message
    assert len(result.tests[0].stdout) <= 64 * 1024  # only a report-sized prefix comes back


# Programs that print the size of their own executable.
OWN_SIZE = {
    "rust": 'fn main() { println!("{}", std::fs::metadata("/proc/self/exe").unwrap().len()); }\n',
    "go": 'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\n'
    'func main() {\n\tinfo, _ := os.Stat("/proc/self/exe")\n\tfmt.Println(info.Size())\n}\n',
    "haskell": "import System.IO\n"
    'main = withBinaryFile "/proc/self/exe" ReadMode hFileSize >>= print\n',
    "ocaml": 'let () = print_int (in_channel_length (open_in_bin "/proc/self/exe"))\n',
}
# Unstripped these are 11.4 MB (Rust), 2.3 (Go), 10.1 (Haskell) and 0.50 (OCaml); stripped
# 0.5, 1.5, 6.8 and 0.40.
STRIPPED_BYTES = {"rust": 1 << 20, "go": 2 << 20, "haskell": 8 << 20, "ocaml": 450 << 10}


@pytest.mark.parametrize("language", sorted(OWN_SIZE))
def test_compiled_programs_are_stripped(judge, language: str) -> None:
    """A cached program's every job carries its binary into the sandbox (and each compile out
    of it): debug information, std's above all, would cost a few ms a job."""
    result = judge(language, OWN_SIZE[language], [{"output": ""}], limits=FAST)
    size = int(result.tests[0].stdout.strip())
    assert 0 < size < STRIPPED_BYTES[language], size


@pytest.mark.parametrize("language", ["cpp", "go"])
def test_second_compile_of_the_same_source_is_cached(judge, language: str) -> None:
    # A unique comment keeps an earlier test run (same pool) from having cached it already.
    marker = {"cpp": "// cache probe\n", "go": "// cache probe\n"}[language]
    code = marker + SUM[language].replace("{delta}", "0")
    tests = SUM_TESTS[:4]
    first = judge(language, code, tests, limits=FAST)
    second = judge(language, code, tests, limits=FAST)
    assert first.verdict is Verdict.AC and second.verdict is Verdict.AC
    assert first.compile is not None and not first.compile.cached
    assert second.compile is not None and second.compile.cached and second.compile.ok
    assert second.pass_rate == 1.0


def test_cached_compile_error_is_still_ce(judge) -> None:
    code = "// cached CE probe\nint main() { return undeclared_thing; }\n"
    first = judge("cpp", code, [{"output": ""}], limits=FAST)
    second = judge("cpp", code, [{"output": ""}], limits=FAST)
    assert first.verdict is Verdict.CE and second.verdict is Verdict.CE
    assert second.compile is not None and second.compile.cached
    assert "undeclared_thing" in second.compile.output
