# ruff: noqa: E501  (programs in other languages)
"""The program is the OOM killer's first choice in its sandbox, in every language: its
``/proc/self/oom_score_adj`` reads 1000 (the judge's agent stays at 0), so a test that drives
the container to its memory cap loses its own process, not the judge's. The spawner used to
write it while the child was not dumpable, when the file is root's: the write failed silently
and every program ran at 0, like the agent."""

from __future__ import annotations

import pytest

from judge_service.sandbox.languages import LANGUAGES
from judge_service.sandbox.models import Job, Verdict
from judge_service.sandbox.pool import SandboxPool

ADJ = "/proc/self/oom_score_adj"

# Per language: a program printing its own oom_score_adj (a suite asserts it is 1000).
READERS: dict[str, str] = {
    "python": f"print(open('{ADJ}').read().strip())\n",
    "pypy": f"print(open('{ADJ}').read().strip())\n",
    "pytest": f"def test_adj():\n    assert open('{ADJ}').read().strip() == '1000'\n",
    "cpp": f'#include <fstream>\n#include <iostream>\n#include <string>\nint main() {{ std::ifstream f("{ADJ}"); std::string s; f >> s; std::cout << s << "\\n"; }}\n',
    "cpp17": f'#include <fstream>\n#include <iostream>\n#include <string>\nint main() {{ std::ifstream f("{ADJ}"); std::string s; f >> s; std::cout << s << "\\n"; }}\n',
    "cpp23": f'#include <fstream>\n#include <iostream>\n#include <string>\nint main() {{ std::ifstream f("{ADJ}"); std::string s; f >> s; std::cout << s << "\\n"; }}\n',
    "gtest": f'#include <gtest/gtest.h>\n#include <fstream>\n#include <string>\nTEST(Oom, Adj) {{ std::ifstream f("{ADJ}"); std::string s; f >> s; EXPECT_EQ(s, "1000"); }}\n',
    "c": f'#include <stdio.h>\nint main(void) {{ char b[16] = {{0}}; FILE *f = fopen("{ADJ}", "r"); if (!f || fscanf(f, "%15s", b) != 1) return 1; puts(b); return 0; }}\n',
    "java": f'import java.nio.file.*;\npublic class Main {{ public static void main(String[] a) throws Exception {{ System.out.println(Files.readString(Path.of("{ADJ}")).trim()); }} }}\n',
    "junit": f'import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\nimport java.nio.file.*;\npublic class MainTest {{ @Test void adj() throws Exception {{ assertEquals("1000", Files.readString(Path.of("{ADJ}")).trim()); }} }}\n',
    "javascript": f"console.log(require('fs').readFileSync('{ADJ}', 'utf8').trim());\n",
    "typescript": f"import {{ readFileSync }} from 'fs';\nconsole.log(readFileSync('{ADJ}', 'utf8').trim());\n",
    "jest": f"import {{ expect, test }} from '@jest/globals';\nimport {{ readFileSync }} from 'fs';\ntest('adj', () => {{ expect(readFileSync('{ADJ}', 'utf8').trim()).toBe('1000'); }});\n",
    "go": f'package main\n\nimport (\n\t"fmt"\n\t"os"\n\t"strings"\n)\n\nfunc main() {{\n\tb, _ := os.ReadFile("{ADJ}")\n\tfmt.Println(strings.TrimSpace(string(b)))\n}}\n',
    "go_test": f'package main\n\nimport (\n\t"os"\n\t"strings"\n\t"testing"\n)\n\nfunc TestAdj(t *testing.T) {{\n\tb, _ := os.ReadFile("{ADJ}")\n\tif strings.TrimSpace(string(b)) != "1000" {{\n\t\tt.Fatal(string(b))\n\t}}\n}}\n',
    "rust": f'fn main() {{ println!("{{}}", std::fs::read_to_string("{ADJ}").unwrap().trim()); }}\n',
    "rust2024": f'fn main() {{ println!("{{}}", std::fs::read_to_string("{ADJ}").unwrap().trim()); }}\n',
    "rust_test": f'#[test]\nfn adj() {{ assert_eq!(std::fs::read_to_string("{ADJ}").unwrap().trim(), "1000"); }}\n',
    "bash": f'read -r adj < {ADJ}\necho "$adj"\n',
    "php": f"<?php\necho trim(file_get_contents('{ADJ}')), \"\\n\";\n",
    "ruby": f"puts File.read('{ADJ}').strip\n",
    "lua": f"local f = io.open('{ADJ}')\nprint((f:read('l')))\n",
    "perl": f"open(my $f, '<', '{ADJ}') or die;\nmy $v = <$f>;\nprint $v;\n",
    "csharp": f'using System;\nusing System.IO;\nclass P {{ static void Main() {{ Console.WriteLine(File.ReadAllText("{ADJ}").Trim()); }} }}\n',
    "r": f"cat(readLines('{ADJ}'), sep = '\\n')\n",
    "swift": f'import Glibc\nlet f = fopen("{ADJ}", "r")\nvar buffer = [CChar](repeating: 0, count: 16)\nfgets(&buffer, 16, f!)\nprint(String(cString: buffer), terminator: "")\n',
    "scala": f'object Main {{ def main(args: Array[String]): Unit = println(scala.io.Source.fromFile("{ADJ}").mkString.trim) }}\n',
    "d": f'import std.stdio, std.file, std.string;\nvoid main() {{ writeln(readText("{ADJ}").strip); }}\n',
    "d_ut": f'import std.file, std.string;\nunittest {{ assert(readText("{ADJ}").strip == "1000"); }}\nvoid main() {{}}\n',
    "haskell": f'main :: IO ()\nmain = readFile "{ADJ}" >>= putStr\n',
    "ocaml": f'let () = let ic = open_in "{ADJ}" in print_endline (input_line ic)\n',
    "pascal": f"program Main;\nvar f: Text; s: string;\nbegin\n  Assign(f, '{ADJ}');\n  Reset(f);\n  ReadLn(f, s);\n  WriteLn(s);\nend.\n",
    "fortran": f"program main\n  character(len=16) :: s\n  open(10, file='{ADJ}', action='read')\n  read(10, '(a)') s\n  print '(a)', trim(s)\nend program main\n",
    "racket": f'#lang racket/base\n(displayln (call-with-input-file "{ADJ}" read-line))\n',
    # /proc's files have no size, which readfile() reads by: a child of sqlite3 inherits its score.
    "sql": f".shell cat {ADJ}\n",
    "verilog": f'module main;\n  integer fd, code;\n  reg [8*16:1] line;\n  initial begin\n    fd = $fopen("{ADJ}", "r");\n    code = $fgets(line, fd);\n    $write("%0s", line);\n  end\nendmodule\n',
}


