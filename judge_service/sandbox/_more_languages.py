"""The language table's entries past the first seven: every language Debian 13 packages that
users send (SandboxFusion's and MultiPL-E's lists), each from its own image.

Compiled languages write ``main`` (or the runtime's file) in /work, which the compile cache
keeps; interpreted ones run their source. A runtime with an allocator of its own reports its
own out-of-memory (``mle_markers``) when the RSS watcher has not stopped it first.
"""

from __future__ import annotations

import signal

from judge_service.sandbox._spec import LanguageSpec
from judge_service.sandbox.models import TestMode

# Node as every JavaScript-family language runs it (JavaScript, TypeScript, their harness).
# The npm packages installed in the JavaScript image (sandbox_images/javascript/Dockerfile).
NODE_PATH = "/usr/local/lib/node_modules"

NODE_RUN = (
    "/usr/bin/node",
    "--max-old-space-size={memory_mb}",
    "--stack-size={runtime_stack_kb}",
)

MORE_LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        name="typescript",
        title="TypeScript",
        version="esbuild 0.25 to Node 20",
        sandbox_fusion="typescript",
        aliases=frozenset({"ts", "typescript"}),
        source_name="main.ts",
        # esbuild strips the types (no type check, as SandboxFusion's tsx): a program that
        # runs is judged on what it does. CommonJS, so the JavaScript harness can load it.
        compile_argv=(
            "/usr/bin/esbuild",
            "{source}",
            "--outfile=main.js",
            "--format=cjs",
            "--platform=node",
            "--target=node20",
            "--log-level=warning",
        ),
        artifacts=("main.js",),
        run_argv=(*NODE_RUN, "main.js"),
        harness_argv=("/opt/judge/node-runner", *NODE_RUN[1:], "/opt/judge/harness.js"),
        harness_program="main.js",
        modes=frozenset(TestMode),
        rss_allowance_mb=64,
        mle_markers=("JavaScript heap out of memory",),
        parent_image="javascript",
        # JavaScript's npm packages, for the require() calls esbuild makes of its imports.
        env={"NODE_PATH": NODE_PATH},
        assertion="node:assert's assert(): AssertionError, exit 1",
    ),
    LanguageSpec(
        name="bash",
        title="Bash",
        version="5.2",
        sandbox_fusion="bash",
        aliases=frozenset({"sh", "shell"}),
        source_name="main.sh",
        run_argv=("/bin/bash", "main.sh"),
        assertion="none; `[[ ... ]] || exit 1`: exit 1",
    ),
    LanguageSpec(
        name="php",
        title="PHP",
        version="8.4",
        sandbox_fusion="php",
        source_name="main.php",
        # PHP's own 128 MB cap would answer RE below the job's limit; the judge's RSS limit
        # stands instead. Errors go to stderr, never into the answer.
        # Debian's php.ini is production's, where assert() is compiled out
        # (zend.assertions=-1): on, a false one throws AssertionError.
        run_argv=(
            "/usr/bin/php",
            "-d",
            "memory_limit=-1",
            "-d",
            "display_errors=stderr",
            "-d",
            "zend.assertions=1",
            "main.php",
        ),
        # An uncaught AssertionError (or any uncaught error): PHP exits 255.
        assert_failure_exit=255,
        assertion="assert() with zend.assertions=1: AssertionError, exit 255",
    ),
    LanguageSpec(
        name="ruby",
        title="Ruby",
        version="3.3",
        sandbox_fusion="ruby",
        aliases=frozenset({"rb"}),
        source_name="main.rb",
        run_argv=("/usr/bin/ruby", "main.rb"),
        mle_markers=("NoMemoryError", "failed to allocate memory"),
        # Ruby 3.3 touches its main thread's whole stack rlimit at start (an idle program's
        # peak RSS was 240 MB under a 224 MB stack); Ruby-level recursion runs on its VM
        # stack, which the environment sizes instead.
        stack_limit_mb=16,
        env={"RUBY_THREAD_VM_STACK_SIZE": str(64 << 20)},
        # An uncaught exception (a failed check's raise) exits 1.
        assert_failure_exit=1,
        assertion="none built in; `raise unless`, test/unit's assert_equal: exit 1",
    ),
    LanguageSpec(
        name="lua",
        title="Lua",
        version="5.4",
        sandbox_fusion="lua",
        source_name="main.lua",
        run_argv=("/usr/bin/lua5.4", "main.lua"),
        mle_markers=("not enough memory",),
        # A failed assert() is an error: lua exits 1.
        assert_failure_exit=1,
        assertion="assert(), luaunit's lu.assertEquals: error, exit 1",
    ),
    LanguageSpec(
        name="perl",
        title="Perl",
        version="5.40",
        sandbox_fusion="perl",
        aliases=frozenset({"pl"}),
        source_name="main.pl",
        run_argv=("/usr/bin/perl", "main.pl"),
        mle_markers=("Out of memory",),
        assertion="none; `die unless`: exit 255, Test::Deep's eq_deeply or `exit 1`",
    ),
    LanguageSpec(
        name="csharp",
        title="C#",
        version="Mono 6.12 (mcs)",
        sandbox_fusion="csharp",
        aliases=frozenset({"cs", "c#"}),
        source_name="main.cs",
        # mcs -optimize+ -d:DEBUG -d:TRACE -r:System.Numerics, and current C#'s implicit usings
        # for a program that needs them (the script says when): sandbox_images/csharp/compile.
        compile_argv=("/opt/judge/csharp/compile", "{source}"),
        # main.exe, or the launcher in its place and the program as program.exe: Mono's trace
        # listener only logs a failed Debug.Assert; the launcher's ends the program
        # (sandbox_images/csharp/Launcher.cs).
        artifacts=("*.exe",),
        run_argv=("/usr/bin/mono", "main.exe"),
        assertion=(
            "Debug.Assert, Trace.Assert (DEBUG and TRACE defined; the launcher's listener): exit 1"
        ),
        # MultiPL-E's C# tests: Debug.Assert lines in Main. An uncaught exception exits 1 too.
        assert_failure_exit=1,
        rss_allowance_mb=32,
        mle_markers=("OutOfMemoryException",),
    ),
    LanguageSpec(
        name="r",
        title="R",
        version="4.5",
        sandbox_fusion="R",
        aliases=frozenset({"rscript"}),
        source_name="main.R",
        run_argv=("/usr/bin/Rscript", "--vanilla", "main.R"),
        # R's base packages: an idle program's peak RSS is about 100 MB here.
        rss_allowance_mb=96,
        mle_markers=("cannot allocate vector",),
        # stopifnot() or stop(): Rscript exits 1.
        assert_failure_exit=1,
        assertion="stopifnot(): exit 1",
    ),
    LanguageSpec(
        name="swift",
        title="Swift",
        version="6.0",
        sandbox_fusion="swift",
        source_name="main.swift",
        # -O alone compiles assert() out; Debug's assert configuration keeps it, and -O the rest.
        compile_argv=(
            "/usr/bin/swiftc",
            "-O",
            "-assert-config",
            "Debug",
            "-o",
            "main",
            "{source}",
        ),
        artifacts=("main",),
        run_argv=("/work/main",),
        assertion="assert() (-assert-config Debug beside -O): a trap, SIGILL",
        # MultiPL-E's Swift tests: top-level assert() lines. Any runtime trap (an index out of
        # range, a nil unwrapped) is SIGILL too.
        assert_failure_exit=-signal.SIGILL,
        # swiftc caches Clang modules under the home directory (the sandbox's /tmp).
        env={"CLANG_MODULE_CACHE_PATH": "/tmp/swift-module-cache"},
    ),
    LanguageSpec(
        name="scala",
        title="Scala",
        version="2.11 on OpenJDK 21",
        sandbox_fusion="scala",
        source_name="main.scala",
        compile_argv=(
            "/usr/bin/scalac",
            "-J-Xmx512m",
            "-J-XX:-UsePerfData",
            "-d",
            ".",
            "{source}",
        ),
        artifacts=("*.class",),
        # The program's entry is the first object with a main (or extending App), whatever its
        # name, as SandboxFusion finds it (_spec.scala_main_object).
        run_argv=(
            "/usr/bin/java",
            "-Xmx{memory_mb}m",
            "-Xss64m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
            "-cp",
            "/usr/share/scala/lib/scala-library.jar:/work",
            "{main_class}",
        ),
        rss_allowance_mb=96,
        mle_markers=("java.lang.OutOfMemoryError",),
        # Scala's assert() throws AssertionError: the JVM exits 1.
        assert_failure_exit=1,
        assertion="assert(): AssertionError, exit 1",
    ),
    LanguageSpec(
        name="d",
        title="D",
        version="GDC 14",
        aliases=frozenset({"dlang", "gdc"}),
        source_name="main.d",
        compile_argv=("/usr/bin/gdc", "-O2", "-o", "main", "{source}"),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("OutOfMemoryError",),
        assertion="assert (no -frelease): AssertError, exit 1",
    ),
    LanguageSpec(
        name="d_ut",
        title="D unittest suite",
        version="GDC 14",
        sandbox_fusion="D_ut",
        image="d",
        source_name="main.d",
        # The program's unittest blocks run before its main (MultiPL-E's D tests have an empty
        # one); druntime exits 1 when one failed.
        compile_argv=("/usr/bin/gdc", "-O2", "-funittest", "-o", "main", "{source}"),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("OutOfMemoryError",),
        suite_failure_exit=1,
        assertion="assert in unittest blocks: exit 1",
    ),
    LanguageSpec(
        name="haskell",
        title="Haskell",
        version="GHC 9.6",
        aliases=frozenset({"hs", "ghc"}),
        source_name="main.hs",
        # Stripped: 10 MB to 6.8 for a small program, which every job of a cached one carries.
        compile_argv=(
            "/usr/bin/ghc",
            "-O",
            # -O ignores Control.Exception.assert unless told not to.
            "-fno-ignore-asserts",
            "-optl-s",
            "-outputdir",
            "/tmp/ghc",
            "-o",
            "main",
            "{source}",
        ),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("heap overflow",),
        assertion="Control.Exception.assert (-fno-ignore-asserts beside -O): exit 1",
    ),
    LanguageSpec(
        name="ocaml",
        title="OCaml",
        version="5.3 (ocamlopt)",
        aliases=frozenset({"ml"}),
        source_name="main.ml",
        compile_argv=("/usr/bin/ocamlopt", "-ccopt", "-s", "-o", "main", "{source}"),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("Out of memory",),
        # An uncaught Assert_failure exits 2.
        assert_failure_exit=2,
        assertion="assert (no -noassert): Assert_failure, exit 2",
    ),
    LanguageSpec(
        name="pascal",
        title="Pascal",
        version="Free Pascal 3.2",
        aliases=frozenset({"pas", "fpc", "delphi"}),
        source_name="main.pas",
        # Free Pascal compiles Assert out unless -Sa turns assertions on.
        compile_argv=("/usr/bin/fpc", "-O2", "-Sa", "-v0", "-omain", "{source}"),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("Runtime error 203",),
        assertion="Assert (-Sa): runtime error 227",
    ),
    LanguageSpec(
        name="fortran",
        title="Fortran",
        version="GFortran 14",
        aliases=frozenset({"f90", "f95", "gfortran"}),
        source_name="main.f90",
        # Lines of any length, as most compilers take them (free form stops at 132 otherwise).
        compile_argv=(
            "/usr/bin/gfortran",
            "-O2",
            "-ffree-line-length-none",
            "-o",
            "main",
            "{source}",
        ),
        artifacts=("main",),
        run_argv=("/work/main",),
        mle_markers=("Allocation would exceed memory limit",),
        assertion="none; `if (...) error stop`: exit 1",
    ),
    LanguageSpec(
        name="racket",
        title="Racket",
        version="8.16",
        sandbox_fusion="racket",
        aliases=frozenset({"rkt"}),
        source_name="main.rkt",
        # rackunit reports a failed check and goes on (the program exits 0); the runner makes
        # it end the program, exit 1 (sandbox_images/racket/run.rkt).
        run_argv=("/usr/bin/racket", "/opt/judge/racket/run.rkt", "main.rkt"),
        # Racket CS's boot images and expander: an idle program's peak RSS is 140 MB.
        rss_allowance_mb=160,
        mle_markers=("out of memory",),
        assertion="rackunit's checks (the runner ends the program at a failed one), error: exit 1",
        # MultiPL-E's Racket tests: rackunit checks in a function the test calls.
        assert_failure_exit=1,
    ),
    LanguageSpec(
        name="sql",
        title="SQL",
        version="SQLite 3.46",
        sandbox_fusion="sql",
        aliases=frozenset({"sqlite", "sqlite3"}),
        source_name="main.sql",
        # The input, if any, is SQL too (the tables and rows), read before the program.
        run_argv=(
            "/usr/bin/sqlite3",
            "-bail",
            "-batch",
            ":memory:",
            ".read /dev/stdin",
            ".read main.sql",
        ),
        assertion="none; a failed CHECK constraint: exit 1 (-bail)",
    ),
    LanguageSpec(
        name="verilog",
        title="Verilog",
        version="Icarus Verilog 12",
        sandbox_fusion="verilog",
        aliases=frozenset({"iverilog", "systemverilog", "v"}),
        source_name="main.v",
        compile_argv=("/usr/bin/iverilog", "-g2012", "-o", "main.vvp", "{source}"),
        artifacts=("main.vvp",),
        run_argv=("/usr/bin/vvp", "-n", "main.vvp"),
        # vvp prints where $finish or $stop was called (on stdout, no option turns it off).
        runtime_trailer=r"main\.v:\d+: \$(?:finish|stop)(?:\(\d\))? called at \d+ \(\S+\)",
        assertion="$fatal (vvp -n): exit 1",
    ),
)
