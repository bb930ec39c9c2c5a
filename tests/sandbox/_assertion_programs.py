# ruff: noqa: E501  (programs in other languages)
"""Per language of the table: a program whose ``f(1)`` is 2 and which asserts ``f(1) == {expected}``
with the language's standard assertion (``LanguageSpec.assertion``), then prints ``done``.
With ``expected=2`` the assertion holds; with 3 it fails and must end the program. Test-suite
languages assert in a test of their framework and print nothing of their own.

Also the ways a policy would try to keep a false assertion quiet in the languages whose
toolchain once compiled assertions out (each a wrong program that must not be AC).
"""

from __future__ import annotations

ASSERTING: dict[str, str] = {
    "python": "def f(x):\n    return x + 1\n\nassert f(1) == {expected}\nprint('done')\n",
    "pypy": "def f(x):\n    return x + 1\n\nassert f(1) == {expected}\nprint('done')\n",
    "pytest": "def f(x):\n    return x + 1\n\ndef test_f():\n    assert f(1) == {expected}\n",
    "cpp": '#include <cassert>\n#include <cstdio>\nint f(int x) { return x + 1; }\nint main() { assert(f(1) == {expected}); std::puts("done"); }\n',
    "cpp17": '#include <cassert>\n#include <cstdio>\nint f(int x) { return x + 1; }\nint main() { assert(f(1) == {expected}); std::puts("done"); }\n',
    "cpp23": '#include <cassert>\n#include <cstdio>\nint f(int x) { return x + 1; }\nint main() { assert(f(1) == {expected}); std::puts("done"); }\n',
    "gtest": "#include <gtest/gtest.h>\nint f(int x) { return x + 1; }\nTEST(F, One) { EXPECT_EQ(f(1), {expected}); }\n",
    "c": '#include <assert.h>\n#include <stdio.h>\nint f(int x) { return x + 1; }\nint main(void) { assert(f(1) == {expected}); puts("done"); return 0; }\n',
    "java": 'public class Main {\n    static int f(int x) { return x + 1; }\n    public static void main(String[] args) {\n        assert f(1) == {expected};\n        System.out.println("done");\n    }\n}\n',
    "junit": "import org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\npublic class MainTest {\n    static int f(int x) { return x + 1; }\n    @Test\n    void one() { assertEquals({expected}, f(1)); }\n}\n",
    "javascript": "const assert = require('node:assert');\nfunction f(x) { return x + 1; }\nassert(f(1) === {expected});\nconsole.log('done');\n",
    "typescript": "import assert from 'node:assert';\nconst f = (x: number): number => x + 1;\nassert(f(1) === {expected});\nconsole.log('done');\n",
    "jest": "import { expect, test } from '@jest/globals';\nconst f = (x: number): number => x + 1;\ntest('f', () => { expect(f(1)).toBe({expected}); });\n",
    "go": 'package main\n\nimport "fmt"\n\nfunc f(x int) int { return x + 1 }\n\nfunc main() {\n\tif f(1) != {expected} {\n\t\tpanic("assertion failed")\n\t}\n\tfmt.Println("done")\n}\n',
    "go_test": 'package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n\nfunc f(x int) int { return x + 1 }\n\nfunc TestF(t *testing.T) { assert.Equal(t, {expected}, f(1)) }\n',
    "rust": 'fn f(x: i32) -> i32 { x + 1 }\nfn main() {\n    assert_eq!(f(1), {expected});\n    println!("done");\n}\n',
    "rust2024": 'fn f(x: i32) -> i32 { x + 1 }\nfn main() {\n    assert_eq!(f(1), {expected});\n    println!("done");\n}\n',
    "rust_test": "fn f(x: i32) -> i32 { x + 1 }\n\n#[test]\nfn one() { assert_eq!(f(1), {expected}); }\n",
    "bash": "f() { echo $(($1 + 1)); }\n[[ $(f 1) -eq {expected} ]] || exit 1\necho done\n",
    "php": '<?php\nfunction f($x) { return $x + 1; }\nassert(f(1) == {expected});\necho "done\\n";\n',
    "ruby": "def f(x) = x + 1\nraise 'assertion failed' unless f(1) == {expected}\nputs 'done'\n",
    "lua": "local function f(x) return x + 1 end\nassert(f(1) == {expected})\nprint('done')\n",
    "perl": 'sub f { return $_[0] + 1 }\ndie "assertion failed\\n" unless f(1) == {expected};\nprint "done\\n";\n',
    "csharp": 'using System;\nusing System.Diagnostics;\n\nclass Program {\n    static int F(int x) { return x + 1; }\n    static void Main() {\n        Debug.Assert(F(1) == {expected});\n        Console.WriteLine("done");\n    }\n}\n',
    "r": "f <- function(x) x + 1\nstopifnot(f(1) == {expected})\ncat('done\\n')\n",
    "swift": 'func f(_ x: Int) -> Int { return x + 1 }\nassert(f(1) == {expected})\nprint("done")\n',
    "scala": 'object Main {\n  def f(x: Int): Int = x + 1\n  def main(args: Array[String]): Unit = {\n    assert(f(1) == {expected})\n    println("done")\n  }\n}\n',
    "d": 'import std.stdio;\nint f(int x) { return x + 1; }\nvoid main() {\n    assert(f(1) == {expected});\n    writeln("done");\n}\n',
    "d_ut": "int f(int x) { return x + 1; }\nunittest { assert(f(1) == {expected}); }\nvoid main() {}\n",
    "haskell": 'import Control.Exception (assert)\n\nf :: Int -> Int\nf x = x + 1\n\nmain :: IO ()\nmain = assert (f 1 == {expected}) (putStrLn "done")\n',
    "ocaml": 'let f x = x + 1\nlet () =\n  assert (f 1 = {expected});\n  print_endline "done"\n',
    "pascal": "program Main;\nfunction F(x: Integer): Integer;\nbegin\n  F := x + 1;\nend;\nbegin\n  Assert(F(1) = {expected});\n  WriteLn('done');\nend.\n",
    "fortran": "program main\n  implicit none\n  if (f(1) /= {expected}) error stop 'assertion failed'\n  print '(a)', 'done'\ncontains\n  integer function f(x)\n    integer, intent(in) :: x\n    f = x + 1\n  end function f\nend program main\n",
    "racket": '#lang racket\n(require rackunit)\n(define (f x) (+ x 1))\n(check-equal? (f 1) {expected})\n(displayln "done")\n',
    "sql": "CREATE TABLE assertion(ok INTEGER CHECK (ok = 1));\nINSERT INTO assertion VALUES ((SELECT 1 + 1) = {expected});\nSELECT 'done';\n",
    "verilog": 'module main;\n  function integer f(input integer x);\n    f = x + 1;\n  endfunction\n  initial begin\n    if (f(1) != {expected}) $fatal(1, "assertion failed");\n    $display("done");\n  end\nendmodule\n',
}

