"""A runtime's own last line of stdout is not the program's output: Icarus Verilog's vvp prints
where ``$finish`` (or ``$stop``) was called, on stdout, and no option turns it off; a correct
program that ends with ``$finish;`` was WA."""

from __future__ import annotations

import pytest

from judge_service.sandbox.agent.agent import _without_trailer
from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Verdict

VVP = LANGUAGES["verilog"].runtime_trailer
TESTS = [{"input": "", "output": "3"}]


@pytest.mark.parametrize(
    ("out", "kept"),
    [
        (b"3\nmain.v:4: $finish called at 0 (1s)\n", b"3\n"),
        (b"3\nmain.v:12: $stop called at 250 (1ns)", b"3\n"),
        (b"3\nmain.v:4: $finish(2) called at 0 (1s)\n", b"3\n"),
        (b"main.v:4: $finish called at 0 (1s)\n", b""),
        # Only at the end.
        (b"main.v:4: $finish called at 0 (1s)\n3\n", b"main.v:4: $finish called at 0 (1s)\n3\n"),
        # After output without a newline ($write), on the same line.
        (b"3main.v:4: $finish called at 0 (1s)\n", b"3"),
        (
            b"3\nmain.v:4: $finish called at 0 (1s)\nmore\n",
            b"3\nmain.v:4: $finish called at 0 (1s)\nmore\n",
        ),
        (b"3\n", b"3\n"),
        (b"", b""),
    ],
)
def test_only_the_runtimes_message_at_the_end_is_taken_out(out: bytes, kept: bytes) -> None:
    assert _without_trailer(out, VVP) == kept
    assert _without_trailer(out, None) == out


FINISHES = {
    "write-then-finish": '  initial begin\n    $write("3");\n    $finish;\n  end\n',
    "finish": '  initial begin\n    $display("3");\n    $finish;\n  end\n',
    "finish-with-level": '  initial begin\n    $display("3");\n    $finish(2);\n  end\n',
    "stop": '  initial begin\n    $display("3");\n    #5 $stop;\n  end\n',
}


@pytest.mark.integration
@pytest.mark.parametrize("ending", FINISHES)
def test_a_verilog_program_that_ends_with_finish_or_stop_is_ac(judge, ending: str) -> None:
    code = f"module main;\n{FINISHES[ending]}endmodule\n"
    result = judge("verilog", code, TESTS)
    assert result.verdict is Verdict.AC, [(t.message, t.stdout) for t in result.tests]
    assert "called at" not in result.tests[0].stdout


@pytest.mark.integration
def test_a_wrong_verilog_program_is_still_wa(judge) -> None:
    code = 'module main;\n  initial begin\n    $display("4");\n    $finish;\n  end\nendmodule\n'
    assert judge("verilog", code, TESTS).verdict is Verdict.WA
