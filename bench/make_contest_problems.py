"""Write CodeContests-style problems (stdin, no input generator) with labelled solutions.

Written for the derived generators: several test cases under a leading T, grids, strings,
queries and edge lists, each with a handful of example tests as a statement gives them, a
reference and solutions of different classes (n is the size a derived generator grows: an
array's length, a string's length, a grid's side). Expected outputs are the reference's.

    .venv/bin/python bench/make_contest_problems.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

OUT = (
    Path(__file__).resolve().parent.parent / "complexity_model" / "data" / "contest_problems.jsonl"
)

KADANE = """import sys
def main():
    data = sys.stdin.read().split()
    t = int(data[0]); i = 1; out = []
    for _ in range(t):
        n = int(data[i]); xs = list(map(int, data[i + 1:i + 1 + n])); i += 1 + n
        best = cur = xs[0]
        for x in xs[1:]:
            cur = max(x, cur + x)
            best = max(best, cur)
        out.append(best)
    print("\\n".join(map(str, out)))
main()
"""
SUBARRAY_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    t = int(data[0]); i = 1; out = []
    for _ in range(t):
        n = int(data[i]); xs = list(map(int, data[i + 1:i + 1 + n])); i += 1 + n
        best = xs[0]
        for a in range(n):
            s = 0
            for b in range(a, n):
                s += xs[b]
                if s > best:
                    best = s
        out.append(best)
    print("\\n".join(map(str, out)))
main()
"""
GRID_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1]); g = data[2:2 + n]
    rows = [r.count('#') for r in g]
    cols = [0] * m
    for r in g:
        for j, c in enumerate(r):
            if c == '#':
                cols[j] += 1
    total = 0
    for i in range(n):
        for j in range(m):
            total += rows[i] + cols[j]
    print(total)
main()
"""
GRID_N3 = """import sys
def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1]); g = data[2:2 + n]
    total = 0
    for i in range(n):
        for j in range(m):
            for k in range(m):
                total += g[i][k] == '#'
            for k in range(n):
                total += g[k][j] == '#'
    print(total)
main()
"""
PAIRS_N = """from collections import Counter
s = input().strip()
print(sum(c * (c - 1) // 2 for c in Counter(s).values()))
"""
PAIRS_N2 = """s = input().strip()
n = len(s); total = 0
for i in range(n):
    for j in range(i + 1, n):
        if s[i] == s[j]:
            total += 1
print(total)
"""
DEGREE_N = """import sys
def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1]); deg = [0] * (n + 1)
    for k in range(m):
        deg[int(data[2 + 2 * k])] += 1; deg[int(data[3 + 2 * k])] += 1
    print(max(deg))
main()
"""
DEGREE_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 2 * k]), int(data[3 + 2 * k])) for k in range(m)]
    best = 0
    for v in range(1, n + 1):
        d = 0
        for a, b in edges:
            d += (a == v) + (b == v)
        best = max(best, d)
    print(best)
main()
"""
QUERIES_N = """import sys
def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1]); xs = data[2:2 + n]
    pre = [0]
    for x in xs:
        pre.append(pre[-1] + int(x))
    out = []
    p = 2 + n
    for _ in range(q):
        l, r = int(data[p]), int(data[p + 1]); p += 2
        out.append(pre[r] - pre[l - 1])
    print("\\n".join(map(str, out)))
main()
"""
QUERIES_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1]); xs = list(map(int, data[2:2 + n]))
    out = []
    p = 2 + n
    for _ in range(q):
        l, r = int(data[p]), int(data[p + 1]); p += 2
        s = 0
        for i in range(l - 1, r):
            s += xs[i]
        out.append(s)
    print("\\n".join(map(str, out)))
main()
"""
WINDOW_N = """import sys
def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1]); xs = list(map(int, data[2:2 + n]))
    s = sum(xs[:k]); best = s
    for i in range(k, n):
        s += xs[i] - xs[i - k]
        best = max(best, s)
    print(best)
