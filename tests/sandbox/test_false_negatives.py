"""Correct programs are never rejected: code that uses its toolchain's current features, big
integers, deep recursion, CRLF input, binary stdout, libraries under a small memory limit, a
Java class of any name. Each is AC; its wrong, crashing, looping and memory-hungry siblings are
in test_languages.py (every language and variant there too)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import pytest

from judge_service.sandbox.models import Verdict
from tests.sandbox.test_languages import SUM

pytestmark = pytest.mark.integration

LIMITS = {"time_limit_ms": 4000, "memory_limit_mb": 256}

# Each prints "ok <something the feature computed>"; the expected line is beside it.
CURRENT_FEATURES: dict[str, tuple[str, str]] = {
    "cpp": (
        "#include <bits/stdc++.h>\n"
        "int main() {\n"
        "    std::map<int, int> m{{1, 2}, {3, 4}};\n"
        "    std::vector<int> v{5, 3, 1};\n"
        "    std::ranges::sort(v);\n"
        "    auto evens = std::views::iota(0, 10)\n"
        "        | std::views::filter([](int x) { return x % 2 == 0; });\n"
        "    int sum = 0;\n"
        "    for (int x : evens) sum += x;\n"
        '    std::cout << std::format("ok {} {} {} {}", m.contains(3), std::popcount(255u),\n'
        "                             v.front(), sum) << '\\n';\n"
        "}\n",
        "ok true 8 1 20",
    ),
    "cpp17": (
        "#include <bits/stdc++.h>\n"
        "template <class T> auto twice(T x) { if constexpr (std::is_integral_v<T>) return 2 * x;"
        " else return x + x; }\n"
        "int main() {\n"
        '    std::map<std::string, int> m{{"a", 1}};\n'
        "    for (auto& [k, v] : m) std::cout << \"ok \" << k << v << ' ' << std::gcd(12, 18)\n"
        "        << ' ' << twice(21) << ' ' << std::optional<int>(5).value_or(0) << '\\n';\n"
        "}\n",
        "ok a1 6 42 5",
    ),
    "cpp23": (
        "#include <print>\n#include <ranges>\n#include <vector>\n#include <expected>\n"
        "std::expected<int, const char*> half(int x) {\n"
        '    if (x % 2) return std::unexpected("odd");\n'
        "    return x / 2;\n"
        "}\n"
        "int main() {\n"
        "    auto v = std::views::iota(1, 5) | std::ranges::to<std::vector>();\n"
        '    std::println("ok {} {} {}", v.size(), half(8).value(), half(3).error());\n'
        "}\n",
        "ok 4 4 odd",
    ),
    "c": (
        "#include <stdio.h>\n#include <stdbool.h>\n"
        '_Static_assert(sizeof(long long) == 8, "64-bit");\n'
        '#define KIND(x) _Generic((x), int: "int", double: "double")\n'
        "int main(void) {\n"
        "    bool yes = true;\n"
        '    printf("ok %s %s %d\\n", KIND(1), KIND(1.0), __builtin_popcount(255) + yes);\n'
        "    return 0;\n"
        "}\n",
        "ok int double 9",
    ),
    "rust": (
        "use std::collections::HashMap;\n"
        "fn first_even(v: &[i32]) -> i32 {\n"
        "    let Some(x) = v.iter().find(|x| *x % 2 == 0) else { return -1 };\n"
        "    *x\n"
        "}\n"
        "fn main() {\n"
        '    let m: HashMap<&str, i32> = HashMap::from([("a", 1)]);\n'
        "    let n = 1000u32;\n"
        '    println!("ok {} {} {} {}", first_even(&[3, 4]), m["a"], n.ilog2(),\n'
        "             Some(3).is_some_and(|x| x > 2));\n"
        "}\n",
        "ok 4 1 9 true",
    ),
    # Edition 2024's prelude has Future: without the import this compiles in 2024 only.
    "rust2024": (
        "fn later() -> impl Future<Output = i32> { async { 7 } }\n"
        "fn main() {\n"
        "    let _f = later();\n"
        "    let Some(x) = [1, 2].first().copied() else { return };\n"
        '    println!("ok {}", x);\n'
        "}\n",
        "ok 1",
    ),
    "go": (
        "package main\n\n"
        'import (\n\t"fmt"\n\t"maps"\n\t"slices"\n)\n\n'
        "func main() {\n"
        "\tv := []int{3, 1, 2}\n"
        "\tslices.Sort(v)\n"
        '\tm := map[string]int{"a": 1}\n'
        "\tkeys := slices.Collect(maps.Keys(m))\n"
        "\ttotal := 0\n"
        "\tfor i := range 4 {\n"
        "\t\ttotal += i\n"
        "\t}\n"
        '\tfmt.Println("ok", min(5, 2, 9), max(1.5, 2.5), v, keys, total)\n'
        "}\n",
        "ok 2 2.5 [1 2 3] [a] 6",
    ),
    "java": (
        "import java.util.*;\n"
        "record Point(int x, int y) {}\n"
        "public class Solution {\n"
        "    static String kind(Object o) {\n"
        "        return switch (o) {\n"
        '            case Integer i when i > 2 -> "big";\n'
        '            case Integer i -> "small";\n'
        '            default -> "other";\n'
        "        };\n"
        "    }\n"
        "    public static void main(String[] args) {\n"
        "        List<Integer> list = new ArrayList<>(List.of(4, 5, 6));\n"
        "        var p = new Point(1, 2);\n"
        '        String text = """\n'
        '            ok""";\n'
        '        System.out.println(text + " " + list.getFirst() + " " + list.reversed()'
        ".getFirst()\n"
        '            + " " + p.y() + " " + kind(3) + " " + kind(1));\n'
        "    }\n"
        "}\n",
        "ok 4 6 2 big small",
    ),
    "javascript": (
        "const _ = require('lodash');\n"
        "const md5 = require('js-md5');\n"
        "const v = [3, 1, 2];\n"
        "const sorted = v.toSorted();\n"
        "console.log('ok', sorted.join(''), v.join(''), v.findLast((x) => x > 1), v.at(-1),\n"
        "  _.sum(v), md5('').slice(0, 8), structuredClone({a: 1}).a);\n",
        "ok 123 312 2 2 6 d41d8cd9 1",
    ),
    "python": (
        "import itertools\n"
        "def describe(x):\n"
        "    match x:\n"
        "        case [a, b]:\n"
        "            return f'pair {a}{b}'\n"
        "        case _:\n"
        "            return 'other'\n"
        "words = ['x', 'y']\n"
        'print(f"ok {list(itertools.batched(range(5), 2))} {describe([1, 2])}'
        " {', '.join(words)}\")\n",
        "ok [(0, 1), (2, 3), (4,)] pair 12 x, y",
    ),
    "pypy": (
        "def describe(x):\n"
        "    match x:\n"
        "        case [a, b]:\n"
        "            return f'pair {a}{b}'\n"
        "        case _:\n"
        "            return 'other'\n"
        "print('ok', describe([1, 2]), (n := 5) * 2, n)\n",
        "ok pair 12 10 5",
    ),
}


