"""The agent's half of planned assert tests: compare the values the program gave with the
expected ones (see ``judge_service.sandbox._assert_plan``).

The program's process appends one line per call to the result (``["ready"]`` once its top
level has run, then ``["return", value]``, ``["raise", type, message]``, ``["not_plain",
message]`` or ``["exited", message]`` per call, ``["done"]`` at the end). The checks are
applied in the order the test code states them, as the runner would: the first one that fails
is a wrong answer even if the program went on to crash or loop in a later call, which the
runner would never have made.

Standard library only (sent into the sandboxes with the agent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from judge_service.sandbox.agent import plain

PASSED = "passed"
UNDECIDED = "undecided"
WRAPPERS: dict[str, Callable[[Any], Any]] = {
    "tuple": tuple,
    "list": list,
    "set": set,
    "sorted": sorted,
    "len": len,
}


def verdict(checks_text: str, result: bytes, token: str) -> dict[str, Any] | str:
    """A verdict (WA or RE) the values decide, :data:`PASSED` when every check passed and the
    program said it was done, or :data:`UNDECIDED` when the program stopped before a check
    could be made (its time, memory or exit status decides then).

    Only the lines the checks look at are read (the ready line, the answers up to the last
    call a check names, the last line): the program writes the rest, and 16 MB of empty lines,
    one write for it, took the agent past the host's deadline when every line was decoded."""
    marker = token.encode() + b"\n"
    if not result.startswith(marker):
        return _stopped(None)
    checks = plain.decode(checks_text.encode())
    body = result[len(marker) :]
    last_call = max((check[0] for check in checks), default=-1)
    # The ready line and the answers, each followed by a newline: a line cut short by a kill
    # is not an answer (split's last piece is what follows the last newline it split at).
    lines = [_decoded(line) for line in body.split(b"\n", last_call + 2)[:-1]]
    if not lines or lines[0] != ["ready"]:
        return _stopped(lines[0] if lines else None)
    answers = lines[1:]
    for index, kind, expected, tolerance, message, wrapper in checks:
        if kind == "fail":
            return _wrong(message)
        if index >= len(answers) or not isinstance(answers[index], list) or not answers[index]:
            return UNDECIDED
        answer = answers[index]
        if answer[0] != "return" or len(answer) < 2:
            return _stopped(answer)
        try:
            value = WRAPPERS[wrapper](answer[1]) if wrapper else answer[1]
            held = _holds(kind, value, expected, tolerance)
        except Exception as error:  # abs() of a list, as the runner's check would raise
            return _runtime_error(type(error).__name__, str(error)[:500])
        if not held:
            return _wrong(message)
    return PASSED if _last_line(body) == ["done"] else UNDECIDED


def _holds(kind: str, value: Any, expected: Any, tolerance: Any) -> bool:
    if kind == "eq":
        return bool(value == expected)
    if kind == "truthy":
        return bool(value)
    if kind == "falsy":
        return not value
    if kind == "is":
        return value is expected
    if kind == "approx<":
        return bool(abs(value - expected) < tolerance)
    if kind == "approx<=":
        return bool(abs(value - expected) <= tolerance)
    raise ValueError(f"unknown check {kind!r}")


def _decoded(line: bytes) -> Any:
    try:
        return plain.decode(line)
    except plain.DecodeError:
        return None


def _last_line(body: bytes) -> Any:
    """The last complete line, decoded (``None`` when there is none)."""
    end = body.rfind(b"\n")
    if end < 0:
        return None
    return _decoded(body[body.rfind(b"\n", 0, end) + 1 : end])


def _stopped(line: Any) -> dict[str, Any] | str:
    """What a line other than a value says, once the limits have been looked at."""
    if not isinstance(line, list) or not line or not isinstance(line[0], str):
        return UNDECIDED
    detail = str(line[1])[:2000] if len(line) > 1 else ""
    if line[0] == "not_plain":
        return {"verdict": "WA", "message": f"the candidate returned {detail}"}
    if line[0] == "raise":
        message = str(line[2])[:500] if len(line) > 2 else ""
        return _runtime_error(detail[:100], message)
    if line[0] == "compile_error":
        return {"verdict": "CE", "message": detail}
    if line[0] == "exited":
        return {"verdict": "RE", "message": f"runtime error: {detail}"}
    return UNDECIDED


def _wrong(message: Any) -> dict[str, Any]:
    text = str(message)[:500]
    return {"verdict": "WA", "message": "assertion failed" + (f": {text}" if text else "")}


def _runtime_error(kind: str, message: str) -> dict[str, Any]:
    return {"verdict": "RE", "message": f"runtime error: {kind}: {message}"}