main()
"""
WINDOW_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1]); xs = list(map(int, data[2:2 + n]))
    best = None
    for i in range(n - k + 1):
        s = 0
        for j in range(i, i + k):
            s += xs[j]
        best = s if best is None or s > best else best
    print(best)
main()
"""
INVERSIONS_NLOGN = """import sys
def count(xs):
    if len(xs) < 2:
        return xs, 0
    mid = len(xs) // 2
    left, a = count(xs[:mid]); right, b = count(xs[mid:])
    merged = []; i = j = 0; c = a + b
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i]); i += 1
        else:
            merged.append(right[j]); j += 1; c += len(left) - i
    merged += left[i:]; merged += right[j:]
    return merged, c
def main():
    data = sys.stdin.read().split()
    t = int(data[0]); p = 1; out = []
    for _ in range(t):
        n = int(data[p]); xs = list(map(int, data[p + 1:p + 1 + n])); p += 1 + n
        out.append(count(xs)[1])
    print("\\n".join(map(str, out)))
main()
"""
INVERSIONS_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    t = int(data[0]); p = 1; out = []
    for _ in range(t):
        n = int(data[p]); xs = list(map(int, data[p + 1:p + 1 + n])); p += 1 + n
        c = 0
        for i in range(n):
            for j in range(i + 1, n):
                if xs[i] > xs[j]:
                    c += 1
        out.append(c)
    print("\\n".join(map(str, out)))
main()
"""
ROWMAX_N2 = """import sys
def main():
    data = sys.stdin.read().split()
    n = int(data[0]); total = 0
    for i in range(n):
        total += max(map(int, data[1 + i * n:1 + (i + 1) * n]))
    print(total)
main()
"""
ROWMAX_N3 = """import sys
def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = [list(map(int, data[1 + i * n:1 + (i + 1) * n])) for i in range(n)]
    total = 0
    for i in range(n):
        for j in range(n):
            if sum(1 for k in range(n) if a[i][k] > a[i][j]) == 0:
                total += a[i][j]
                break
    print(total)
main()
"""
SORTED_N = """n = int(input())
xs = input().split()
print(sum(1 for i in range(n) if i == 0 or xs[i] != xs[i - 1]))
"""
SORTED_N2 = """n = int(input())
xs = list(map(int, input().split()))
c = 0
for i in range(n):
    if all(xs[j] != xs[i] for j in range(i)):
        c += 1
print(c)
"""
VOWELS_N = """t = int(input())
for _ in range(t):
    s = input().strip()
    print(sum(ch in 'aeiou' for ch in s))
"""
VOWELS_N2 = """t = int(input())
for _ in range(t):
    s = input().strip()
    c = 0
    for i in range(len(s)):
        if s[i] in 'aeiou' and s[:i + 1].count(s[i]) >= 1:
            c += 1
    print(c)
