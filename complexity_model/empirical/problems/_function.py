# ruff: noqa: E501  (solution sources are data; their lines are kept whole)
"""Function-mode problems: ``generate(n)`` returns the argument list for an input of size n."""

from __future__ import annotations

from complexity_model.empirical.problems._case import Case

__all__ = ["FUNCTION_CASES"]


_RANDOM_LIST = (
    "import random\ndef generate(n):\n    return [[random.randint(0, 10**6) for _ in range(n)]]\n"
)
_SORTED_LIST = (
    "import random\ndef generate(n):\n"
    "    xs = sorted(random.sample(range(4 * n + 4), n))\n"
    "    return [xs, 4 * n + 5]\n"
)
_JUST_N = "def generate(n):\n    return [n]\n"
_TINY_LIST = (
    "import random\ndef generate(n):\n    return [[random.randint(-5, 5) for _ in range(n)]]\n"
)
_SMALL_LIST = (
    "import random\ndef generate(n):\n    return [[random.randint(-50, 50) for _ in range(n)]]\n"
)

FUNCTION_CASES: list[Case] = [
    Case(
        "first-element",
        "f",
        _RANDOM_LIST,
        {
            "O(1)": "def f(xs):\n    return xs[0] + xs[-1] if xs else 0\n",
            "O(n)": "def f(xs):\n    first = last = None\n    for x in xs:\n        if first is None:\n            first = x\n        last = x\n    return first + last if xs else 0\n",
        },
        "O(1)",
    ),
    Case(
        "sum-to-n",
        "f",
        _JUST_N,
        {
            "O(1)": "def f(n):\n    return n * (n + 1) // 2\n",
            "O(n)": "def f(n):\n    t = 0\n    for i in range(n + 1):\n        t += i\n    return t\n",
        },
        "O(1)",
    ),
    Case(
        "search-sorted",
        "f",
        _SORTED_LIST,
        {
            "O(log n)": (
                "def f(xs, target):\n    lo, hi = 0, len(xs)\n    while lo < hi:\n"
                "        mid = (lo + hi) // 2\n        if xs[mid] < target:\n            lo = mid + 1\n"
                "        else:\n            hi = mid\n    return lo\n"
            ),
            "O(n)": (
                "def f(xs, target):\n    for i, x in enumerate(xs):\n        if x >= target:\n"
                "            return i\n    return len(xs)\n"
            ),
        },
        "O(log n)",
    ),
    Case(
        "power-mod",
        "f",
        _JUST_N,
        {
            "O(log n)": (
                "def f(n):\n    result, base, e = 1, 3, n\n    while e:\n        if e & 1:\n"
                "            result = result * base % 1000000007\n        base = base * base % 1000000007\n"
                "        e >>= 1\n    return result\n"
            ),
            "O(n)": "def f(n):\n    r = 1\n    for _ in range(n):\n        r = r * 3 % 1000000007\n    return r\n",
        },
        "O(log n)",
    ),
    Case(
        "fibonacci-mod",
        "f",
        _JUST_N,
        {
            "O(n)": "def f(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, (a + b) % 1000000007\n    return a\n",
            "O(2^n)": "def f(n):\n    return n if n < 2 else f(n - 1) + f(n - 2)\n",
            "O(log n)": (
                "def f(n):\n    def mul(x, y):\n        m = 1000000007\n"
                "        return [[(x[0][0]*y[0][0] + x[0][1]*y[1][0]) % m, (x[0][0]*y[0][1] + x[0][1]*y[1][1]) % m],\n"
                "                [(x[1][0]*y[0][0] + x[1][1]*y[1][0]) % m, (x[1][0]*y[0][1] + x[1][1]*y[1][1]) % m]]\n"
                "    r, b = [[1, 0], [0, 1]], [[1, 1], [1, 0]]\n    while n:\n        if n & 1:\n"
                "            r = mul(r, b)\n        b = mul(b, b)\n        n >>= 1\n    return r[0][1]\n"
            ),
        },
        "O(log n)",
    ),
    Case(
        "count-inversions",
        "f",
        _RANDOM_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    c = 0\n    for i in range(len(xs)):\n        for j in range(i + 1, len(xs)):\n"
                "            if xs[i] > xs[j]:\n                c += 1\n    return c\n"
            ),
            "O(n log n)": (
                "def f(xs):\n    def sort(a):\n        if len(a) < 2:\n            return a, 0\n"
                "        mid = len(a) // 2\n        left, x = sort(a[:mid])\n        right, y = sort(a[mid:])\n"
                "        merged, i, j, c = [], 0, 0, x + y\n        while i < len(left) and j < len(right):\n"
                "            if left[i] <= right[j]:\n                merged.append(left[i]); i += 1\n"
                "            else:\n                merged.append(right[j]); j += 1; c += len(left) - i\n"
                "        merged += left[i:] + right[j:]\n        return merged, c\n    return sort(list(xs))[1]\n"
            ),
        },
        "O(n log n)",
        reference=(
            "def f(xs):\n"
            "    ranks = {v: i + 1 for i, v in enumerate(sorted(set(xs)))}\n"
            "    tree = [0] * (len(ranks) + 1)\n"
            "    c = 0\n"
            "    for k, x in enumerate(xs):\n"
            "        s = 0\n"
            "        i = r = ranks[x]\n"
            "        while i:\n"
            "            s += tree[i]\n"
            "            i -= i & -i\n"
            "        c += k - s\n"
            "        i = r\n"
            "        while i < len(tree):\n"
            "            tree[i] += 1\n"
            "            i += i & -i\n"
            "    return c\n"
        ),
    ),
    Case(
        "pair-with-sum",
        "f",
        _RANDOM_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    for i in range(len(xs)):\n        for j in range(i + 1, len(xs)):\n"
                "            if xs[i] + xs[j] == -7:\n                return True\n    return False\n"
            ),
            "O(n)": (
                "def f(xs):\n    seen = set()\n    for x in xs:\n        if -7 - x in seen:\n"
                "            return True\n        seen.add(x)\n    return False\n"
            ),
        },
        "O(n)",
        reference=(
            "def f(xs):\n"
            "    index = {}\n"
            "    for i, x in enumerate(xs):\n"
            "        if -7 - x in index:\n"
            "            return True\n"
            "        index[x] = i\n"
            "    return False\n"
        ),
    ),
    Case(
        "zero-triples",
        "f",
        _SMALL_LIST,
        {
            "O(n^3)": (
                "def f(xs):\n    n, c = len(xs), 0\n    for i in range(n):\n        for j in range(i + 1, n):\n"
                "            for k in range(j + 1, n):\n                if xs[i] + xs[j] + xs[k] == 1000:\n"
                "                    c += 1\n    return c\n"
            ),
            "O(n^2)": (
                "def f(xs):\n    n, c = len(xs), 0\n    for i in range(n):\n        seen = set()\n"
                "        for j in range(i + 1, n):\n            if 1000 - xs[i] - xs[j] in seen:\n"
                "                c += 1\n            seen.add(xs[j])\n    return c\n"
            ),
        },
        "O(n^2)",
    ),
    Case(
        "matrix-product",
        "f",
        "import random\ndef generate(n):\n    return [[[random.randint(0, 9) for _ in range(n)] for _ in range(n)]]\n",
        {
            "O(n^3)": (
                "def f(a):\n    n = len(a)\n    t = 0\n    for i in range(n):\n        for j in range(n):\n"
                "            s = 0\n            for k in range(n):\n                s += a[i][k] * a[k][j]\n"
                "            t += s\n    return t\n"
            ),
            "O(n^2)": (
                "def f(a):\n    n = len(a)\n    rows = [sum(row) for row in a]\n    cols = [0] * n\n"
                "    for row in a:\n        for k, v in enumerate(row):\n            cols[k] += v\n"
                "    return sum(cols[k] * rows[k] for k in range(n))\n"
            ),
        },
        "O(n^2)",
    ),
    Case(
        "prefix-sums",
        "f",
        _RANDOM_LIST,
        {
            "O(n)": "def f(xs):\n    out, t = [], 0\n    for x in xs:\n        t += x\n        out.append(t)\n    return out[-1] if out else 0\n",
            "O(n^2)": (
                "def f(xs):\n    out = []\n    for i in range(len(xs)):\n        t = 0\n"
                "        for j in range(i + 1):\n            t += xs[j]\n        out.append(t)\n"
                "    return out[-1] if out else 0\n"
            ),
        },
        "O(n)",
        reference=(
            "import itertools\n"
            "def f(xs):\n"
            "    return list(itertools.accumulate(xs))[-1] if xs else 0\n"
        ),
    ),
    Case(
        "distinct-count",
        "f",
        _RANDOM_LIST,
        {
            "O(n)": "def f(xs):\n    return len(set(xs))\n",
            "O(n^2)": (
                "def f(xs):\n    seen = []\n    for x in xs:\n        found = False\n"
                "        for y in seen:\n            if y == x:\n                found = True\n"
                "                break\n        if not found:\n            seen.append(x)\n    return len(seen)\n"
            ),
            "O(n log n)": (
                "def f(xs):\n    s = sorted(xs)\n    return sum(1 for i in range(len(s)) if i == 0 or s[i] != s[i - 1])\n"
            ),
        },
        "O(n)",
        reference=("def f(xs):\n    return len(dict.fromkeys(xs))\n"),
    ),
    Case(
        "sort-numbers",
        "f",
        _RANDOM_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    a = list(xs)\n    for i in range(1, len(a)):\n        v, j = a[i], i - 1\n"
                "        while j >= 0 and a[j] > v:\n            a[j + 1] = a[j]\n            j -= 1\n"
                "        a[j + 1] = v\n    return a[len(a) // 2] if a else 0\n"
            ),
            "O(n log n)": (
                "def f(xs):\n    def merge_sort(a):\n        if len(a) < 2:\n            return a\n"
                "        m = len(a) // 2\n        l, r = merge_sort(a[:m]), merge_sort(a[m:])\n"
                "        out, i, j = [], 0, 0\n        while i < len(l) and j < len(r):\n"
                "            if l[i] <= r[j]:\n                out.append(l[i]); i += 1\n"
                "            else:\n                out.append(r[j]); j += 1\n"
                "        return out + l[i:] + r[j:]\n    a = merge_sort(list(xs))\n    return a[len(a) // 2] if a else 0\n"
            ),
        },
        "O(n log n)",
        reference=("def f(xs):\n    a = sorted(xs)\n    return a[len(a) // 2] if a else 0\n"),
    ),
    Case(
        "longest-increasing",
        "f",
        _RANDOM_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    best = [1] * len(xs)\n    for i in range(len(xs)):\n        for j in range(i):\n"
                "            if xs[j] < xs[i] and best[j] + 1 > best[i]:\n                best[i] = best[j] + 1\n"
                "    return max(best, default=0)\n"
            ),
            "O(n log n)": (
                "def f(xs):\n    tails = []\n    for x in xs:\n        lo, hi = 0, len(tails)\n"
                "        while lo < hi:\n            mid = (lo + hi) // 2\n            if tails[mid] < x:\n"
                "                lo = mid + 1\n            else:\n                hi = mid\n"
                "        if lo == len(tails):\n            tails.append(x)\n        else:\n            tails[lo] = x\n"
                "    return len(tails)\n"
            ),
        },
        "O(n log n)",
    ),
    Case(
        "hanoi-moves",
        "f",
        _JUST_N,
        {
            "O(2^n)": (
                "def f(n):\n    def move(k):\n        return 0 if k == 0 else move(k - 1) + 1 + move(k - 1)\n"
                "    return move(n)\n"
            ),
            "O(log n)": "def f(n):\n    return (pow(2, n, 1000000007) - 1) % 1000000007\n",
        },
        "O(log n)",
    ),
    Case(
        "subset-sums",
        "f",
        _TINY_LIST,
        {
            "O(2^n)": (
                "def f(xs):\n    def count(i, total):\n        if i == len(xs):\n            return 1 if total == 0 else 0\n"
                "        return count(i + 1, total) + count(i + 1, total + xs[i])\n    return count(0, 0)\n"
            ),
            "O(n^2)": (
                "def f(xs):\n    ways = {0: 1}\n    for x in xs:\n        nxt = dict(ways)\n"
                "        for s, c in ways.items():\n            nxt[s + x] = (nxt.get(s + x, 0) + c) % 1000000007\n"
                "        ways = nxt\n    return ways.get(0, 0)\n"
            ),
        },
        "O(n^2)",
    ),
    Case(
        "doubling-steps",
        "f",
        _JUST_N,
        {
            "O(log n)": "def f(n):\n    i, c = 1, 0\n    while i < n:\n        i *= 2\n        c += 1\n    return c\n",
            "O(n)": "def f(n):\n    c = 0\n    for i in range(1, n):\n        c += (i & (i - 1)) == 0\n    return c\n",
            "O(n log n)": (
                "def f(n):\n    c = 0\n    for i in range(1, n):\n        x, ones = i, 0\n        while x:\n"
                "            ones += x & 1\n            x >>= 1\n        c += ones == 1\n    return c\n"
            ),
        },
        "O(log n)",
    ),
    Case(
        "bit-counts",
        "f",
        _JUST_N,
        {
            "O(n log n)": (
                "def f(n):\n    total = 0\n    for i in range(n):\n        x = i\n        while x:\n"
                "            total += x & 1\n            x >>= 1\n    return total\n"
            ),
            "O(n)": (
                "def f(n):\n    bits = [0] * (n + 1)\n    for i in range(1, n + 1):\n"
                "        bits[i] = bits[i >> 1] + (i & 1)\n    return sum(bits[:n])\n"
            ),
        },
        "O(n)",
        reference=(
            "def f(n):\n"
            "    total, bits = 0, [0] * (n + 1)\n"
            "    for i in range(1, n):\n"
            "        bits[i] = bits[i & (i - 1)] + 1\n"
            "        total += bits[i]\n"
            "    return total\n"
        ),
    ),
    Case(
        "close-pairs",
        "f",
        _RANDOM_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    c = 0\n    for i in range(len(xs)):\n        for j in range(i + 1, len(xs)):\n"
                "            if abs(xs[i] - xs[j]) < 1000:\n                c += 1\n    return c\n"
            ),
            "O(n log n)": (
                "def f(xs):\n    s = sorted(xs)\n    c, j = 0, 0\n    for i in range(len(s)):\n"
                "        while s[i] - s[j] >= 1000:\n            j += 1\n        c += i - j\n    return c\n"
            ),
        },
        "O(n log n)",
    ),
    Case(
        "permutation-span",
        "f",
        "import random\ndef generate(n):\n    xs = list(range(n))\n    random.shuffle(xs)\n    return [xs]\n",
        {
            "O(1)": "def f(xs):\n    return len(xs) - 1\n",
            "O(n log n)": "def f(xs):\n    s = sorted(xs)\n    return s[-1] - s[0]\n",
        },
        "O(1)",
    ),
    Case(
        "all-pairs-gcd-like",
        "f",
        _SMALL_LIST,
        {
            "O(n^2)": (
                "def f(xs):\n    odd = sum(x & 1 for x in xs)\n    even = len(xs) - odd\n    c = 0\n"
                "    for a in xs:\n        for b in xs:\n            c += odd if (a + b) % 2 == 0 else even\n    return c\n"
            ),
            "O(n^3)": (
                "def f(xs):\n    c = 0\n    for a in xs:\n        for b in xs:\n            for d in xs:\n"
                "                c += (a + b + d) & 1\n    return c\n"
            ),
        },
        "O(n^2)",
    ),
    Case(
        "string-palindrome",
        "f",
        "import random\ndef generate(n):\n    half = ''.join(random.choice('ab') for _ in range(n // 2))\n    return [half + half[::-1]]\n",
        {
            "O(n)": (
                "def f(s):\n    i, j = 0, len(s) - 1\n    while i < j:\n        if s[i] != s[j]:\n"
                "            return False\n        i += 1\n        j -= 1\n    return True\n"
            ),
            "O(n^2)": (
                "def f(s):\n    n = len(s)\n    for i in range(n):\n        j = 0\n"
                "        while j < n - 1 - i:\n            j += 1\n        if s[i] != s[j]:\n"
                "            return False\n    return True\n"
            ),
        },
        "O(n)",
    ),
]