# (language, program): wrong programs (their f(1) is 2, they claim 3) whose assertion a toolchain
# once dropped, each another way of asserting, so that a flag keeping one alive and not another
# is caught.
QUIET_ASSERTION_ATTACKS: list[tuple[str, str]] = [
    (
        "swift",
        'func f(_ x: Int) -> Int { return x + 1 }\nassert(f(1) == 3, "f(1) is 3")\nprint("done")\n',
    ),
    (
        "swift",
        'func f(_ x: Int) -> Int { return x + 1 }\nif f(1) != 3 { assertionFailure("f(1) is not 3") }\nprint("done")\n',
    ),
    (
        "csharp",
        'using System;\nusing System.Diagnostics;\n\nclass Program {\n    static int F(int x) { return x + 1; }\n    static void Main() {\n        Trace.Assert(F(1) == 3);\n        Console.WriteLine("done");\n    }\n}\n',
    ),
    (
        "csharp",
        'using System;\nusing System.Diagnostics;\n\nclass Program {\n    static int F(int x) { return x + 1; }\n    static void Main() {\n        if (F(1) != 3) Debug.Fail("F(1) is not 3");\n        Console.WriteLine("done");\n    }\n}\n',
    ),
    (
        "csharp",
        'using System;\nusing System.Diagnostics;\n\nclass Program {\n    static int F(int x) { return x + 1; }\n    static void Main() {\n        try { Debug.Assert(F(1) == 3, "F(1)", "is not 3"); } catch (Exception) { }\n        Console.WriteLine("done");\n    }\n}\n',
    ),
    (
        "haskell",
        'import Control.Exception (assert)\n\nf :: Int -> Int\nf x = x + 1\n\ng :: Int\ng = assert (f 1 == 3) 0\n\nmain :: IO ()\nmain = print g >> putStrLn "done"\n',
    ),
    (
        "haskell",
        'import qualified Control.Exception as E\n\nf :: Int -> Int\nf x = x + 1\n\nmain :: IO ()\nmain = E.assert (f 1 == 3) (return ()) >> putStrLn "done"\n',
    ),
    (
        "pascal",
        "program Main;\nfunction F(x: Integer): Integer;\nbegin\n  F := x + 1;\nend;\nbegin\n  Assert(F(1) = 3, 'F(1) is 3');\n  WriteLn('done');\nend.\n",
    ),
    (
        "pascal",
        "program Main;\n{$mode objfpc}\nuses SysUtils;\nfunction F(x: Integer): Integer;\nbegin\n  Result := x + 1;\nend;\nbegin\n  Assert(F(1) = 3);\n  WriteLn('done');\nend.\n",
    ),
    (
        "php",
        '<?php\nfunction f($x) { return $x + 1; }\nassert(f(1) === 3, "f(1) is 3");\necho "done\\n";\n',
    ),
    (
        "php",
        '<?php\nfunction f($x) { return $x + 1; }\nfunction check(): void { assert(f(1) == 3); }\ncheck();\necho "done\\n";\n',
    ),
    (
        "racket",
        '#lang racket\n(require rackunit)\n(define (f x) (+ x 1))\n(test-case "f" (check-equal? (f 1) 3))\n(displayln "done")\n',
    ),
    (
        "racket",
        '#lang racket/base\n(require rackunit)\n(define (f x) (+ x 1))\n(define (test-humaneval)\n  (let ([candidate f])\n    (check-true (= (candidate 1) 3))))\n(test-humaneval)\n(displayln "done")\n',
    ),
    # A check in the main submodule, a suite run by run-tests (and an exit 0 after it), and
    # typed/rackunit's checks: none of them ends the program by itself.
    (
        "racket",
        "#lang racket\n(define (f x) (+ x 1))\n(module+ main\n  (require rackunit)\n  (check-equal? (f 1) 3))\n",
    ),
    (
        "racket",
        '#lang racket\n(require rackunit rackunit/text-ui)\n(define (f x) (+ x 1))\n(run-tests (test-suite "f" (check-equal? (f 1) 3)))\n(exit 0)\n',
    ),
    (
        "racket",
        "#lang typed/racket\n(require typed/rackunit)\n(: f (-> Integer Integer))\n(define (f x) (+ x 1))\n(check-equal? (f 1) 3)\n",
    ),
]