"""

PROBLEMS: list[dict[str, Any]] = [
    {
        "id": "cc-max-subarray-cases",
        "tests": [
            "3\n3\n1 -2 3\n4\n-1 -2 -3 -4\n5\n2 -1 2 -1 2\n",
            "1\n6\n5 -9 6 -2 3 -10\n",
            "2\n1\n7\n3\n-5 4 -1\n",
        ],
        "optimal": "O(n)",
        "solutions": {"O(n)": KADANE, "O(n^2)": SUBARRAY_N2},
    },
    {
        "id": "cc-grid-row-col",
        "tests": [
            "2 3\n#.#\n..#\n",
            "3 3\n...\n.#.\n##.\n",
            "1 4\n#..#\n",
            "4 2\n#.\n.#\n##\n..\n",
        ],
        "optimal": "O(n^2)",
        "solutions": {"O(n^2)": GRID_N2, "O(n^3)": GRID_N3},
    },
    {
        "id": "cc-equal-letter-pairs",
        "tests": ["abca\n", "zzzz\n", "abcdef\n", "banana\n"],
        "optimal": "O(n)",
        "solutions": {"O(n)": PAIRS_N, "O(n^2)": PAIRS_N2},
    },
    {
        "id": "cc-max-degree",
        "tests": [
            "4 3\n1 2\n2 3\n2 4\n",
            "5 5\n1 2\n1 3\n1 4\n4 5\n3 5\n",
            "3 1\n1 3\n",
            "6 4\n6 1\n5 4\n4 6\n2 4\n",
        ],
        "optimal": "O(n)",
        "solutions": {"O(n)": DEGREE_N, "O(n^2)": DEGREE_N2},
    },
    {
        "id": "cc-range-sum-queries",
        "tests": [
            "5 3\n1 2 3 4 5\n1 3\n2 5\n4 4\n",
            "4 2\n9 9 9 9\n1 4\n2 3\n",
            "6 4\n1 1 1 1 1 1\n3 6\n1 1\n2 4\n5 6\n",
        ],
        "optimal": "O(n)",
        "solutions": {"O(n)": QUERIES_N, "O(n^2)": QUERIES_N2},
    },
    {
        "id": "cc-best-window",
        "tests": [
            "6 3\n1 5 2 8 1 1\n",
            "5 2\n4 4 1 9 9\n",
            "4 4\n1 2 3 4\n",
            "7 3\n7 1 1 1 9 9 0\n",
        ],
        "optimal": "O(n)",
        "solutions": {"O(n)": WINDOW_N, "O(n^2)": WINDOW_N2},
    },
    {
        "id": "cc-inversions-cases",
        "tests": [
            "2\n4\n4 3 2 1\n3\n1 2 3\n",
            "1\n6\n3 1 4 1 5 9\n",
            "3\n1\n5\n2\n2 1\n5\n5 1 4 2 3\n",
        ],
        "optimal": "O(n log n)",
        "solutions": {"O(n log n)": INVERSIONS_NLOGN, "O(n^2)": INVERSIONS_N2},
    },
    {
        "id": "cc-row-maxima",
        "tests": [
            "2\n1 5\n7 3\n",
            "3\n1 2 3\n6 5 4\n9 9 1\n",
            "1\n42\n",
            "4\n1 1 1 1\n2 8 2 2\n3 3 9 3\n4 4 4 4\n",
        ],
        "optimal": "O(n^2)",
        "solutions": {"O(n^2)": ROWMAX_N2, "O(n^3)": ROWMAX_N3},
    },
    {
        "id": "cc-sorted-distinct",
        "tests": ["5\n1 1 2 3 3\n", "7\n2 4 4 4 8 9 11\n", "3\n5 5 5\n", "8\n1 2 3 5 8 13 21 34\n"],
        "optimal": "O(n)",
        "solutions": {"O(n)": SORTED_N, "O(n^2)": SORTED_N2},
    },
    {
        "id": "cc-vowel-cases",
        "tests": ["2\nhello\nsky\n", "3\naeiou\nbanana\nx\n", "1\nprogramming\n"],
        "optimal": "O(n)",
        "solutions": {"O(n)": VOWELS_N, "O(n^2)": VOWELS_N2},
    },
]


def _run(code: str, stdin: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with args.out.open("w", encoding="utf-8") as handle:
        for spec in PROBLEMS:
            reference = spec["solutions"][spec["optimal"]]
            for code in spec["solutions"].values():  # every solution answers the examples alike
                assert [_run(code, t) for t in spec["tests"]] == [
                    _run(reference, t) for t in spec["tests"]
                ], spec["id"]
            row = {
                "id": spec["id"],
                "mode": "stdin",
                "tests": [{"input": t, "output": _run(reference, t)} for t in spec["tests"]],
                "reference": {"language": "python", "code": reference},
                "optimal_complexity": spec["optimal"],
                "memory_limit_mb": 1024,
                "solutions": [
                    {"language": "python", "label": label, "code": code}
                    for label, code in spec["solutions"].items()
                ],
            }
            handle.write(json.dumps(row) + "\n")
    print(f"wrote {len(PROBLEMS)} problems to {args.out}")


if __name__ == "__main__":
    main()