@pytest.mark.parametrize("language", sorted(CURRENT_FEATURES))
def test_the_toolchains_current_features_are_accepted(judge, language: str) -> None:
    code, expected = CURRENT_FEATURES[language]
    result = judge(language, code, [{"output": expected}], limits=LIMITS)
    compiled = result.compile.output if result.compile is not None else ""
    assert result.verdict is Verdict.AC, (result.tests, compiled)


def _unlimited_str(compute: Callable[[], int]) -> str:
    """This process has the digit limit too: lift it for one conversion."""
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(compute())
    finally:
        sys.set_int_max_str_digits(previous)


# A 7,606-digit number, past Python's default 4,300-digit conversion limit.
_BIG_INT = random.Random(16).randrange(10**7605, 10**7606)
_BIG = _unlimited_str(lambda: _BIG_INT)
BIG_SQUARE = _unlimited_str(lambda: _BIG_INT**2)
SEVEN_POWER = _unlimited_str(lambda: 7**9000)
BIG_INTEGERS = {
    "python": "n = int(input())\nprint(n * n)\n",
    "pypy": "n = int(input())\nprint(n * n)\n",
    "java": (
        "import java.math.BigInteger;\nimport java.util.Scanner;\n"
        "class Big {\n"
        "    public static void main(String[] args) {\n"
        "        BigInteger n = new BigInteger(new Scanner(System.in).next());\n"
        "        System.out.println(n.multiply(n));\n"
        "    }\n"
        "}\n"
    ),
    "javascript": (
        "const n = BigInt(require('fs').readFileSync(0, 'utf8').trim());\n"
        "console.log((n * n).toString());\n"
    ),
    "go": (
        'package main\n\nimport (\n\t"fmt"\n\t"math/big"\n)\n\n'
        "func main() {\n"
        "\tvar s string\n"
        "\tfmt.Scan(&s)\n"
        "\tn, _ := new(big.Int).SetString(s, 10)\n"
        "\tfmt.Println(new(big.Int).Mul(n, n))\n"
        "}\n"
    ),
}


