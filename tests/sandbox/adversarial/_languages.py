"""The languages past the first seven, for the adversarial tests: how each runs a shell command
of its own (the way its users' programs would), and what a job of it leaves in the scratch
directories while it runs (what the clean-sandbox probe allows).

A command handed to ``shell_out`` may hold only characters every language's string literal
keeps as they are: no quotes, backslashes, ``$``, ``@`` or ``%`` (``python_command`` makes such
a command out of any Python script).

Verilog is not among them: Icarus Verilog's simulator has no ``$system`` and loads no module a
program names, so a Verilog program starts no process and opens no socket; it can only open
files (``test_languages.test_verilog_writes_only_scratch``)."""

from __future__ import annotations

import base64
import re

# __CMD__ is replaced by the command, run by /bin/sh with the program's stdout.
SHELL_OUT: dict[str, str] = {
    "typescript": 'require("child_process").execSync("__CMD__", { stdio: "inherit" });\n',
    "bash": "__CMD__\n",
    "php": '<?php\npassthru("__CMD__");\n',
    "ruby": 'system("__CMD__")\n',
    "lua": 'os.execute("__CMD__")\n',
    "perl": 'system("__CMD__");\n',
    "csharp": "class P {\n  static void Main() {\n"
    '    var start = new System.Diagnostics.ProcessStartInfo("/bin/sh", "-c \\"__CMD__\\"");\n'
    "    start.UseShellExecute = false;\n"
    "    System.Diagnostics.Process.Start(start).WaitForExit();\n  }\n}\n",
    "r": 'invisible(system("__CMD__"))\n',
    "swift": 'import Glibc\n_ = system("__CMD__")\n',
    "scala": "import scala.sys.process._\nobject Main {\n"
    '  def main(args: Array[String]): Unit = { Seq("/bin/sh", "-c", "__CMD__").! }\n}\n',
    "d": 'import std.process;\nvoid main() {\n  wait(spawnShell("__CMD__"));\n}\n',
    "haskell": 'import System.Process\nmain :: IO ()\nmain = callCommand "__CMD__"\n',
    "ocaml": 'let _ = Sys.command "__CMD__"\n',
    "pascal": "{$mode objfpc}{$H+}\nprogram main;\nuses unix;\n"
    "begin\n  fpSystem('__CMD__');\nend.\n",
    "fortran": 'program main\n  call execute_command_line("__CMD__")\nend program main\n',
    "racket": '#lang racket\n(void (system "__CMD__"))\n',
    "sql": ".shell __CMD__\n",
}

# The test-framework languages: the program is a suite whose output is its report, never
# compared, so a command's output is checked inside the suite (``shell_out``'s ``expect``): a
# failed check is a failed test, WA.
SUITE_SHELL_OUT: dict[str, str] = {
    "go_test": 'package main\n\nimport (\n\t"os"\n\t"os/exec"\n\t"testing"\n)\n\n'
    "func TestShell(t *testing.T) {\n"
    '\tcommand := exec.Command("/bin/sh", "-c", "__CMD__")\n'
    "\tcommand.Stdout, command.Stderr = os.Stdout, os.Stderr\n"
    "\tif err := command.Run(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
    "rust_test": "#[test]\nfn shell() {\n"
    '    let status = std::process::Command::new("/bin/sh").args(["-c", "__CMD__"]).status();\n'
    "    assert!(status.unwrap().success());\n}\n",
    "d_ut": "import std.process;\n\nunittest {\n"
    '    assert(wait(spawnShell("__CMD__")) == 0);\n}\n\nvoid main() {}\n',
    "pytest": "import subprocess\n\n\ndef test_shell():\n"
    '    assert subprocess.run(["/bin/sh", "-c", "__CMD__"]).returncode == 0\n',
    "gtest": "#include <gtest/gtest.h>\n#include <cstdlib>\n\n"
    'TEST(Shell, Runs) { EXPECT_EQ(std::system("__CMD__"), 0); }\n',
    "junit": "import org.junit.jupiter.api.Test;\n"
    "import static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
    "public class ShellTest {\n    @Test void shell() throws Exception {\n"
    '        Process shell = new ProcessBuilder("/bin/sh", "-c", "__CMD__").inheritIO().start();\n'
    "        assertEquals(0, shell.waitFor());\n    }\n}\n",
    # execSync throws when the command fails: the test fails.
    "jest": "import { execSync } from 'child_process';\n\n"
    "test('shell', () => {\n  execSync(\"__CMD__\", { stdio: 'inherit' });\n});\n",
}
SHELL_OUT.update(SUITE_SHELL_OUT)

LANGUAGES = tuple(SHELL_OUT)

# What a running job of the language leaves in /work and /tmp besides the probe's own files:
# its source, what its compiler wrote, and its runtime's scratch files (glob patterns: mono's
# /dev/shm/mono.<pid> and R's /tmp/Rtmp<random> belong to the probe's own runtime, which is
# running while the probe looks; a leftover of the same name from an earlier job would pass).
PROBE_ALLOWED: dict[str, dict[str, list[str]]] = {
    "typescript": {"/work": ["main.ts", "main.js"]},
    "bash": {"/work": ["main.sh"]},
    "php": {"/work": ["main.php"]},
    "ruby": {"/work": ["main.rb"]},
    "lua": {"/work": ["main.lua"]},
    "perl": {"/work": ["main.pl"]},
    "csharp": {"/work": ["main.cs", "main.exe"], "/tmp": [".mono"], "/dev/shm": ["mono.*"]},
    "r": {"/work": ["main.R"], "/tmp": ["Rtmp*"]},
    "swift": {"/work": ["main.swift", "main"], "/tmp": ["swift-module-cache"]},
    "scala": {"/work": ["main.scala", "Main.class", "Main$.class"]},
    "d": {"/work": ["main.d", "main"]},
    "haskell": {"/work": ["main.hs", "main"], "/tmp": ["ghc"]},
    "ocaml": {"/work": ["main.ml", "main", "main.cmi", "main.cmx", "main.o"]},
    "pascal": {"/work": ["main.pas", "main", "main.o"]},
    "fortran": {"/work": ["main.f90", "main"]},
    "racket": {"/work": ["main.rkt"]},
    "sql": {"/work": ["main.sql"]},
    "go_test": {"/work": ["main_test.go", "main"], "/tmp": ["go-cache"]},
    "rust_test": {"/work": ["main.rs", "main"]},
    "d_ut": {"/work": ["main.d", "main"]},
    "pytest": {"/work": ["main_test.py"]},
    "gtest": {"/work": ["main.cpp", "main"]},
    "junit": {"/work": ["ShellTest.java", "ShellTest.class"]},
    # jest's haste map and its cache (jest.config.js puts it in /work).
    "jest": {"/work": ["main.test.ts", "main.test.js", ".jest-cache"]},
}

_SAFE = re.compile(r"[A-Za-z0-9+/=| ._:;(){}&>-]*")


def shell_out(language: str, command: str, expect: str | None = None) -> str:
    """A program in ``language`` that runs ``command`` with /bin/sh. A test suite whose output is
    ``expect`` has its test check that line (the output is shown on stderr)."""
    if expect is not None and language in SUITE_SHELL_OUT:
        command = f"{command} | tee /dev/stderr | grep -qx {expect}"
    assert _SAFE.fullmatch(command), command
    return SHELL_OUT[language].replace("__CMD__", command)


def python_command(script: str) -> str:
    """A shell command that runs ``script`` with the image's python3 (every image has it)."""
    encoded = base64.b64encode(script.encode()).decode()
    return f"echo {encoded} | base64 -d | python3 -I -S"