def test_every_language_of_the_table_has_a_reader() -> None:
    assert set(READERS) == set(LANGUAGES)


@pytest.mark.integration
@pytest.mark.parametrize("language", list(READERS))
def test_the_program_is_the_oom_killers_first_choice(pool: SandboxPool, language: str) -> None:
    job = Job(
        language=language,
        code=READERS[language],
        tests=[{"input": "", "output": "1000"}],
        limits={"time_limit_ms": 10000, "memory_limit_mb": 512},
    )
    result = pool.judge(job)
    assert result.verdict is Verdict.AC, result.model_dump_json(indent=1)[:3000]


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["function", "assert"])
def test_a_harnessed_candidate_is_the_oom_killers_first_choice(
    pool: SandboxPool, mode: str
) -> None:
    """Python's and JavaScript's harnesses run the candidate in a process of its own."""
    for language, code in (
        ("python", f"def f():\n    return open('{ADJ}').read().strip()\n"),
        (
            "javascript",
            f"function f() {{ return require('fs').readFileSync('{ADJ}', 'utf8').trim(); }}\n",
        ),
    ):
        if mode == "function":
            tests = [{"args": [], "expected": "1000"}]
        elif language == "python":
            tests = [{"code": "def check(candidate):\n    assert candidate() == '1000'\n"}]
        else:
            tests = [
                {
                    "code": "const assert = require('assert');\nfunction check(candidate) {\n"
                    "  assert.strictEqual(candidate(), '1000');\n}\n"
                }
            ]
        job = Job(language=language, code=code, tests=tests, mode=mode, entry_point="f")
        result = pool.judge(job)
        assert result.verdict is Verdict.AC, result.model_dump_json(indent=1)[:3000]
