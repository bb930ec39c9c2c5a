"""What the soak sends: its problems, and the kinds of submission with the verdicts they must get.

Python and JavaScript programs carry their submission id in a comment, so every one is new to
the result cache and runs. C++ programs are a fixed few (compiling takes a second of CPU, which
10,000 times would be the whole soak): each is sent against one of ``SUM_VARIANTS`` problems, so
the compile cache serves them, and a repeat of a (problem, program) pair is answered from the
result cache, as a trainer's repeated rollouts are.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

SUM_VARIANTS = 50
# Each item answers (a + b) for its variant; a WA program answers a - b, never equal here.
_SUM_TESTS = [(3, 4), (10, 20), (123, 456)]


def problems() -> list[dict[str, Any]]:
    sums = [
        {
            "id": f"soak-sum-{k}",
            "tests": [{"input": f"{a + k} {b}\n", "output": str(a + k + b)} for a, b in _SUM_TESTS],
        }
        for k in range(SUM_VARIANTS)
    ]
    limited = [
        {"id": "soak-tle", "tests": [{"input": "", "output": "x"}], "time_limit_ms": 200},
        {"id": "soak-mle", "tests": [{"input": "", "output": "x"}], "memory_limit_mb": 64},
    ]
    function = {
        "id": "soak-fn",
        "mode": "function",
        "entry_point": "add",
        "tests": [{"args": [a, b], "expected": a + b} for a, b in _SUM_TESTS],
    }
    assert_python = {
        "id": "soak-assert-py",
        "mode": "assert",
        "entry_point": "add",
        "tests": [{"code": "def check(candidate):\n    assert candidate(2, 3) == 5\n"}],
    }
    assert_js = {
        "id": "soak-assert-js",
        "mode": "assert",
        "entry_point": "add",
        "tests": [
            {
                "code": "const assert = require('assert');\n"
                "function check(candidate) { assert.strictEqual(candidate(2, 3), 5); }\n"
            }
        ],
    }
    return [*sums, *limited, function, assert_python, assert_js]


@dataclass(frozen=True)
class Kind:
    name: str
    weight: int  # per mille of the submissions
    language: str
    problem: str  # "sum" means one of the sum variants
    code: str  # "{tag}" is replaced by the submission's id (Python and JavaScript)
    verdicts: frozenset[str]
    # /run_code runs stdin programs; its status for this kind, None if it is not sent there.
    run_code_status: str | None = None


def _kind(
    name: str,
    weight: int,
    language: str,
    problem: str,
    code: str,
    verdicts: str,
    run_code: str | None = None,
) -> Kind:
    return Kind(name, weight, language, problem, code, frozenset(verdicts.split()), run_code)


PY_SUM = "a, b = map(int, input().split())\nprint(a + b)  # {tag}\n"
JS_SUM = (
    "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(' ').map(Number);\n"
    "console.log(a + b); // {tag}\n"
)
CPP_SUM = (
    '#include <cstdio>\nint main(){long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;'
    'printf("%ld\\n",a OP b);}\n'
)

KINDS = [
    _kind("py AC", 374, "python", "sum", PY_SUM, "AC", "Success"),
    _kind("py WA", 60, "python", "sum", PY_SUM.replace("a + b", "a - b"), "WA", "Success"),
    _kind("py RE", 40, "python", "sum", "x = 0  # {tag}\nprint(1 // x)\n", "RE", "Failed"),
    _kind("py CE", 20, "python", "sum", "def f(:  # {tag}\n    pass\n", "CE", "Failed"),
    _kind("py TLE", 15, "python", "soak-tle", "while True:  # {tag}\n    pass\n", "TLE"),
    _kind(
        "py MLE",
        15,
        "python",
        "soak-mle",
        "data = bytearray(128 << 20)  # {tag}\nfor i in range(0, len(data), 4096):\n"
        "    data[i] = 1\nprint('x')\n",
        "MLE",
    ),
    _kind(
        "py fork bomb",
        1,
        "python",
        "soak-tle",
        "import os  # {tag}\nwhile True:\n    try:\n        os.fork()\n"
        "    except OSError:\n        pass\n",
        "TLE RE",
    ),
    _kind(
        "py huge output",
        5,
        "python",
        "sum",
        "import sys  # {tag}\nwhile True:\n    sys.stdout.write('x' * (1 << 20))\n",
        "OLE",
    ),
    _kind(
        "py function AC",
        80,
        "python",
        "soak-fn",
        "def add(a, b):  # {tag}\n    return a + b\n",
        "AC",
    ),
    _kind(
        "py function WA",
        20,
        "python",
        "soak-fn",
        "def add(a, b):  # {tag}\n    return a * b\n",
        "WA",
    ),
    _kind(
        "py assert AC",
        70,
        "python",
        "soak-assert-py",
        "def add(a, b):  # {tag}\n    return a + b\n",
        "AC",
    ),
    _kind(
        "py assert WA",
        20,
        "python",
        "soak-assert-py",
        "def add(a, b):  # {tag}\n    return a - b\n",
        "WA",
    ),
    _kind("cpp AC", 150, "cpp", "sum", CPP_SUM.replace("OP", "+"), "AC", "Success"),
    _kind("cpp WA", 40, "cpp", "sum", CPP_SUM.replace("OP", "-"), "WA", "Success"),
    _kind("cpp CE", 20, "cpp", "sum", CPP_SUM.replace("OP", "+ undeclared +"), "CE", "Failed"),
    _kind("cpp RE", 20, "cpp", "sum", "int main(){volatile int z=0;return 7/z;}\n", "RE", "Failed"),
    _kind("js AC", 25, "javascript", "sum", JS_SUM, "AC", "Success"),
    _kind("js WA", 8, "javascript", "sum", JS_SUM.replace("a + b", "a * b"), "WA", "Success"),
    _kind("js RE", 4, "javascript", "sum", "throw new Error('boom'); // {tag}\n", "RE", "Failed"),
    _kind(
        "js assert AC",
        7,
        "javascript",
        "soak-assert-js",
        "function add(a, b) { return a + b; } // {tag}\n",
        "AC",
    ),
    _kind(
        "js function AC",
        6,
        "javascript",
        "soak-fn",
        "function add(a, b) { return a + b; } // {tag}\n",
        "AC",
    ),
]


@dataclass(frozen=True)
class Submission:
    id: str
    kind: Kind
    problem_id: str
    code: str

    def item(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "problem_id": self.problem_id,
            "language": self.kind.language,
            "code": self.code,
        }

    def stdin(self) -> str:
        """The input of the problem's first test (what /run_code is given)."""
        k = int(self.problem_id.rsplit("-", 1)[1])
        a, b = _SUM_TESTS[0]
        return f"{a + k} {b}\n"


def make(serial: int, rng: random.Random, kinds: list[Kind] | None = None) -> Submission:
    kind = rng.choices(kinds or KINDS, weights=[k.weight for k in kinds or KINDS])[0]
    tag = f"s{serial}"
    problem = f"soak-sum-{rng.randrange(SUM_VARIANTS)}" if kind.problem == "sum" else kind.problem
    return Submission(tag, kind, problem, kind.code.replace("{tag}", tag))
