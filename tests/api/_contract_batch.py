"""The contract batch: Python, C++ and Java submissions to the sum problem, 60/30/10, about
70 % correct, with the verdict each must get. Shared by the cluster and CPU-slot tests and by
``bench/cpu_slots_ab.py``."""

from __future__ import annotations

from typing import Any

SUM = {
    "id": "sum",
    "tests": [{"input": f"{i} {i + 1}\n", "output": str(2 * i + 1)} for i in range(5)],
}
JAVA_AC = (
    "import java.util.*;\npublic class Main { public static void main(String[] a) {"
    " Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong();"
    " System.out.println(x %s y); } }\n"
)
CPP = '#include <cstdio>\nint main(){long a,b;scanf("%%ld %%ld",&a,&b);printf("%%ld\\n",%s);}\n'


def contract_batch(size: int) -> tuple[list[dict[str, Any]], list[str]]:
    """``size`` submissions in Python, C++ and Java, with the verdict each must get.

    Python programs are all different (each runs); C++ and Java repeat a few programs, as
    rollouts do, so compiling stays cheap.
    """
    items: list[dict[str, Any]] = []
    expected: list[str] = []
    for index in range(size):
        kind = index % 10
        if kind < 6:
            language = "python"
            if index % 7 == 0:
                code, verdict = f"a, b = map(int, input().split())\nprint(a - b + {index})\n", "WA"
            elif index % 11 == 0:
                code, verdict = f"raise SystemExit({index % 100 + 1})\n", "RE"
            else:
                code, verdict = (
                    f"a, b = map(int, input().split())\nprint(a + b + 0 * {index})\n",
                    "AC",
                )
        elif kind < 9:
            language = "cpp"
            variant = index % 4
            code = CPP % ("a+b", "a*b", "a+b+1", "a+b")[variant]
            verdict = ("AC", "WA", "WA", "AC")[variant]
            if variant == 3:
                code, verdict = code.replace("scanf", "scanff"), "CE"
        else:
            language = "java"
            variant = index % 3
            code = JAVA_AC % ("+", "-", "+")[variant]
            verdict = ("AC", "WA", "CE")[variant]
            if variant == 2:
                code = code.replace("println", "printline")
        items.append({"id": f"s{index}", "problem_id": "sum", "language": language, "code": code})
        expected.append(verdict)
    return items, expected