@pytest.mark.parametrize("language", sorted(BIG_INTEGERS))
def test_big_integers_read_and_print_whole(judge, language: str) -> None:
    tests = [{"input": _BIG + "\n", "output": BIG_SQUARE}]
    result = judge(language, BIG_INTEGERS[language], tests, limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.parametrize("language", ["python", "pypy"])
def test_python_prints_a_power_past_the_digit_limit(judge, language: str) -> None:
    """``print(7**9000)`` (7,606 digits) is RE under CPython's default limit: the judge lifts it
    for the program, which does nothing itself."""
    result = judge(language, "print(7**9000)\n", [{"output": SEVEN_POWER}], limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


DEEP_RECURSION = {
    # Not a tail call: each of the 10^6 frames waits for the one below it.
    "cpp": (
        "#include <bits/stdc++.h>\n"
        "int depth(int n) { if (n == 0) return 0; volatile int here = n;"
        " return depth(n - 1) + (here & 1); }\n"
        "int main() { std::cout << depth(1000000) << '\\n'; }\n"
    ),
    "python": (
        "import sys\nsys.setrecursionlimit(300000)\n"
        "def depth(n):\n    return 0 if n == 0 else depth(n - 1) + (n & 1)\n"
        "print(depth(200000))\n"
    ),
}
DEEP_RECURSION.update({"cpp17": DEEP_RECURSION["cpp"], "cpp23": DEEP_RECURSION["cpp"]})
DEEP_RECURSION["pypy"] = DEEP_RECURSION["python"]
DEEP_RECURSION["c"] = (
    "#include <stdio.h>\n"
    "int depth(int n) { if (n == 0) return 0; volatile int here = n;"
    " return depth(n - 1) + (here & 1); }\n"
    'int main(void) { printf("%d\\n", depth(1000000)); return 0; }\n'
)


@pytest.mark.parametrize("language", sorted(DEEP_RECURSION))
def test_deep_recursion_fits_the_stack(judge, language: str) -> None:
    """C and C++: 10^6 frames; Python: 2*10^5 with a raised recursion limit."""
    expected = "500000" if language in ("cpp", "cpp17", "cpp23", "c") else "100000"
    result = judge(language, DEEP_RECURSION[language], [{"output": expected}], limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.parametrize("language", sorted(SUM))
def test_crlf_input_is_read_like_lf(judge, language: str) -> None:
    """Windows line ends in the test data: tokens are read the same."""
    tests = [{"input": "3 4\r\n", "output": "7"}, {"input": "-5 10\r\n\r\n", "output": "5"}]
    result = judge(language, SUM[language].replace("{delta}", "0"), tests, limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.parametrize("language", ["python", "pypy"])
def test_a_line_read_with_its_carriage_return_is_accepted(judge, language: str) -> None:
    result = judge(
        language, "print(input())\n", [{"input": "hello\r\n", "output": "hello"}], limits=LIMITS
    )
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.parametrize("language", ["python", "pypy"])
def test_binary_stdout_is_there(judge, language: str) -> None:
    code = (
        "import sys\n"
        "data = sys.stdin.buffer.read().split()\n"
        "sys.stdout.buffer.write(b'%d\\n' % sum(map(int, data)))\n"
    )
    result = judge(language, code, [{"input": "1 2 3\n", "output": "6"}], limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


def test_numpy_and_friends_import_under_a_64_mb_limit(judge) -> None:
    """numpy under a small memory limit (SandboxFusion's users saw pthread_create fail)."""
    code = (
        "import numpy as np\n"
        "a = np.arange(1, 1001, dtype=np.int64)\n"
        "m = np.eye(50) @ np.full((50, 50), 2.0)\n"
        "print(int(a.sum()), int(m.sum()))\n"
    )
    limits = {"time_limit_ms": 4000, "memory_limit_mb": 64}
    result = judge("python", code, [{"output": "500500 5000"}], limits=limits)
    assert result.verdict is Verdict.AC, result.tests


def test_cpp_has_boost_and_openssl(judge) -> None:
    code = (
        "#include <bits/stdc++.h>\n#include <boost/any.hpp>\n#include <openssl/md5.h>\n"
        "#include <boost/multiprecision/cpp_int.hpp>\n"
        "int main() {\n"
        "    boost::any a = 5;\n"
        "    unsigned char md[16];\n"
        '    MD5(reinterpret_cast<const unsigned char*>(""), 0, md);\n'
        "    boost::multiprecision::cpp_int f = 1;\n"
        "    for (int i = 1; i <= 30; ++i) f *= i;\n"
        '    std::printf("%d %02x%02x %s\\n", boost::any_cast<int>(a), md[0], md[1],'
        " f.str().c_str());\n"
        "}\n"
    )
    expected = "5 d41d 265252859812191058636308480000000"
    for language in ("cpp", "cpp17", "cpp23"):
        result = judge(language, code, [{"output": expected}], limits=LIMITS)
        compiled = result.compile.output if result.compile is not None else ""
        assert result.verdict is Verdict.AC, (language, result.tests, compiled)


@pytest.mark.parametrize("language", ["rust", "rust2024"])
def test_rust_has_rand_regex_and_md5(judge, language: str) -> None:
    """The crates Rust programs import most (rand 0.8's API here), compiled into the image."""
    code = (
        "use rand::Rng;\nuse regex::Regex;\n"
        "fn main() {\n"
        "    let x: u32 = rand::thread_rng().gen_range(0..10);\n"
        '    let words = Regex::new(r"[a-z]+").unwrap().find_iter("ab, cd ef").count();\n'
        '    println!("{} {} {:x}", x < 10, words, md5::compute(b""));\n'
        "}\n"
    )
    expected = "true 3 d41d8cd98f00b204e9800998ecf8427e"
    result = judge(language, code, [{"output": expected}], limits=LIMITS)
    compiled = result.compile.output if result.compile is not None else ""
    assert result.verdict is Verdict.AC, (result.tests, compiled)


def test_go_has_testify(judge) -> None:
    code = (
        'package main\n\nimport (\n\t"fmt"\n\t"github.com/stretchr/testify/assert"\n)\n\n'
        "func main() {\n\tfmt.Println(assert.ObjectsAreEqual([]int{1, 2}, []int{1, 2}))\n}\n"
    )
    result = judge("go", code, [{"output": "true"}], limits=LIMITS)
    compiled = result.compile.output if result.compile is not None else ""
    assert result.verdict is Verdict.AC, (result.tests, compiled)


@pytest.mark.parametrize("name", ["Program", "solution_1", "A"])
def test_a_java_class_of_any_name_runs(judge, name: str) -> None:
    code = (
        f"import java.util.*;\nclass Helper {{ static int two() {{ return 2; }} }}\n"
        f"class {name} {{\n"
        "    public static void main(String[] args) {\n"
        "        System.out.println(Helper.two());\n"
        "    }\n"
        "}\n"
    )
    result = judge("java", code, [{"output": "2"}], limits=LIMITS)
    assert result.verdict is Verdict.AC, result.tests


# Recursion until V8 throws RangeError, caught: V8's stack limit (--stack-size) must sit below
# the stack rlimit the memory limit gives, or the process dies of SIGSEGV (RE) first.
_DEPTH = "function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); }\n"


def _caught(overflow: str) -> str:
    """Statements that run ``overflow`` and leave in ``seen`` whether it threw RangeError."""
    return (
        f"let seen = 'no overflow';\ntry {{ {overflow} }}\n"
        "catch (error) { seen = error instanceof RangeError ? 'RangeError' : String(error); }\n"
    )


@pytest.mark.parametrize("memory_mb", [16, 32, 64, 256])
@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_caught_stack_overflow_is_caught_at_any_memory_limit(
    judge, language: str, memory_mb: int
) -> None:
    code = _DEPTH + _caught("depth(1e9);") + "console.log(seen);\n"
    limits = {"time_limit_ms": 4000, "memory_limit_mb": memory_mb}
    result = judge(language, code, [{"output": "RangeError"}], limits=limits)
    assert result.verdict is Verdict.AC, result.tests


# A recursion as deep as the stack a C program gets under the memory limit (8 MB at 16 MB):
# 55,000 of these frames take about 6.6 MB. With V8's limit 2 MB below that stack instead of
# at it, the program threw RangeError near 50,000 (RE for a correct program).
@pytest.mark.parametrize("memory_mb", [8, 16])
@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_a_deep_recursion_gets_the_whole_stack_at_a_small_memory_limit(
    judge, language: str, memory_mb: int
) -> None:
    code = (
        "function d(n, a, b) { return n === 0 ? 0 : 1 + d(n - 1, a + 1, b); }\n"
        "console.log(d(55000, 0, 0));\n"
    )
    limits = {"time_limit_ms": 4000, "memory_limit_mb": memory_mb}
    result = judge(language, code, [{"output": "55000"}], limits=limits)
    assert result.verdict is Verdict.AC, result.tests


# Recursions that pass through native frames past V8's own check.
_NATIVE_OVERFLOWS = {
    "tostring": "const o = {toString() { return String(this); }}; String(o);",
    "proxy": "const p = new Proxy({}, {get(t, k, r) { return r[k]; }}); p.a;",
    "map": "function d(n) { return [n].map((x) => d(x + 1))[0]; } d(0);",
}


@pytest.mark.parametrize("memory_mb", [32, 64])
@pytest.mark.parametrize("shape", sorted(_NATIVE_OVERFLOWS))
def test_a_caught_overflow_through_native_frames_is_caught(
    judge, shape: str, memory_mb: int
) -> None:
    code = _caught(_NATIVE_OVERFLOWS[shape]) + "console.log(seen);\n"
    limits = {"time_limit_ms": 6000, "memory_limit_mb": memory_mb}
    result = judge("javascript", code, [{"output": "RangeError"}], limits=limits)
    assert result.verdict is Verdict.AC, result.tests


@pytest.mark.parametrize("memory_mb", [32, 64])
def test_a_caught_stack_overflow_is_caught_in_a_called_function(judge, memory_mb: int) -> None:
    code = _DEPTH + "function f() {\n" + _caught("depth(1e9);") + "return seen; }\n"
    limits = {"time_limit_ms": 4000, "memory_limit_mb": memory_mb}
    tests = [{"args": [], "expected": "RangeError"}]
    result = judge("javascript", code, tests, mode="function", entry_point="f", limits=limits)
    assert result.verdict is Verdict.AC, result.tests


# Valid JavaScript nested 20,000 deep, which V8's parser takes at the run's stack but not at
# its default one (about 1 MB): the syntax check that follows a failed run said CE.
_DEEPLY_NESTED = {
    "parentheses": "(" * 20_000 + "1" + ")" * 20_000,
    "arrays": "[" * 20_000 + "]" * 20_000,
    "calls": "f(" * 20_000 + "1" + ")" * 20_000,
}


@pytest.mark.parametrize("shape", sorted(_DEEPLY_NESTED))
def test_a_deeply_nested_program_that_fails_running_is_re_not_ce(judge, shape: str) -> None:
    code = f"const f = (v) => v;\nconst x = {_DEEPLY_NESTED[shape]};\nthrow new Error('boom');\n"
    result = judge("javascript", code, [{"output": ""}], limits=LIMITS)
    assert result.verdict is Verdict.RE, (result.compile, result.tests)
    assert "boom" in result.tests[0].stderr
