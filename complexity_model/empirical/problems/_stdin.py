# ruff: noqa: E501  (solution sources are data; their lines are kept whole)
"""Stdin problems: ``generate(n)`` returns the input text; Python and C++ solutions.

The programs read their input the ways contest solutions do (``input()``, ``sys.stdin``,
``open(0)``, a worker thread with a big stack; ``scanf`` and ``cin``). Reading n numbers is
itself O(n), so a stdin problem whose input is a list cannot tell O(1) or O(log n) from O(n);
those classes appear where the input is n itself. For C++ the engine's per-test CPU time
(process start about 0.8 ms) hides work under about 0.1 ms, so C++ solutions here do work
that shows (an O(log n) C++ program would read as O(1)).
"""

from __future__ import annotations

from complexity_model.empirical.problems._case import Case

__all__ = ["STDIN_CASES"]

_N = "def generate(n):\n    return f'{n}\\n'\n"
_LIST = (
    "import random\ndef generate(n):\n"
    "    xs = [random.randint(1, 10**9) for _ in range(n)]\n"
    "    return f\"{n}\\n{' '.join(map(str, xs))}\\n\"\n"
)
_SMALL = (
    "import random\ndef generate(n):\n"
    "    xs = [random.randint(-20, 20) for _ in range(n)]\n"
    "    return f\"{n}\\n{' '.join(map(str, xs))}\\n\"\n"
)

