"""What the sandbox images carry, used as programs use it: the Python libraries contest and
data tasks import, under the limits a job runs with, and the precompiled <bits/stdc++.h>."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Verdict

pytestmark = pytest.mark.integration

# The usual memory limit of a contest problem; CPU time is generous because importing pandas
# or scipy costs a few hundred ms, more on a loaded machine.
LIMITS = {"time_limit_ms": 5000, "memory_limit_mb": 256}

# One small computation per library, with what it prints.
LIBRARIES = {
    "numpy": (
        "import numpy as np\n"
        "a = np.arange(1, 10, dtype=float).reshape(3, 3) + np.eye(3)\n"
        "print(np.round(np.linalg.solve(a, a @ np.array([1.0, 2.0, 3.0])), 6).tolist())\n",
        "[1.0, 2.0, 3.0]",
    ),
    "scipy": (
        "from scipy import linalg, optimize, sparse\n"
        "from scipy.sparse.csgraph import shortest_path\n"
        "root = optimize.brentq(lambda x: x * x - 2, 0, 2)\n"
        "graph = sparse.csr_matrix([[0, 1, 4], [0, 0, 2], [0, 0, 0]])\n"
        "det = linalg.det([[1, 2], [3, 4]])\n"
        "print(f'{root:.6f}', shortest_path(graph)[0].tolist(), round(det, 6))\n",
        "1.414214 [0.0, 1.0, 3.0] -2.0",
    ),
    "pandas": (
        "import pandas as pd\n"
        "df = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': [1, 2, 3]})\n"
        "print(df.groupby('k')['v'].sum().to_dict(), pd.Timestamp('2024-02-29').day_name())\n",
        "{'a': 4, 'b': 2} Thursday",
    ),
    "sklearn": (
        "from sklearn.linear_model import LinearRegression\n"
        "model = LinearRegression().fit([[0], [1], [2]], [1, 3, 5])\n"
        "print(round(float(model.coef_[0]), 6), round(float(model.intercept_), 6))\n",
        "2.0 1.0",
    ),
    "networkx": (
        "import networkx as nx\n"
        "g = nx.Graph([(1, 2), (2, 3), (3, 4), (1, 4), (4, 5)])\n"
        "print(nx.shortest_path_length(g, 1, 5), nx.is_connected(g))\n",
        "2 True",
    ),
    "sympy": (
        "import sympy as sp\n"
        "x = sp.symbols('x')\n"
        "print(sp.factor(x**2 - 1), sp.integrate(2 * x, (x, 0, 3)))\n",
        "(x - 1)*(x + 1) 9",
    ),
    "sortedcontainers": (
        "from sortedcontainers import SortedList\n"
        "s = SortedList([5, 1, 3])\n"
        "s.add(2)\n"
        "print(list(s), s.bisect_left(3))\n",
        "[1, 2, 3, 5] 2",
    ),
    "gmpy2": (
        "import gmpy2\nprint(gmpy2.is_prime(2**61 - 1), gmpy2.isqrt(10**20))\n",
        "True 10000000000",
    ),
    "small libraries": (
        "import more_itertools, regex, yaml\n"
        "from dateutil import parser\n"
        "print(regex.findall(r'\\p{L}+', 'ab, cd'), yaml.safe_load('a: [1, 2]'),\n"
        "      list(more_itertools.chunked([1, 2, 3], 2)), parser.parse('2024-02-29').weekday())\n",
        "['ab', 'cd'] {'a': [1, 2]} [[1, 2], [3]] 3",
    ),
}


@pytest.mark.parametrize("library", LIBRARIES)
def test_python_library_imports_and_computes_in_a_sandbox(judge: Any, library: str) -> None:
    code, expected = LIBRARIES[library]
    result = judge("python", code, [{"input": "", "output": expected}], limits=LIMITS)
    assert result.verdict == Verdict.AC, result.tests[0]


def test_the_data_stack_together_fits_a_256_mb_limit_on_one_thread(judge: Any) -> None:
    """A BLAS that starts a thread per core would spend the sandbox's pids limit across its
    concurrent tests; the program sees one thread after a matrix product."""
    code = (
        "import os\n"
        "import networkx, numpy as np, pandas, scipy.optimize, scipy.stats, sklearn.linear_model\n"
        "import sympy\n"
        "a = np.random.default_rng(0).random((300, 300))\n"
        "assert np.allclose(np.linalg.inv(a) @ a, np.eye(300))\n"
        "print(len(os.listdir('/proc/self/task')))\n"
    )
    result = judge("python", code, [{"input": "", "output": "1"}], limits=LIMITS)
    assert result.verdict == Verdict.AC, result.tests[0]
    assert result.tests[0].memory_kb < LIMITS["memory_limit_mb"] * 1024


BITS_PROGRAM = (
    "#include <bits/stdc++.h>\n"
    "using namespace std;\n"
    "int main() {\n"
    "    int n;\n"
    "    cin >> n;\n"
    "    vector<int> v(n);\n"
    "    iota(v.rbegin(), v.rend(), 1);\n"
    "    sort(v.begin(), v.end());\n"
    "    map<int, int> seen;\n"
    "    for (int x : v) seen[x % 3]++;\n"
    "    cout << accumulate(v.begin(), v.end(), 0LL) << ' ' << seen.size() << '\\n';\n"
    "}\n"
)


def test_a_bits_stdcpp_program_compiles_and_runs(judge: Any) -> None:
    result = judge("cpp", BITS_PROGRAM, [{"input": "10\n", "output": "55 3"}])
    assert result.verdict == Verdict.AC, result
    assert result.compile is not None and result.compile.ok and result.compile.time_ms > 0


@pytest.mark.parametrize("language", ["cpp", "cpp17"])
def test_the_judges_compile_command_uses_the_precompiled_header(language: str) -> None:
    """Run the judge's own compile command with ``-H`` in the C++ image, as the sandbox user on
    a read-only root: GCC marks the precompiled header it used with ``!`` (``x``: one built
    with other options), here the one of the language's standard in the .gch directory."""
    argv = LANGUAGES[language].compile_command(BITS_PROGRAM)
    image = SandboxConfig().image_prefix + "cpp"
    compiled = subprocess.run(
        ["docker", "run", "--rm", "-i", "--network", "none", "--read-only", "--user", "65534"]
        + ["--tmpfs", "/work:exec,mode=1777", "--workdir", "/work", image]
        + ["sh", "-c", 'cat > main.cpp && exec "$@"', "sh", argv[0], "-H", *argv[1:]],
        input=BITS_PROGRAM,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr
    used = [line for line in compiled.stderr.splitlines() if line.startswith("! ")]
    assert len(used) == 1, compiled.stderr[:2000]
    assert used[0].endswith(f"/bits/stdc++.h.gch/{language}.gch"), used


# The linker names itself in the binary's .comment section ("mold 2.37.1 (compatible with GNU
# ld)"); ld.bfd writes nothing there.
LINKED_BY = (
    "#include <stdio.h>\n"
    "#include <string.h>\n"
    "int main(void) {\n"
    "    static char image[1 << 24];\n"
    '    FILE *self = fopen("/proc/self/exe", "rb");\n'
    "    size_t size = fread(image, 1, sizeof image, self);\n"
    "    for (size_t i = 0; i + 5 <= size; i++)\n"
    '        if (memcmp(image + i, "mold ", 5) == 0) { puts("mold"); return 0; }\n'
    '    puts("another linker");\n'
    "    return 0;\n"
    "}\n"
)


@pytest.mark.parametrize("language", ["c", "cpp", "cpp17", "cpp23"])
def test_c_and_cpp_programs_are_linked_by_mold(judge: Any, language: str) -> None:
    """The judge's compile command links with mold (about 100 ms less per program than
    ld.bfd), in the sandbox, under the compile's limits."""
    result = judge(language, LINKED_BY, [{"input": "", "output": "mold"}])
    assert result.verdict == Verdict.AC, result


def test_a_go_program_runs_on_one_p_and_its_goroutines_still_run(judge: Any) -> None:
    """GOMAXPROCS=1 (languages.py): one P, goroutines interleaved on it."""
    code = (
        'package main\n\nimport (\n\t"fmt"\n\t"runtime"\n\t"sync"\n)\n\n'
        "func main() {\n\tvar wg sync.WaitGroup\n\tsums := make([]int, 4)\n"
        "\tfor g := 0; g < 4; g++ {\n\t\twg.Add(1)\n"
        "\t\tgo func(g int) {\n\t\t\tdefer wg.Done()\n"
        "\t\t\tfor i := 0; i < 1000; i++ {\n\t\t\t\tsums[g] += i\n\t\t\t}\n\t\t}(g)\n\t}\n"
        "\twg.Wait()\n\tfmt.Println(runtime.GOMAXPROCS(0), sums[0]+sums[3])\n}\n"
    )
    result = judge("go", code, [{"input": "", "output": "1 999000"}])
    assert result.verdict is Verdict.AC, (result.tests, result.compile)


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_node_starts_from_its_snapshot_with_its_code_cache(judge: Any, language: str) -> None:
    """Node is the Node.js project's build of 20, which starts from a snapshot of its bootstrap
    with its own modules' code cached: Debian's build has neither and costs 3x the CPU at every
    start (every test)."""
    code = (
        "const v = process.config.variables;\n"
        "console.log(process.version.split('.')[0], v.node_use_node_snapshot,"
        " v.node_use_node_code_cache);\n"
    )
    result = judge(language, code, [{"input": "", "output": "v20 true true"}])
    assert result.verdict is Verdict.AC, result.tests[0].stdout
