"""Integers past Python's 4300-digit conversion limit cross the trust boundary (``plain``) in
hexadecimal: a correct program returning ``7**9000`` was RE on the planned path (the agent
decodes with the default limit), while the runner, which compares in the sandbox, said AC."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from judge_service.sandbox._assert_plan import plan
from judge_service.sandbox.agent import plain
from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

HUGE = 7**9000  # 7606 digits


class BigLiar(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    "value",
    [HUGE, -HUGE, 2**14000, -(2**14001), [HUGE, 1], (HUGE,), {HUGE: [-HUGE]}, {HUGE}],
    ids=["huge", "negative", "at-the-edge", "past-the-edge", "list", "tuple", "dict", "set"],
)
def test_huge_integers_round_trip(value: object) -> None:
    assert plain.decode(plain.encode(value)) == value


def test_only_integers_past_the_decimal_limit_travel_in_hexadecimal() -> None:
    assert plain.to_wire(2**14000 - 1) == 2**14000 - 1
    assert plain.to_wire(-(2**14000)) == {"int": format(-(2**14000), "x")}
    # A subclass is read through int's own method, whatever its size.
    liar = plain.to_plain(BigLiar(HUGE))
    assert type(liar) is int and liar == HUGE and liar != HUGE + 1


@pytest.mark.parametrize("tagged", [b'{"int": 5}', b'{"int": "12g"}', b'{"int": ["1"]}'])
def test_a_malformed_hexadecimal_integer_is_a_decode_error(tagged: bytes) -> None:
    with pytest.raises(plain.DecodeError):
        plain.decode(tagged)


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as started:
        yield started


_PROGRAM = """
def c(n):
    return {returned}
"""
# Checks the plan takes (a bare value, a length: decoded by the agent) and, inside a loop the
# plan leaves alone, the runner; an expected value this large the plan leaves to the runner.
_CHECKS = {
    "truthy": ("7 ** 9000", "assert c(3)", "0"),
    "len": ("[7 ** 9000, 1]", "assert len(c(3)) == 2", "[7 ** 9000]"),
    "equal": ("7 ** 9000", "assert c(3) == 7 ** 9000", "7 ** 9000 + 1"),
    "list-equal": ("[-(7 ** 9000)]", "assert c(3) == [-(7 ** 9000)]", "[7 ** 9000]"),
}


def _verdict(pool: SandboxPool, returned: str, check: str) -> Verdict:
    job = Job(
        language="python",
        mode="assert",
        code=textwrap.dedent(_PROGRAM.format(returned=returned)),
        entry_point="c",
        tests=[{"code": f"def check(c):\n    {check}\n"}],
    )
    return pool.judge(job).verdict


@pytest.mark.integration
@pytest.mark.parametrize("name", list(_CHECKS))
@pytest.mark.parametrize("planned", [True, False], ids=["as-sent", "in-a-loop"])
def test_a_correct_huge_answer_is_accepted_and_a_wrong_one_is_not(
    pool: SandboxPool, name: str, planned: bool
) -> None:
    returned, check, wrong = _CHECKS[name]
    if not planned:
        check = f"for _ in range(1):\n        {check}"
    expect_plan = planned and name in ("truthy", "len")
    assert (plan(f"def check(c):\n    {check}\n", "c") is not None) == expect_plan
    assert _verdict(pool, returned, check) is Verdict.AC
    assert _verdict(pool, wrong, check) is Verdict.WA
