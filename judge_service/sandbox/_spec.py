"""A language's record in the language table: what the engine, the image builder, the
compatibility endpoints and the README read about it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from judge_service.sandbox._preludes import chosen_prelude, prelude_path
from judge_service.sandbox.models import TestMode

BASE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp",
}


@dataclass(frozen=True)
class LanguageSpec:
    """One language's toolchain. In a run or harness argument, ``{memory_mb}`` (the job's
    memory limit), ``{runtime_stack_kb}`` (:func:`runtime_stack_kb`) and ``{main_class}`` (Java's)
    are filled per job."""

    name: str
    source_name: str
    run_argv: tuple[str, ...]
    compile_argv: tuple[str, ...] = ()
    # An interpreter's syntax check (``node --check``): not run before the tests, which would
    # start the runtime twice for every program, but once, at the first test that ends RE or
    # CE, where it tells a program the runtime could not parse (CE, with the check's output)
    # from one that failed running. The verdicts are a check-first judge's.
    syntax_check_argv: tuple[str, ...] = ()
    # A compiler the sandbox keeps warm between jobs ("javac": see agent/javac_server.py).
    compile_server: str = ""
    artifacts: tuple[str, ...] = ()
    modes: frozenset[TestMode] = frozenset({TestMode.STDIN})
    harness_argv: tuple[str, ...] = ()
    use_zygote: bool = False
    # Runtimes that reserve memory of their own (JVM, V8) get this much RSS above the limit.
    rss_allowance_mb: int = 0
    mle_markers: tuple[str, ...] = ()
    # A last line of stdout the runtime prints itself, not the program (a regular expression of
    # the whole line): kept out of the program's output (Icarus's "$finish called at").
    runtime_trailer: str = ""
    # A runtime that touches its whole stack rlimit at start (Ruby) gets this cap instead of
    # the memory-sized stack, or its idle program would read as using the memory limit.
    stack_limit_mb: int | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    # Other names clients use for it: code-fence labels (```py), SandboxFusion's (nodejs).
    aliases: frozenset[str] = frozenset()
    # For people (the README's table): the language's name and its toolchain's version.
    title: str = ""
    version: str = ""
    # The name SandboxFusion's clients send for it (also one of its names), when it has one.
    sandbox_fusion: str | None = None
    # The image's directory under sandbox_images/ (default: the name); variants share one.
    image: str = ""
    # A language image built on another language's (TypeScript on JavaScript's node and
    # harness) instead of on the sandbox base.
    parent_image: str | None = None
    # The file the harness loads in assert and function modes (default: the source file); a
    # transpiled language's harness loads what its compiler wrote.
    harness_program: str = ""
    # A test-framework language (go_test, rust_test, pytest, gtest, D_ut): the program is a test
    # suite whose exit status is its verdict, 0 AC and this code (the framework's "some tests
    # failed") WA; what it prints is its report, never compared with an expected output.
    suite_failure_exit: int | None = None
    # MultiPL-E style assert mode for a language without an assert harness: a test's code is
    # appended to the program and the whole runs (see _appended); exit 0 is AC and this status,
    # a failed assertion's (an exit code, or minus the signal that ends the program), is WA.
    assert_failure_exit: int | None = None
    # What the language's standard assertion is and what a false one does, as this table runs
    # it (no flag here may compile assertions out: tests/sandbox/test_live_assertions.py runs a
    # false one in every language). For people: the README's table shows it.
    assertion: str = ""
    # Sets of headers the image precompiled for this language's compile command, one of which a
    # program including them all at its top is compiled with (see _preludes).
    preludes: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.assert_failure_exit is not None:
            object.__setattr__(self, "modes", self.modes | {TestMode.ASSERT})

    @property
    def appends_asserts(self) -> bool:
        return self.assert_failure_exit is not None

    @property
    def image_name(self) -> str:
        return self.image or self.name

    @property
    def display_title(self) -> str:
        return self.title or self.name

    @property
    def compiled(self) -> bool:
        return bool(self.compile_argv)

    def environment(self) -> dict[str, str]:
        return {**BASE_ENV, **self.env}

    def source_file(self, code: str) -> str:
        if self.image_name == "java":
            return java_class_name(code) + ".java"
        return self.source_name

    def main_argv(self, code: str, memory_mb: int) -> list[str]:
        return self._filled(self.run_argv, code, memory_mb)

    def harness_command(self, code: str, memory_mb: int) -> list[str]:
        return self._filled(self.harness_argv, code, memory_mb)

    def stack_bytes(self, memory_mb: int) -> int:
        """The stack rlimit. A runtime that keeps a stack limit of its own (``{runtime_stack_kb}``
        in a template: V8's) stops the program's frames at the memory-sized stack, as a C
        program's SIGSEGV does, and the rlimit is its native frames' room above that."""
        stack = stack_limit_bytes(memory_mb, self.stack_limit_mb)
        if self._keeps_its_own_stack_limit():
            stack += _NATIVE_STACK_KB << 10
        return stack

    def _keeps_its_own_stack_limit(self) -> bool:
        return any("{runtime_stack_kb}" in part for part in (*self.run_argv, *self.harness_argv))

    def _filled(self, argv: tuple[str, ...], code: str, memory_mb: int) -> list[str]:
        stack_kb = runtime_stack_kb(stack_limit_bytes(memory_mb, self.stack_limit_mb))
        values = {"memory_mb": str(memory_mb), "runtime_stack_kb": str(stack_kb)}
        if any("{main_class}" in part for part in argv):  # a search of the source
            finder = scala_main_object if self.image_name == "scala" else java_class_name
            values["main_class"] = finder(code)
        return [part.format(**values) for part in argv]

    def compile_command(self, code: str) -> list[str]:
        argv = self._naming_source(self.compile_argv, code)
        prelude = chosen_prelude(code, self.preludes)
        if prelude is not None:
            # A .gch GCC finds but cannot use would cost the time silently: say so instead.
            argv[1:1] = ["-include", prelude_path(prelude), "-Winvalid-pch"]
        return argv

    def syntax_check_command(self, code: str) -> list[str]:
        return self._naming_source(self.syntax_check_argv, code)

    def _naming_source(self, argv: tuple[str, ...], code: str) -> list[str]:
        # The file name once: for Java it is a search of the source for its class.
        source = self.source_file(code)
        return [part.format(source=source) for part in argv]


def stack_limit_bytes(memory_mb: int, cap_mb: int | None = None) -> int:
    """The stack rlimit for a run under ``memory_mb``: the memory limit less a margin.

    Stack pages count towards the memory limit too, so a stack as large as the limit lets a
    runaway recursion reach the memory cap first and read as MLE, by a race with the RSS
    watcher. With the margin (an eighth, at least 8 MiB) the recursion hits the stack limit and
    dies of SIGSEGV: a runtime error, as users expect of a stack overflow.
    """
    margin_mb = max(memory_mb // 8, 8)
    stack_mb = max(memory_mb - margin_mb, 8)
    return min(stack_mb, cap_mb or stack_mb) << 20


def runtime_stack_kb(stack_bytes: int) -> int:
    """A runtime's own stack limit (V8's ``--stack-size``, KiB) for a program promised a stack
    of ``stack_bytes`` (:func:`stack_limit_bytes`): all of it, at most Node's 64 MB, so that a
    JavaScript program recurses as deep as a C program and a deeper recursion throws the
    RangeError it may catch. V8 checks its limit in the frames it runs; the native frames past
    it (builtins, a Proxy trap or String(this) recursing, a signal handler) get the room that
    :meth:`LanguageSpec.stack_bytes` adds to the rlimit (every such recursion tried threw
    RangeError with 512 KiB of it left; a limit at the rlimit died of SIGSEGV, RE)."""
    return min(stack_bytes >> 10, MAX_RUNTIME_STACK_KB)


# Node's largest --stack-size (64 MB less V8's slack).
MAX_RUNTIME_STACK_KB = 65500


# The room past V8's stack limit that its native frames get (above the memory-sized stack).
_NATIVE_STACK_KB = 2048


_JAVA_PUBLIC_CLASS = re.compile(r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)")
_JAVA_CLASS = re.compile(r"class\s+([A-Za-z_$][\w$]*)")
_JAVA_CLASS_WORD = re.compile(r"\bclass\b")
_JAVA_MAIN = re.compile(r"static\s+void\s+main\s*\(")


def java_class_name(code: str) -> str:
    """The class javac needs in a file of its own name: the public one, else the one with main."""
    public = _JAVA_PUBLIC_CLASS.search(code)
    if public is not None:
        return public[1]
    return _main_class(code) or "Main"


def _main_class(code: str) -> str | None:
    """The first class declaration whose body, up to the next ``class`` keyword, declares
    ``static void main(``. Each search starts where the last one stopped, so the source is read
    in linear time (one pattern over it all took 5 s on "class " + "a" * 80000, holding the GIL)."""
    brace = main = word = -1  # the first "{", main and class keyword found past a point
    for declared in _JAVA_CLASS.finditer(code):
        if declared.end() > brace:
            brace = code.find("{", declared.end())
            if brace < 0:
                return None
        if main <= brace:
            found = _JAVA_MAIN.search(code, brace + 1)
            if found is None:
                return None
            main = found.start()
        if word <= brace:
            found = _JAVA_CLASS_WORD.search(code, brace + 1)
            word = len(code) if found is None else found.start()
        if main < word:
            return declared[1]
    return None


_SCALA_OBJECT = re.compile(r"\bobject\s+([A-Za-z_][\w$]*)")
# Comments and literals, which may say "object" or "def main(" without declaring anything.
_SCALA_NOT_CODE = re.compile(
    r'"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'|//[^\n]*|/\*[\s\S]*?\*/'
)
_SCALA_ENTRY = re.compile(r"\bextends\s+App\b|\bdef\s+main\s*\(")


def scala_main_object(code: str) -> str:
    """The object a Scala program starts from, as SandboxFusion's tests name it freely: the first
    ``object`` that declares ``def main(`` or extends ``App`` before the next ``object`` keyword
    (a helper object before it is passed over), else the first object, else ``Main``; what
    comments and string literals say is not read."""
    code = _SCALA_NOT_CODE.sub(lambda literal: " " * len(literal[0]), code)
    objects = list(_SCALA_OBJECT.finditer(code))
    if not objects:
        return "Main"
    ends = [following.start() for following in objects[1:]] + [len(code)]
    for declared, body_end in zip(objects, ends, strict=True):
        if _SCALA_ENTRY.search(code, declared.end(), body_end):
            return declared[1]
    return objects[0][1]