STDIN_CASES: list[Case] = [
    Case(
        "stdin-arithmetic-series",
        None,
        _N,
        {
            "O(1)": "n = int(input())\nprint(n * (n + 1) // 2 % 998244353)\n",
            "O(n)": "n = int(input())\nt = 0\nfor i in range(n + 1):\n    t += i\nprint(t % 998244353)\n",
        },
        "O(1)",
        cpp={
            "O(n)": (
                '#include <cstdio>\nint main() {\n    long long n, t = 0;\n    scanf("%lld", &n);\n'
                "    for (long long i = 0; i <= n; i++) t = (t + i) % 998244353;\n"
                '    printf("%lld\\n", t);\n}\n'
            ),
        },
    ),
    Case(
        "stdin-power-mod",
        None,
        _N,
        {
            "O(log n)": "import sys\nn = int(sys.stdin.readline())\nr, b = 1, 3\nwhile n:\n    if n & 1:\n        r = r * b % 998244353\n    b = b * b % 998244353\n    n >>= 1\nprint(r)\n",
            "O(n)": "n = int(open(0).read())\nr = 1\nfor _ in range(n):\n    r = r * 3 % 998244353\nprint(r)\n",
        },
        "O(log n)",
    ),
    Case(
        "stdin-list-sum",
        None,
        _LIST,
        {
            "O(n)": "import sys\ndata = sys.stdin.buffer.read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:n + 1])))\n",
            "O(n^2)": (
                "n = int(input())\nxs = list(map(int, input().split()))\nbest = 0\n"
                "for i in range(n):\n    s = 0\n    for j in range(i + 1):\n        s += xs[j]\n    best = max(best, s)\n"
                "print(best)\n"
            ),
        },
        "O(n)",
        cpp={
            "O(n)": (
                '#include <cstdio>\nint main() {\n    int n;\n    scanf("%d", &n);\n    long long s = 0, x;\n'
                '    for (int i = 0; i < n; i++) { scanf("%lld", &x); s += x; }\n    printf("%lld\\n", s);\n}\n'
            ),
            "O(n^2)": (
                '#include <cstdio>\n#include <vector>\nint main() {\n    int n;\n    scanf("%d", &n);\n'
                '    std::vector<long long> a(n);\n    for (auto& x : a) scanf("%lld", &x);\n    long long best = 0;\n'
                "    for (int i = 0; i < n; i++) { long long s = 0; for (int j = 0; j <= i; j++) s += a[j]; if (s > best) best = s; }\n"
                '    printf("%lld\\n", best);\n}\n'
            ),
        },
    ),
    Case(
        "stdin-distinct-values",
        None,
        _LIST,
        {
            "O(n log n)": (
                "import sys\ndef main():\n    data = sys.stdin.read().split()\n    n = int(data[0])\n"
                "    xs = sorted(map(int, data[1:n + 1]))\n    c = 0\n    for i in range(n):\n"
                "        if i == 0 or xs[i] != xs[i - 1]:\n            c += 1\n    print(c)\nmain()\n"
            ),
            "O(n^2)": (
                "n = int(input())\nxs = input().split()\nc = 0\nfor i in range(n):\n    new = True\n"
                "    for j in range(i):\n        if xs[j] == xs[i]:\n            new = False\n            break\n"
                "    c += new\nprint(c)\n"
            ),
        },
        "O(n log n)",
        cpp={
            "O(n log n)": (
                "#include <bits/stdc++.h>\nint main() {\n    std::ios::sync_with_stdio(false); std::cin.tie(nullptr);\n"
                "    int n; std::cin >> n;\n    std::vector<long long> a(n);\n    for (auto& x : a) std::cin >> x;\n"
                "    long long c = 0;\n    for (int r = 0; r < 4; r++) {\n        std::vector<long long> b(a);\n"
                "        for (auto& x : b) x ^= r * 1315423911LL;\n        std::sort(b.begin(), b.end());\n"
                "        c += std::unique(b.begin(), b.end()) - b.begin();\n    }\n    std::cout << c / 4 << '\\n';\n}\n"
            ),
            "O(n^2)": (
                '#include <bits/stdc++.h>\nint main() {\n    int n; scanf("%d", &n);\n    std::vector<long long> a(n);\n'
                '    for (auto& x : a) scanf("%lld", &x);\n    int c = 0;\n    for (int i = 0; i < n; i++) {\n'
                "        bool fresh = true;\n        for (int j = 0; j < i; j++) if (a[j] == a[i]) { fresh = false; break; }\n"
                '        c += fresh;\n    }\n    printf("%d\\n", c);\n}\n'
            ),
        },
    ),
    Case(
        "stdin-zero-sum-triples",
        None,
        _SMALL,
        {
            "O(n^3)": (
                "n = int(input())\na = list(map(int, input().split()))\nc = 0\nfor i in range(n):\n"
                "    for j in range(i + 1, n):\n        for k in range(j + 1, n):\n"
                "            if a[i] + a[j] + a[k] == 0:\n                c += 1\nprint(c)\n"
            ),
            "O(n^2)": (
                "from collections import Counter\nn = int(input())\na = list(map(int, input().split()))\nc = 0\n"
                "for i in range(n):\n    seen = Counter()\n    for j in range(i + 1, n):\n"
                "        c += seen[-a[i] - a[j]]\n        seen[a[j]] += 1\nprint(c)\n"
            ),
        },
        "O(n^2)",
        cpp={
            "O(n^3)": (
                '#include <cstdio>\n#include <vector>\nint main() {\n    int n; scanf("%d", &n);\n    std::vector<int> a(n);\n'
                '    for (auto& x : a) scanf("%d", &x);\n    long long c = 0;\n    for (int i = 0; i < n; i++)\n'
                "        for (int j = i + 1; j < n; j++)\n            for (int k = j + 1; k < n; k++)\n"
                '                c += (a[i] + a[j] + a[k] == 0);\n    printf("%lld\\n", c);\n}\n'
            ),
        },
    ),
    Case(
        "stdin-zero-subsets",
        None,
        _SMALL,
        {
            "O(2^n)": (
                "import sys, threading\ndef main():\n    data = sys.stdin.read().split()\n    n = int(data[0])\n"
                "    a = list(map(int, data[1:n + 1]))\n    def go(i, s):\n        if i == n:\n            return int(s == 0)\n"
                "        return go(i + 1, s) + go(i + 1, s + a[i])\n    print(go(0, 0))\n"
                "sys.setrecursionlimit(10000)\nthreading.stack_size(1 << 26)\nthreading.Thread(target=main).start()\n"
            ),
            "O(n^2)": (
                "n = int(input())\na = list(map(int, input().split()))\nways = {0: 1}\nfor x in a:\n"
                "    nxt = dict(ways)\n    for s, c in ways.items():\n        nxt[s + x] = (nxt.get(s + x, 0) + c) % 1000000007\n"
                "    ways = nxt\nprint(ways.get(0, 0))\n"
            ),
        },
        "O(n^2)",
        cpp={
            "O(2^n)": (
                "#include <cstdio>\nint n, a[64];\nlong long go(int i, int s) {\n    if (i == n) return s == 0;\n"
                '    return go(i + 1, s) + go(i + 1, s + a[i]);\n}\nint main() {\n    scanf("%d", &n);\n'
                '    for (int i = 0; i < n; i++) scanf("%d", &a[i]);\n    printf("%lld\\n", go(0, 0));\n}\n'
            ),
        },
    ),
    Case(
        "stdin-divisor-sums",
        None,
        _N,
        {
            "O(n log n)": (
                "n = int(input())\nd = [0] * (n + 1)\nfor i in range(1, n + 1):\n    for j in range(i, n + 1, i):\n"
                "        d[j] += i\nprint(sum(d) % 998244353)\n"
            ),
            "O(n)": (
                "n = int(input())\nt = 0\nfor i in range(1, n + 1):\n    t += i * (n // i)\nprint(t % 998244353)\n"
            ),
        },
        "O(n)",
        cpp={
            "O(n log n)": (
                '#include <cstdio>\n#include <vector>\nint main() {\n    int n; scanf("%d", &n);\n'
                "    std::vector<long long> d(n + 1);\n    for (int i = 1; i <= n; i++)\n"
                "        for (int j = i; j <= n; j += i) d[j] += i;\n    long long t = 0;\n"
                '    for (int i = 1; i <= n; i++) t = (t + d[i]) % 998244353;\n    printf("%lld\\n", t);\n}\n'
            ),
            "O(n^2)": (
                '#include <cstdio>\nint main() {\n    long long n, t = 0; scanf("%lld", &n);\n'
                "    for (long long i = 1; i <= n; i++)\n        for (long long j = 1; j <= n; j++)\n"
                '            t += (i % j == 0) ? j : 0;\n    printf("%lld\\n", t % 998244353);\n}\n'
            ),
        },
    ),
    Case(
        "stdin-sort-output",
        None,
        _LIST,
        {
            "O(n log n)": (
                "import sys\ninput = sys.stdin.readline\nn = int(input())\nxs = sorted(map(int, input().split()))\n"
                "sys.stdout.write(' '.join(map(str, xs[:10])) + '\\n')\n"
            ),
            "O(n^2)": (
                "n = int(input())\nxs = list(map(int, input().split()))\nfor i in range(n):\n    m = i\n"
                "    for j in range(i + 1, n):\n        if xs[j] < xs[m]:\n            m = j\n"
                "    xs[i], xs[m] = xs[m], xs[i]\nprint(*xs[:10])\n"
            ),
        },
        "O(n log n)",
    ),
]
