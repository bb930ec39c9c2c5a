"""The timing program that runs inside the sandbox, around a candidate's code.

Function-mode Python problems: the sandbox runs one program made of the candidate's code and
this driver. The driver seeds ``random`` with n, calls the problem's ``generate(n)`` (so the
candidate and the reference see the same inputs), times only the call of the entry point
(the thread's CPU time: with RLIMIT_CPU armed, the process-wide CPU clock advances only
at timer ticks, 4 ms apart; an inner loop long enough to rise above the clock's resolution;
the minimum over repeats), prints one JSON line per size as soon as it is measured (a run
cut short by its limit still reports what it measured), and stops growing n at the first
call over the per-call cap (a censored point) or when its budget is spent. The candidate shares the
interpreter with the driver: a program that tampers with the driver's clock fools only its
own time reward, never its verdict (the tests judged it before).
"""

from __future__ import annotations

import json

DRIVER = r"""

def __judge_timing():
    import json as _json, random as _random, sys as _sys, time as _time
    spec = _json.loads(_sys.stdin.read())
    generator = {}
    exec(compile(spec["generator"], "generator.py", "exec"), generator)
    target = spec["entry_point"]
    if "." in target:
        owner, method = target.split(".", 1)
        function = getattr(globals()[owner](), method)
    else:
        function = globals()[target]
    clock = _time.thread_time
    started = clock()
    for n in spec["sizes"]:
        _random.seed(n)
        args = generator["generate"](n)
        if not isinstance(args, (list, tuple)):
            args = [args]
        best = None
        for _ in range(spec["repeats"]):
            loops, elapsed = 1, 0.0
            while True:
                begin = clock()
                for _ in range(loops):
                    function(*args)
                elapsed = clock() - begin
                if elapsed >= spec["min_sample_s"] or elapsed >= spec["cap_s"] or loops >= 1 << 20:
                    break
                loops *= 4 if elapsed < spec["min_sample_s"] / 8 else 2
            per_call = elapsed / loops
            best = per_call if best is None else min(best, per_call)
            if elapsed >= spec["cap_s"]:
                break
        censored = best >= spec["cap_s"]
        print(_json.dumps([n, best, censored]), flush=True)
        if censored or clock() - started > spec["budget_s"]:
            break

__judge_timing()
"""


def timing_program(candidate: str) -> str:
    """The candidate's code with the driver appended (run in stdin mode)."""
    return candidate.rstrip() + "\n\n" + DRIVER


def timing_input(
    generator: str,
    entry_point: str,
    sizes: list[int],
    *,
    repeats: int,
    min_sample_s: float,
    cap_s: float,
    budget_s: float,
) -> str:
    return json.dumps(
        {
            "generator": generator,
            "entry_point": entry_point,
            "sizes": sizes,
            "repeats": repeats,
            "min_sample_s": min_sample_s,
            "cap_s": cap_s,
            "budget_s": budget_s,
        }
    )


def parse_output(stdout: str) -> list[tuple[int, float, bool]]:
    """The measured lines; anything the program printed itself is skipped."""
    points = []
    for line in stdout.splitlines():
        try:
            n, seconds, censored = json.loads(line)
        except (ValueError, TypeError):
            continue
        if isinstance(n, int) and isinstance(seconds, float | int) and isinstance(censored, bool):
            points.append((n, float(seconds), censored))
    return points
