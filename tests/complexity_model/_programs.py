"""Hand-written programs of known time class, per language, for the static analyser's tests."""

from __future__ import annotations

PYTHON: dict[str, tuple[str, str]] = {
    "constant arithmetic": (
        "O(1)",
        "n, k = map(int, input().split())\nprint((n + k - 1) // k)\n",
    ),
    "constant-size loop over the alphabet": (
        "O(1)",
        "n = int(input())\ntotal = 0\nfor c in range(26):\n    total += c * n\nprint(total)\n",
    ),
    "independent test cases": (
        "O(1)",
        "for _ in range(int(input())):\n    a, b = map(int, input().split())\n    print(a + b)\n",
    ),
    "halving loop": (
        "O(log n)",
        "n = int(input())\nsteps = 0\nwhile n > 0:\n    n //= 2\n    steps += 1\nprint(steps)\n",
    ),
    "binary search on the answer": (
        "O(log n)",
        "n = int(input())\nlo, hi = 0, n\nwhile lo < hi:\n    mid = (lo + hi) // 2\n"
        "    if mid * mid >= n:\n        hi = mid\n    else:\n        lo = mid + 1\nprint(lo)\n",
    ),
    "single loop": (
        "O(n)",
        "n = int(input())\na = list(map(int, input().split()))\nbest = 0\n"
        "for x in a:\n    best = max(best, x)\nprint(best)\n",
    ),
    "breadth-first search": (
        "O(n)",
        "from collections import deque\nn, m = map(int, input().split())\n"
        "adj = [[] for _ in range(n)]\nfor _ in range(m):\n"
        "    u, v = map(int, input().split())\n    adj[u].append(v)\n    adj[v].append(u)\n"
        "seen = [False] * n\nqueue = deque([0])\nwhile queue:\n    u = queue.popleft()\n"
        "    for v in adj[u]:\n        if not seen[v]:\n            seen[v] = True\n"
        "            queue.append(v)\nprint(sum(seen))\n",
    ),
    "two pointers": (
        "O(n)",
        "n, k = map(int, input().split())\na = list(map(int, input().split()))\nleft = 0\n"
        "total = best = 0\nfor right in range(n):\n    total += a[right]\n"
        "    while total > k:\n        total -= a[left]\n        left += 1\n"
        "    best = max(best, right - left + 1)\nprint(best)\n",
    ),
    "sort then scan": (
        "O(n log n)",
        "n = int(input())\na = sorted(map(int, input().split()))\nprint(a[n // 2])\n",
    ),
    "heap in a loop": (
        "O(n log n)",
        "import heapq\nn = int(input())\nh = []\nfor x in map(int, input().split()):\n"
        "    heapq.heappush(h, x)\nprint(heapq.heappop(h))\n",
    ),
    "all pairs": (
        "O(n^2)",
        "n = int(input())\na = list(map(int, input().split()))\nc = 0\nfor i in range(n):\n"
        "    for j in range(i + 1, n):\n        if a[i] > a[j]:\n            c += 1\nprint(c)\n",
    ),
    "interval dynamic programme": (
        "O(n^3)",
        "n = int(input())\nd = [[0] * n for _ in range(n)]\nfor length in range(1, n):\n"
        "    for s in range(n - length):\n        for m in range(s, s + length):\n"
        "            d[s][s + length] = max(d[s][s + length], d[s][m] + d[m + 1][s + length])\n"
        "print(d[0][n - 1])\n",
    ),
    "bitmask enumeration": (
        "O(2^n)",
        "n = int(input())\na = list(map(int, input().split()))\ncount = 0\n"
        "for mask in range(1 << n):\n    if sum(a[i] for i in range(n) if mask >> i & 1) == 0:\n"
        "        count += 1\nprint(count)\n",
    ),
    "branching recursion": (
        "O(2^n)",
        "def ways(i, total):\n    if i == n:\n        return int(total == 0)\n"
        "    return ways(i + 1, total + a[i]) + ways(i + 1, total - a[i])\n"
        "n = int(input())\na = list(map(int, input().split()))\nprint(ways(0, 0))\n",
    ),
}

JAVA_PREFIX = "import java.util.*;\npublic class Main {\n"
JAVA_SUFFIX = "\n}\n"


def _java(body: str) -> str:
    return JAVA_PREFIX + body + JAVA_SUFFIX


