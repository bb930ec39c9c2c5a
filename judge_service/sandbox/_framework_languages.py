"""SandboxFusion's test-framework languages on the JVM and on Node: ``junit`` (JUnit 5's console
launcher, from the Java image) and ``jest`` (from the JavaScript image). Both take what
SandboxFusion's runners take, so the same request bodies work unchanged:

- junit: the code holds the classes under test and the test class; the file is named after its
  public class (``Main.java`` without one), other ``.java`` files sent with it compile too, and
  the console launcher scans the class path for tests;
- jest: the code is a TypeScript (or JavaScript) test file (SandboxFusion writes ``*.test.ts``
  and runs jest through Babel's TypeScript preset), with jest's globals and ``@jest/globals``.

The suite's exit status is its verdict, as for the other test-suite languages (see
``LanguageSpec.suite_failure_exit``)."""

from __future__ import annotations

from judge_service.sandbox._spec import LanguageSpec

# The JVM options every Java program runs with (java, junit): assertions on (off, an
# assert-based test accepts any answer), the heap at the job's limit, a serial GC and the C1
# JIT only (one CPU, short runs), no perf-data file.
JVM_RUN_OPTIONS = (
    "-ea",
    "-Xmx{memory_mb}m",
    "-Xss64m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-UsePerfData",
)


def javac_argv(*class_path: str) -> tuple[str, ...]:
    """javac on the job's file into /work. No annotation processors: none would run from a
    program's own files, and the warm compiler must load no class a job supplied."""
    path = ("-cp", ":".join(class_path)) if class_path else ()
    return (
        "/usr/bin/javac",
        "-J-Xmx512m",
        "-J-XX:+UseSerialGC",
        "-encoding",
        "UTF-8",
        "-proc:none",
        *path,
        "-d",
        ".",
        "{source}",
    )


# Debian's libjavatuples-java: MultiPL-E's Java prompts import org.javatuples (Pair, Triplet).
JAVATUPLES_JAR = "/usr/share/java/javatuples.jar"

# Debian's junit5: the console launcher, whose manifest puts the Jupiter (JUnit 5) and Vintage
# (JUnit 4) engines and the API jars on the class path, for javac as for java.
JUNIT_JAR = "/usr/share/java/junit-platform-console-standalone.jar"
# The launcher's classes, archived at image build (sandbox_images/java/JunitWarmupTest.java):
# 0.37 s of CPU per suite instead of 0.59 s.
JUNIT_CLASS_ARCHIVE = "/opt/judge/junit.jsa"

JUNIT = LanguageSpec(
    name="junit",
    sandbox_fusion="junit",
    title="Java JUnit 5 suite",
    version="OpenJDK 21, JUnit 5.10",
    image="java",
    source_name="Main.java",
    # /work first: a class the test names in another file sent with it compiles with it (javac
    # reads sources on the class path), as SandboxFusion's ``javac *.java``.
    compile_argv=javac_argv("/work", JUNIT_JAR),
    compile_server="javac",
    artifacts=("*.class",),
    run_argv=(
        "/usr/bin/java",
        *JVM_RUN_OPTIONS,
        f"-XX:SharedArchiveFile={JUNIT_CLASS_ARCHIVE}",
        "-jar",
        JUNIT_JAR,
        "execute",
        "--disable-banner",
        "--disable-ansi-colors",
        "--details=tree",
        "--class-path",
        "/work",
        "--scan-class-path",
        # Every class's tests, whatever its name: by default the launcher runs only classes
        # named *Test, *Tests or Test* (SandboxFusion's too), and a suite in a class named
        # otherwise would find no test and pass there without running one.
        "--include-classname=.*",
        # A suite with no test is exit 2 (RE), never a vacuous AC.
        "--fail-if-no-tests",
    ),
    rss_allowance_mb=96,
    mle_markers=("java.lang.OutOfMemoryError",),
    # The console launcher's status when a test (or a test class's set-up) failed.
    suite_failure_exit=1,
    assertion="JUnit's assertions, Java's assert (-ea): a failed test, exit 1",
)

# The image's jest (sandbox_images/javascript/Dockerfile) and its config, jest.config.js, which
# keeps jest in one process (--runInBand, no watchman, no `find` child), its cache in /work and
# its module search on the image's npm packages. esbuild (Debian's static binary) first strips
# the test file's types and turns its imports into require(), as SandboxFusion's Babel
# TypeScript preset does: a syntax error is CE, and jest runs without a transform (so, unlike
# babel-jest, no jest.mock() call is hoisted above the imports). esbuild
# instead of Babel: 10 ms of compile CPU instead of 360 ms (bench/suite_startup.py).
_JEST_HOME = "/opt/judge/jest"

JEST = LanguageSpec(
    name="jest",
    sandbox_fusion="jest",
    title="Jest suite (TypeScript or JavaScript)",
    version="Jest 29 on Node 20",
    image="javascript",
    source_name="main.test.ts",
    compile_argv=(
        "/usr/bin/esbuild",
        "{source}",
        # The program's own modules (files sent with it: ``import { f } from './solution'``)
        # are compiled into the suite; packages stay require() calls, found by jest.
        "--bundle",
        "--packages=external",
        "--outfile=main.test.js",
        "--format=cjs",
        "--platform=node",
        "--target=node20",
        "--log-level=warning",
    ),
    artifacts=("main.test.js",),
    run_argv=(
        "/usr/bin/node",
        "--max-old-space-size={memory_mb}",
        "--stack-size={runtime_stack_kb}",
        f"{_JEST_HOME}/node_modules/jest/bin/jest.js",
        "--config",
        f"{_JEST_HOME}/jest.config.js",
        "--runInBand",
        "--ci",
        # Done when the tests are: a timer or socket a test left open would otherwise keep jest
        # waiting until the time limit.
        "--forceExit",
    ),
    # jest's own modules (its runtime, expect, the node environment) on top of node's.
    rss_allowance_mb=128,
    mle_markers=("JavaScript heap out of memory",),
    # jest's status when a test failed (or the file failed to run: a top-level throw).
    suite_failure_exit=1,
    assertion="expect(): a failed test, exit 1",
)
