"""What the planned-test attack files share: a warm Python sandbox, an assert job on entry point
``c``, and the source of a program's ``ahead()``, which returns the calls it can read before
answering the current one (from the calls pipe, fd 4, through the harness's buffer)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

from judge_service.sandbox.config import SandboxConfig
from judge_service.sandbox.models import Job, JobResult
from judge_service.sandbox.pool import SandboxPool

AHEAD = """
    import gc, io, json, select
    def ahead():
        if not select.select([4], [], [], 0)[0]:
            return []  # nothing handed over yet: peek() would wait for it
        for held in gc.get_objects():
            if isinstance(held, io.BufferedReader):
                try:
                    if held.fileno() == 4:
                        return [json.loads(line) for line in held.peek().splitlines() if line]
                except Exception:
                    pass
        return []
"""


def check_of(body: str) -> str:
    return f"def check(c):\n    {body}\n"


def one_python_sandbox() -> Iterator[SandboxPool]:
    """A module's ``one_sandbox`` fixture: ``pytest.fixture(scope="module")`` of this."""
    with SandboxPool(SandboxConfig(sandboxes_per_language=1)) as pool:
        yield pool


def assert_job(pool: SandboxPool, code: str, check: str, **limits: int) -> JobResult:
    return pool.judge(
        Job(
            language="python",
            mode="assert",
            code=textwrap.dedent(code),
            entry_point="c",
            tests=[{"code": check}],
            limits=limits or {},
        )
    )