JAVA: dict[str, tuple[str, str]] = {
    "constant arithmetic": (
        "O(1)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    long n = in.nextLong();\n    System.out.println(n / 2 + n);\n  }"
        ),
    ),
    "test cases with a constant body": (
        "O(1)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int t = in.nextInt();\n    while (t-- > 0) {\n      long a = in.nextLong();\n"
            "      System.out.println(a * 2);\n    }\n  }"
        ),
    ),
    "doubling loop": (
        "O(log n)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    long n = in.nextLong();\n    int c = 0;\n"
            "    for (long i = 1; i < n; i *= 2) c++;\n    System.out.println(c);\n  }"
        ),
    ),
    "single loop": (
        "O(n)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int n = in.nextInt();\n    long s = 0;\n    for (int i = 0; i < n; i++) "
            "s += in.nextInt();\n    System.out.println(s);\n  }"
        ),
    ),
    "Arrays.sort": (
        "O(n log n)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int n = in.nextInt();\n    int[] a = new int[n];\n"
            "    for (int i = 0; i < n; i++) a[i] = in.nextInt();\n    Arrays.sort(a);\n"
            "    System.out.println(a[0]);\n  }"
        ),
    ),
    "sliding window": (
        "O(n)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int n = in.nextInt();\n    int[] a = new int[n];\n"
            "    int[] seen = new int[n + 1];\n"
            "    for (int i = 0; i < n; i++) a[i] = in.nextInt();\n    int st = 0, best = 0;\n"
            "    for (int i = 0; i < n; i++) {\n      seen[a[i]]++;\n"
            "      while (seen[a[st]] > 1) { seen[a[st]]--; st++; }\n"
            "      best = Math.max(best, i - st + 1);\n    }\n    System.out.println(best);\n  }"
        ),
    ),
    "nested loops": (
        "O(n^2)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int n = in.nextInt();\n    int c = 0;\n    for (int i = 0; i < n; i++)\n"
            "      for (int j = i + 1; j < n; j++) c++;\n    System.out.println(c);\n  }"
        ),
    ),
    "Floyd-Warshall": (
        "O(n^3)",
        _java(
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    int n = in.nextInt();\n    int[][] d = new int[n][n];\n"
            "    for (int k = 0; k < n; k++)\n      for (int i = 0; i < n; i++)\n"
            "        for (int j = 0; j < n; j++)\n"
            "          d[i][j] = Math.min(d[i][j], d[i][k] + d[k][j]);\n"
            "    System.out.println(d[0][n - 1]);\n  }"
        ),
    ),
    "memoised bitmask recursion": (
        "O(2^n)",
        _java(
            "  static int n;\n  static long[] memo;\n"
            "  static long go(int mask) {\n    if (memo[mask] != -1) return memo[mask];\n"
            "    long best = 0;\n    for (int i = 0; i < n; i++)\n"
            "      if ((mask & (1 << i)) == 0) best = Math.max(best, 1 + go(mask | (1 << i)));\n"
            "    return memo[mask] = best;\n  }\n"
            "  public static void main(String[] args) {\n    Scanner in = new Scanner(System.in);\n"
            "    n = in.nextInt();\n    memo = new long[1 << n];\n    Arrays.fill(memo, -1);\n"
            "    System.out.println(go(0));\n  }"
        ),
    ),
}

CPP: dict[str, tuple[str, str]] = {
    "constant arithmetic": (
        "O(1)",
        '#include <cstdio>\nint main() {\n  long long n;\n  scanf("%lld", &n);\n'
        '  printf("%lld\\n", n * 3 / 2);\n  return 0;\n}\n',
    ),
    "halving loop": (
        "O(log n)",
        "#include <iostream>\nint main() {\n  long long n;\n  std::cin >> n;\n  int c = 0;\n"
        "  while (n > 0) { n /= 2; c++; }\n  std::cout << c;\n}\n",
    ),
    "std::sort": (
        "O(n log n)",
        "#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n  int n;\n  cin >> n;\n"
        "  vector<int> a(n);\n  for (int i = 0; i < n; i++) cin >> a[i];\n"
        "  sort(a.begin(), a.end());\n  cout << a[0];\n}\n",
    ),
    "nested loops": (
        "O(n^2)",
        "#include <bits/stdc++.h>\nusing namespace std;\nint main() {\n  int n;\n  cin >> n;\n"
        "  long long c = 0;\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < i; j++) c++;\n"
        "  cout << c;\n}\n",
    ),
    "lower_bound in a loop": (
        "O(n log n)",
        "#include <bits/stdc++.h>\nusing namespace std;\nint a[200005];\nint main() {\n"
        "  int n;\n  cin >> n;\n  for (int i = 0; i < n; i++) cin >> a[i];\n  long long s = 0;\n"
        "  for (int i = 0; i < n; i++) s += lower_bound(a, a + n, a[i]) - a;\n  cout << s;\n}\n",
    ),
    "fibonacci recursion": (
        "O(2^n)",
        "#include <cstdio>\nint fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
        'int main() { int n; scanf("%d", &n); printf("%d", fib(n)); }\n',
    ),
}
