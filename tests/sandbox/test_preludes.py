"""Which precompiled prelude a C++ program is compiled with: only one holding nothing the
program did not include at its top."""

from __future__ import annotations

import pytest

from judge_service.sandbox._preludes import (
    CPP_PRELUDES,
    chosen_prelude,
    leading_includes,
    prelude_path,
)
from judge_service.sandbox.languages import LANGUAGES

HUMANEVAL_X_TOP = (
    "/*\nReturn the sum of a vector.\n>>> sum({1, 2})\n3\n*/\n"
    "#include<stdio.h>\n#include<vector>\n#include<string>\nusing namespace std;\n"
    "int sum(vector<int> v) { int s = 0; for (int x : v) s += x; return s; }\n"
)


def test_the_leading_block_is_read_past_comments_and_blank_lines() -> None:
    code = (
        "// a solution\r\n\n/* several\n   lines */\n#include <vector>   // arrays\n"
        "/* one */ #include<string> /* two */\n# include <map>\n"
        "int main() {}\n#include <algorithm>\n"
    )
    assert leading_includes(code) == ["vector", "string", "map"]
    assert leading_includes(HUMANEVAL_X_TOP) == ["stdio.h", "vector", "string"]


@pytest.mark.parametrize(
    "top",
    [
        "#define private public\n#include <string>\n",  # a macro could change the header
        '#pragma GCC optimize("O3")\n#include <string>\n',
        "#ifdef LOCAL\n#include <string>\n#endif\n",
        "// a comment going on \\\n#include <string>\n",  # the include is in the comment
        "// a comment going on \\ \t\n#include <string>\n",  # GCC splices it all the same
        '#include "string"\n',  # a file of the program's own first
        "/* unclosed\n#include <string>\n",
        "\ufeff#include <string>\n",
    ],
)
def test_the_block_ends_at_anything_that_could_change_what_follows(top: str) -> None:
    code = "#include <vector>\n" + top + "int main() {}\n"
    assert "string" not in leading_includes(code)
    assert chosen_prelude(code, CPP_PRELUDES) == ("vector",)


def test_the_largest_prelude_whose_headers_the_program_all_includes() -> None:
    assert chosen_prelude(HUMANEVAL_X_TOP, CPP_PRELUDES) == ("vector", "string")
    top = "#include <algorithm>\n#include <cstdio>\n#include <vector>\n#include <string>\n"
    assert chosen_prelude(top + "int main() {}\n", CPP_PRELUDES) == (
        "vector",
        "string",
        "algorithm",
    )
    # Nothing the program did not include: <vector> alone never brings <string> along.
    assert chosen_prelude("#include <vector>\nint main() {}\n", CPP_PRELUDES) == ("vector",)
    assert chosen_prelude("#include <map>\n#include <cmath>\nint main() {}\n", CPP_PRELUDES) is None
    assert chosen_prelude("int main() {}\n#include <vector>\n", CPP_PRELUDES) is None


@pytest.mark.parametrize("first", ["linux/sysctl.h", "linux/errqueue.h", "boost/any.hpp"])
def test_no_prelude_when_a_header_outside_the_standard_library_is_included(first: str) -> None:
    """Parsed after the prelude's standard headers, <linux/sysctl.h> compiles; first, as the
    program has it, it is CE: only standard headers may be included in any order."""
    code = f"#include <{first}>\n#include <vector>\n#include <cstdio>\nint main() {{}}\n"
    assert leading_includes(code) == [first, "vector", "cstdio"]
    assert chosen_prelude(code, CPP_PRELUDES) is None
    assert chosen_prelude(code.replace(f"<{first}>", "<math.h>"), CPP_PRELUDES) == ("vector",)


def test_bits_stdcpp_keeps_its_own_precompiled_header() -> None:
    """Only the first header can come precompiled: a prelude before <bits/stdc++.h> would make
    GCC parse all of it."""
    for top in ("#include <bits/stdc++.h>\n", "#include <vector>\n#include <bits/stdc++.h>\n"):
        assert chosen_prelude(top + "int main() {}\n", CPP_PRELUDES) is None


