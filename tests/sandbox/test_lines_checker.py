"""The ``lines`` checker is SandboxFusion's CommonOJDataset comparison, rule for rule.

``sandboxfusion_passes`` restates that rule on text (sandbox/utils/testing.py,
check_stdio_test_case: the output decoded, both sides ``strip()``-ed and split at "\\n", the
same number of lines, each pair equal lower-cased and stripped, or both ``float()``-able and
within a relative 1e-5); the checker must give the same answer on every edge case and on
random outputs, at any chunk size.
"""

from __future__ import annotations

import random

import pytest

from judge_service.sandbox.agent import checkers, streams


def sandboxfusion_passes(stdout: bytes, expected: str, rel_tol: float = 1e-5) -> bool:
    try:
        text = stdout.decode()
    except UnicodeDecodeError:
        return False  # SandboxFusion's stdout is then "[DecodeError] ...": never a pass
    got, want = text.strip().split("\n"), expected.strip().split("\n")
    if len(got) != len(want):
        return False
    for got_line, want_line in zip(got, want, strict=True):
        got_line, want_line = got_line.lower(), want_line.lower()
        if got_line.strip() == want_line.strip():
            continue
        try:
            got_number, want_number = float(got_line), float(want_line)
        except ValueError:
            return False
        if not abs(got_number - want_number) / max(abs(want_number), 1e-10) < rel_tol:
            return False
    return True


# (what the program prints, the expected output)
EDGE_CASES = [
    (b"3\n", "3"),  # missing final newline in the expected output
    (b"3", "3\n"),  # missing final newline in the output
    (b"3   \t\n", "3"),  # trailing whitespace
    (b"1 2  \n3\t\n", "1 2\n3"),  # trailing whitespace on every line
    (b"1\r\n2\r\n", "1\n2\n"),  # CRLF
    (b"1\n2\n", "1\r\n2\r\n"),  # CRLF expected
    (b"1\r2\n", "1\n2\n"),  # a bare CR does not end a line
    (b"", ""),  # empty output, empty expected
    (b"", "0"),  # empty output
    (b"\n\n\n", ""),  # only blank lines
    (b"0\n", ""),
    (b"1\n2\n\n\n", "1\n2"),  # extra blank lines at the end
    (b"\n\n1\n2", "1\n2"),  # extra blank lines at the start
    (b"1\n\n2\n", "1\n2\n"),  # an extra blank line inside
    (b"1\n \n2\n", "1\n\n2\n"),  # a line of spaces is a blank line
    (b"YES\n", "yes"),  # case
    (b"0.3333333333\n", "0.333334"),  # within 1e-5
    (b"0.5\n", "0.50002"),  # not within 1e-5
    (b"1E5\n", "100000"),
    (b"inf\n", "inf"),
    (b"nan\n", "nan"),  # equal as text, never as numbers
    (b"NaN\n", "nan"),
    (b"1 2\n", "1  2"),  # spaces inside a line count
    (b"5\x1c\n", "5"),  # the separators \x1c-\x1f are whitespace to str.strip
    (b"5\n\x1f", "5"),
    ("5\u3000\n".encode(), "5"),  # Unicode spaces at the ends
    ("\u00a05".encode(), "5"),
    ("5\n\u2028\n".encode(), "5"),
    ("\uff15\n".encode(), "5"),  # float() reads full-width digits
    ("\uff15.0000001\n".encode(), "5"),
    ("5\u2014\n".encode(), "5"),  # a dash is not a space (its UTF-8 shares bytes with them)
    ("5\u2080".encode(), "5"),
    ("\u2080 5".encode(), "5"),
    (b"5\xff\n", "5"),  # not UTF-8
    (b"\xc3\n", "\ufffd"),
    (b"5\x00\n", "5"),  # NUL is not whitespace
]


@pytest.mark.parametrize(("printed", "expected"), EDGE_CASES)
def test_edge_cases_are_judged_as_sandboxfusion_judges_them(printed: bytes, expected: str) -> None:
    accepted, message = checkers.check_lines(printed, expected.encode())
    assert accepted is sandboxfusion_passes(printed, expected)
    assert (message == "") is accepted


def test_the_edge_cases_cover_both_answers() -> None:
    answers = {sandboxfusion_passes(printed, expected) for printed, expected in EDGE_CASES}
    assert answers == {True, False}


PIECES = [
    *"12a A\t\n\r\x0b\x0c\x1c\x1f\x00",
    "1.0",
    "1.000001",
    "-0",
    "inf",
    "nan",
    "1e5",
    "1E5",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u2000",
    "\u2080",
    "\u2014",
    "\u4e00",
    "\x85",
    "\uff11",
    "\u0130",
    "\u00e9",
]


@pytest.mark.parametrize("chunk", [1, 3, 1 << 20])
def test_random_outputs_are_judged_as_sandboxfusion_judges_them(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(streams, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(streams, "BATCH", 2)
    rng = random.Random(chunk)
    for _ in range(2000):
        expected = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        printed = list(expected)
        for _ in range(rng.randint(0, 3)):
            spot = rng.randint(0, len(printed))
            if rng.random() < 0.5 and printed:
                printed[min(spot, len(printed) - 1)] = rng.choice(PIECES)
            else:
                printed.insert(spot, rng.choice(PIECES))
        output = "".join(printed).encode() + (b"\xff" if rng.random() < 0.03 else b"")
        accepted, _ = checkers.check_lines(output, expected.encode())
        assert accepted is sandboxfusion_passes(output, expected), (output, expected)


def test_large_outputs_with_unicode_spaces_at_both_ends_are_stripped() -> None:
    body = "1\n" * 200_000
    spaces = " \u3000\u00a0\n" * 50_000
    accepted, _ = checkers.check_lines((spaces + body + spaces).encode(), body.encode())
    assert accepted
