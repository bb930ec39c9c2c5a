"""SandboxFusion's stdio comparison (``sandbox/utils/testing.py``), in the two places it runs.

Both outputs are stripped and split into lines (a final empty line on one side is dropped);
they must have as many lines, and each pair, lower-cased, must be equal once stripped or both be
numbers within a relative 1e-5.

``/submit`` with ``run_all_cases`` runs every test anyway, so the output comes back (up to the
1 MiB SandboxFusion itself captures) and :func:`outputs_match` compares it here, which costs
nothing per test. Without ``run_all_cases`` the job must stop at the first failure, so the
engine has to know what a failure is: then :data:`CHECKER` runs the same comparison as the
job's custom checker inside the sandbox (a Python process per test, about 20 ms). The two are
the same rules written twice; the tests run both on the same cases.
"""

from __future__ import annotations


def outputs_match(actual: str, expected: str) -> bool:
    got, want = actual.strip().split("\n"), expected.strip().split("\n")
    if len(got) - len(want) == 1 and got[-1] == "":
        got = got[:-1]
    if len(want) - len(got) == 1 and want[-1] == "":
        want = want[:-1]
    if len(got) != len(want):
        return False
    for got_line, want_line in zip(got, want, strict=True):
        g, w = got_line.lower(), want_line.lower()
        if g.strip() == w.strip():
            continue
        if not (_is_float(g) and _is_float(w)):
            return False
        if not abs(float(g) - float(w)) / max(abs(float(w)), 1e-10) < 1e-5:
            return False
    return True


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# argv: INPUT EXPECTED ACTUAL; exit 0 accepts, 1 rejects (see judge_service.sandbox.models).
CHECKER = r"""
import sys


def lines(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace").strip().split("\n")


def is_float(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


want, got = lines(sys.argv[2]), lines(sys.argv[3])
if len(got) - len(want) == 1 and got[-1] == "":
    got = got[:-1]
if len(want) - len(got) == 1 and want[-1] == "":
    want = want[:-1]
if len(got) != len(want):
    print(f"expected {len(want)} lines, got {len(got)}")
    sys.exit(1)
for number, (g, w) in enumerate(zip(got, want), 1):
    g, w = g.lower(), w.lower()
    if g.strip() == w.strip():
        continue
    if is_float(w) and is_float(g) and abs(float(g) - float(w)) / max(abs(float(w)), 1e-10) < 1e-5:
        continue
    print(f"line {number} differs")
    sys.exit(1)
"""