def test_only_cpp_compiles_with_a_prelude_and_it_comes_before_the_source() -> None:
    argv = LANGUAGES["cpp"].compile_command(HUMANEVAL_X_TOP)
    assert argv[1:4] == ["-include", prelude_path(("vector", "string")), "-Winvalid-pch"]
    assert prelude_path(("vector", "string")) == "/opt/judge/pch/vector+string.hpp"
    assert argv[4:] == LANGUAGES["cpp"].compile_command("int main() {}\n")[1:]
    for variant in ("cpp17", "cpp23", "gtest", "c"):
        assert "-include" not in LANGUAGES[variant].compile_command(HUMANEVAL_X_TOP)


# ---- through the sandbox: the image's preludes as the judge's compile command uses them ----

EXACT = (
    "// Only <vector>: this program's own string type is the one it means.\n"
    "#include <vector>\n"
    "using namespace std;\n"
    "struct string { int n; };\n"
    "int main() { vector<string> v(3); string s{4}; return v.size() + s.n == 7 ? 0 : 1; }\n"
)


@pytest.mark.integration
def test_a_program_sees_only_the_headers_it_included(judge) -> None:
    """With <string> too (a prelude holding it, wrongly chosen) its `string` is ambiguous:
    CE, where GCC on the program alone compiles it."""
    result = judge("cpp", EXACT, [{"input": "", "output": ""}])
    assert result.verdict.value == "AC", result.compile
    wrongly = judge("cpp", "#include <string>\n" + EXACT, [{"input": "", "output": ""}])
    assert wrongly.verdict.value == "CE"


@pytest.mark.integration
@pytest.mark.parametrize("prelude", CPP_PRELUDES, ids="+".join)
def test_each_prelude_compiles_silently_and_its_program_runs(judge, prelude) -> None:
    """GCC finds each prelude's .gch and can use it with the judge's options (-Winvalid-pch
    would say otherwise in the compile output), and the program keeps its line numbers."""
    top = "".join(f"#include <{header}>\n" for header in (*prelude, "cstdio"))
    code = top + 'using namespace std;\nint main() { puts("ok"); }\n'
    result = judge("cpp", code, [{"input": "", "output": "ok"}])
    assert result.verdict.value == "AC", result.compile
    assert result.compile is not None and result.compile.output == ""
    broken = judge("cpp", top + "int main() { return missing; }\n", [{"output": ""}])
    assert broken.verdict.value == "CE"
    assert f"main.cpp:{len(prelude) + 2}:" in broken.compile.output


@pytest.mark.integration
def test_the_precompiled_preludes_are_in_the_image(judge) -> None:
    """Each prelude's .gch is a GCC precompiled header (without one, -include parses the
    headers again: the same program, none of the speed)."""
    paths = [prelude_path(prelude) + ".gch" for prelude in CPP_PRELUDES]
    code = (
        "#include <cstdio>\n#include <cstring>\n"
        "int main(int, char**) {\n  const char* paths[] = {"
        + ", ".join(f'"{path}"' for path in paths)
        + "};\n  int good = 0;\n  for (const char* path : paths) {\n"
        '    FILE* file = fopen(path, "rb"); char magic[4] = {0};\n'
        '    if (file && fread(magic, 1, 4, file) == 4 && !memcmp(magic, "gpch", 4)) good++;\n'
        "    if (file) fclose(file);\n  }\n"
        '  printf("%d\\n", good);\n}\n'
    )
    result = judge("cpp17", code, [{"input": "", "output": str(len(paths))}])
    assert result.verdict.value == "AC", (result.tests[0].stdout, result.compile)


@pytest.mark.integration
@pytest.mark.parametrize(
    "top",
    [
        "#include <cstdio>\n#include <string>\n// a note \\ \n#include <vector>\n",
        "#include <linux/sysctl.h>\n#include <vector>\n#include <cstdio>\n",
    ],
    ids=["spliced-comment", "header-before-standard-ones"],
)
def test_what_gcc_alone_rejects_the_judge_rejects(judge, top: str) -> None:
    """Both are CE with plain g++ (the include in the comment is not there; <linux/sysctl.h>
    needs what <vector> would have declared before it), so with the judge's command too."""
    code = top + 'int main() { std::vector<int> v{1, 2}; std::printf("%zu\\n", v.size()); }\n'
    result = judge("cpp", code, [{"input": "", "output": "2"}])
    assert result.verdict.value == "CE", result.compile
