# ruff: noqa: E501  (programs in other languages, kept one statement a line)
"""Programs in the languages past the first seven: ten HumanEval-style problems, each solved in
every language, and per language a crashing, a looping and a memory-hungry program.

Every problem reads whitespace-separated integers ``a`` from stdin and prints one integer, so a
language's solutions share its prelude (reading ``a``) and suffix; SQL reads them as a table
``a(i, v)`` (``i`` from 1), made by its input. A problem's wrong solution is another
problem's right one (``WRONG_WITH``), which answers its tests differently (checked against the
reference answers), so no wrong program is written twice.
"""

from __future__ import annotations

import math
from collections.abc import Callable

# ---- the problems: reference answers and tests ---------------------------------------------


def _below_zero(a: list[int]) -> int:
    total = 0
    for x in a:
        total += x
        if total < 0:
            return 1
    return 0


def _monotonic(a: list[int]) -> int:
    pairs = list(zip(a, a[1:], strict=False))
    return int(all(x <= y for x, y in pairs) or all(x >= y for x, y in pairs))


def _is_prime(x: int) -> bool:
    return x >= 2 and all(x % d for d in range(2, math.isqrt(x) + 1))


def _fib(n: int) -> int:
    x, y = 0, 1
    for _ in range(max(n, 0)):
        x, y = y, x + y
    return x


REFERENCE: dict[str, Callable[[list[int]], int]] = {
    "sum_list": sum,
    "max_element": max,
    "count_evens": lambda a: sum(1 for x in a if x % 2 == 0),
    "sum_squares": lambda a: sum(x * x for x in a),
    "below_zero": _below_zero,
    "is_palindrome": lambda a: int(a == a[::-1]),
    "monotonic": _monotonic,
    "count_primes": lambda a: sum(1 for x in a if _is_prime(x)),
    "fib": lambda a: _fib(a[0]),
    "gcd": lambda a: math.gcd(a[0], a[1]),
}

_LISTS = [[3, -1, 4, 1, -5, 9], [1, 2, 3, 2, 1], [2, 2], [7], [1, 2, 3], [10, 5, 0, -5]]
INPUTS: dict[str, list[list[int]]] = {name: _LISTS for name in REFERENCE}
INPUTS["count_primes"] = [[3, -1, 4, 1, -5, 9], [2, 3, 5, 7, 11, 13], [1, 97, 91, 89], [0]]
INPUTS["fib"] = [[0], [1], [10], [40]]
INPUTS["gcd"] = [[12, 18], [17, 5], [100, 75], [7, 7]]

# Each problem's wrong solution: the solution of the problem named here.
WRONG_WITH = {
    "sum_list": "max_element",
    "max_element": "count_evens",
    "count_evens": "sum_squares",
    "sum_squares": "below_zero",
    "below_zero": "is_palindrome",
    "is_palindrome": "monotonic",
    "monotonic": "count_primes",
    "count_primes": "fib",
    "fib": "sum_list",
    "gcd": "max_element",
}


def stdin_for(language: str, numbers: list[int]) -> str:
    if language == "sql":
        rows = ", ".join(f"({x})" for x in numbers)
        return (
            f"CREATE TABLE a(i INTEGER PRIMARY KEY, v INTEGER);\nINSERT INTO a(v) VALUES {rows};\n"
        )
    return " ".join(map(str, numbers)) + "\n"


def tests_for(language: str, problem: str) -> list[dict[str, str]]:
    return [
        {"input": stdin_for(language, numbers), "output": str(REFERENCE[problem](numbers))}
        for numbers in INPUTS[problem]
    ]


def program(language: str, problem: str) -> str:
    prelude, suffix = FRAME[language]
    return prelude + SOLUTIONS[language][problem] + suffix


# ---- per language: (prelude, suffix) and the ten solutions ---------------------------------
FRAME: dict[str, tuple[str, str]] = {
    "typescript": (
        'const a: number[] = require("fs").readFileSync(0, "utf8").split(/\\s+/)'
        ".filter((s: string) => s).map(Number);\n",
        "",
    ),
    "bash": ("read -r -d '' -a a < /dev/stdin || true\nn=${#a[@]}\n", ""),
    "php": (
        "<?php\n$a = array_map('intval', preg_split('/\\s+/', trim(stream_get_contents(STDIN))));\n",
        "",
    ),
    "ruby": ("a = $stdin.read.split.map(&:to_i)\n", ""),
    "lua": (
        'local a = {}\nfor w in io.read("a"):gmatch("%S+") do a[#a + 1] = tonumber(w) end\n',
        "",
    ),
    "perl": ("my @a = split ' ', do { local $/; <STDIN> };\n", ""),
    "csharp": (
        "using System;\nusing System.Linq;\nclass Program {\n  static void Main() {\n"
        "    var a = Console.In.ReadToEnd().Split((char[])null, "
        "StringSplitOptions.RemoveEmptyEntries).Select(long.Parse).ToArray();\n",
        "\n  }\n}\n",
    ),
    "r": ('a <- scan(file("stdin"), what = integer(), quiet = TRUE)\n', ""),
    "scala": (
        "object Main {\n  def main(args: Array[String]): Unit = {\n"
        '    val a = scala.io.Source.stdin.mkString.split("\\\\s+").filter(_.nonEmpty)'
        ".map(_.toLong)\n",
        "\n  }\n}\n",
    ),
    "d": (
        "import std.stdio, std.algorithm, std.array, std.conv, std.range;\n"
        'void main() {\n  long[] a = stdin.byLineCopy.array.join(" ").split.map!(to!long).array;\n',
        "\n}\n",
    ),
    "haskell": (
        "main :: IO ()\nmain = do\n  a <- map read . words <$> getContents :: IO [Integer]\n",
        "",
    ),
    "ocaml": (
        'let a =\n  let rec go acc = match Scanf.scanf " %d" (fun x -> x) with\n'
        "    | x -> go (x :: acc)\n    | exception _ -> List.rev acc\n"
        "  in Array.of_list (go [])\n",
        "",
    ),
    "pascal": (
        "{$mode objfpc}\nprogram main;\nvar\n  a: array of Int64;\n  n, i: integer;\n"
        "  x, s, m, c, r, t, y, d: Int64;\n  up, down, p: boolean;\nbegin\n  n := 0;\n"
        "  while not SeekEof do begin read(x); SetLength(a, n + 1); a[n] := x; inc(n); end;\n",
        "\nend.\n",
    ),
    "fortran": (
        "program main\n  implicit none\n  integer(8) :: buf(10000), x, s, m, c, r, t, y, d\n"
        "  integer(8), allocatable :: a(:)\n  integer :: n, i, ios\n  logical :: up, down, p\n"
        "  character(len=100000) :: line\n  read(*, '(A)') line\n  n = 0\n  do\n"
        "    read(line, *, iostat=ios) buf(1:n + 1)\n    if (ios /= 0) exit\n    n = n + 1\n"
        "  end do\n  a = buf(1:n)\n",
        "\nend program main\n",
    ),
    "racket": ("#lang racket\n(define a (for/list ([t (in-port read)]) t))\n", ""),
    "sql": ("", "\n"),
    "swift": (
        'var words: [Substring] = []\nwhile let line = readLine() { words += line.split(separator: " ") }\n'
        "let a = words.map { Int($0)! }\n",
        "\n",
    ),
    "verilog": (
        "module main;\n  integer a[0:9999];\n  integer n, x, i, s, m, c, r, t, y, d, up, down, p;\n"
        "  initial begin\n    n = 0;\n"
        '    while ($fscanf(32\'h8000_0000, "%d", x) == 1) begin a[n] = x; n = n + 1; end\n',
        "\n    $finish(0);\n  end\nendmodule\n",
    ),
}

SOLUTIONS: dict[str, dict[str, str]] = {
    "typescript": {
        "sum_list": "console.log(a.reduce((s, x) => s + x, 0));",
        "max_element": "console.log(Math.max(...a));",
        "count_evens": "console.log(a.filter((x) => x % 2 === 0).length);",
        "sum_squares": "console.log(a.reduce((s, x) => s + x * x, 0));",
        "below_zero": "let s = 0, neg = 0;\nfor (const x of a) { s += x; if (s < 0) neg = 1; }\n"
        "console.log(neg);",
        "is_palindrome": "console.log(a.every((x, i) => x === a[a.length - 1 - i]) ? 1 : 0);",
        "monotonic": "const up = a.every((x, i) => i === 0 || a[i - 1] <= x);\n"
        "const down = a.every((x, i) => i === 0 || a[i - 1] >= x);\nconsole.log(up || down ? 1 : 0);",
        "count_primes": "const isPrime = (x: number): boolean => {\n  if (x < 2) return false;\n"
        "  for (let d = 2; d * d <= x; d++) if (x % d === 0) return false;\n  return true;\n};\n"
        "console.log(a.filter(isPrime).length);",
        "fib": "let [x, y] = [0, 1];\nfor (let i = 0; i < a[0]; i++) [x, y] = [y, x + y];\n"
        "console.log(x);",
        "gcd": "let [x, y] = [a[0], a[1]];\nwhile (y !== 0) [x, y] = [y, x % y];\nconsole.log(x);",
    },
    "bash": {
        "sum_list": 's=0; for x in "${a[@]}"; do s=$((s + x)); done; echo $s',
        "max_element": 'm=${a[0]}; for x in "${a[@]}"; do ((x > m)) && m=$x; done; echo $m',
        "count_evens": 'c=0; for x in "${a[@]}"; do ((x % 2 == 0)) && c=$((c + 1)); done; echo $c',
        "sum_squares": 's=0; for x in "${a[@]}"; do s=$((s + x * x)); done; echo $s',
        "below_zero": 's=0; r=0; for x in "${a[@]}"; do s=$((s + x)); ((s < 0)) && r=1; done; '
        "echo $r",
        "is_palindrome": "r=1; for ((i = 0; i < n; i++)); do ((a[i] != a[n - 1 - i])) && r=0; done; "
        "echo $r",
        "monotonic": "up=1; down=1\nfor ((i = 1; i < n; i++)); do\n"
        "  ((a[i] < a[i - 1])) && up=0\n  ((a[i] > a[i - 1])) && down=0\ndone\n"
        "echo $((up || down))",
        "count_primes": 'c=0\nfor x in "${a[@]}"; do\n  p=$((x >= 2))\n'
        "  for ((d = 2; d * d <= x; d++)); do ((x % d == 0)) && p=0; done\n  c=$((c + p))\n"
        "done\necho $c",
        "fib": "x=0; y=1; for ((i = 0; i < a[0]; i++)); do t=$((x + y)); x=$y; y=$t; done; echo $x",
        "gcd": "x=${a[0]}; y=${a[1]}; while ((y != 0)); do t=$((x % y)); x=$y; y=$t; done; echo $x",
    },
    "php": {
        "sum_list": 'echo array_sum($a), "\\n";',
        "max_element": 'echo max($a), "\\n";',
        "count_evens": 'echo count(array_filter($a, fn($x) => $x % 2 == 0)), "\\n";',
        "sum_squares": 'echo array_sum(array_map(fn($x) => $x * $x, $a)), "\\n";',
        "below_zero": "$s = 0; $r = 0;\nforeach ($a as $x) { $s += $x; if ($s < 0) $r = 1; }\n"
        'echo $r, "\\n";',
        "is_palindrome": 'echo ($a === array_reverse($a)) ? 1 : 0, "\\n";',
        "monotonic": "$up = $down = 1;\nfor ($i = 1; $i < count($a); $i++) {\n"
        "  if ($a[$i] < $a[$i - 1]) $up = 0;\n  if ($a[$i] > $a[$i - 1]) $down = 0;\n}\n"
        'echo ($up || $down) ? 1 : 0, "\\n";',
        "count_primes": "$c = 0;\nforeach ($a as $x) {\n  $p = $x >= 2;\n"
        "  for ($d = 2; $d * $d <= $x; $d++) if ($x % $d == 0) $p = false;\n  if ($p) $c++;\n}\n"
        'echo $c, "\\n";',
        "fib": "$x = 0; $y = 1;\nfor ($i = 0; $i < $a[0]; $i++) [$x, $y] = [$y, $x + $y];\n"
        'echo $x, "\\n";',
        "gcd": "[$x, $y] = [$a[0], $a[1]];\nwhile ($y != 0) [$x, $y] = [$y, $x % $y];\n"
        'echo $x, "\\n";',
    },
    "ruby": {
        "sum_list": "puts a.sum",
        "max_element": "puts a.max",
        "count_evens": "puts a.count(&:even?)",
        "sum_squares": "puts a.sum { |x| x * x }",
        "below_zero": "s = 0\nr = 0\na.each { |x| s += x; r = 1 if s < 0 }\nputs r",
        "is_palindrome": "puts(a == a.reverse ? 1 : 0)",
        "monotonic": "pairs = a.each_cons(2).to_a\n"
        "r = pairs.all? { |x, y| x <= y } || pairs.all? { |x, y| x >= y }\nputs(r ? 1 : 0)",
        "count_primes": "puts a.count { |x| x >= 2 && (2..Integer.sqrt(x)).none? { |d| x % d == 0 } }",
        "fib": "x, y = 0, 1\na[0].times { x, y = y, x + y }\nputs x",
        "gcd": "puts a[0].gcd(a[1])",
    },
    "lua": {
        "sum_list": "local s = 0\nfor _, x in ipairs(a) do s = s + x end\nprint(s)",
        "max_element": "local m = a[1]\nfor _, x in ipairs(a) do if x > m then m = x end end\nprint(m)",
        "count_evens": "local c = 0\nfor _, x in ipairs(a) do if x % 2 == 0 then c = c + 1 end end\n"
        "print(c)",
        "sum_squares": "local s = 0\nfor _, x in ipairs(a) do s = s + x * x end\nprint(s)",
        "below_zero": "local s, r = 0, 0\n"
        "for _, x in ipairs(a) do s = s + x if s < 0 then r = 1 end end\nprint(r)",
        "is_palindrome": "local r = 1\nfor i = 1, #a do if a[i] ~= a[#a + 1 - i] then r = 0 end end\n"
        "print(r)",
        "monotonic": "local up, down = 1, 1\nfor i = 2, #a do\n"
        "  if a[i] < a[i - 1] then up = 0 end\n  if a[i] > a[i - 1] then down = 0 end\nend\n"
        "print((up == 1 or down == 1) and 1 or 0)",
        "count_primes": "local c = 0\nfor _, x in ipairs(a) do\n  local p = x >= 2\n  local d = 2\n"
        "  while d * d <= x do if x % d == 0 then p = false end d = d + 1 end\n"
        "  if p then c = c + 1 end\nend\nprint(c)",
        "fib": "local x, y = 0, 1\nfor _ = 1, a[1] do x, y = y, x + y end\nprint(x)",
        "gcd": "local x, y = a[1], a[2]\nwhile y ~= 0 do x, y = y, x % y end\nprint(x)",
    },
    "perl": {
        "sum_list": 'my $s = 0; $s += $_ for @a; print "$s\\n";',
        "max_element": 'my $m = $a[0]; for (@a) { $m = $_ if $_ > $m } print "$m\\n";',
        "count_evens": 'my $c = grep { $_ % 2 == 0 } @a; print "$c\\n";',
        "sum_squares": 'my $s = 0; $s += $_ * $_ for @a; print "$s\\n";',
        "below_zero": 'my ($s, $r) = (0, 0); for (@a) { $s += $_; $r = 1 if $s < 0 } print "$r\\n";',
        "is_palindrome": "my $r = join(',', @a) eq join(',', reverse @a) ? 1 : 0; print \"$r\\n\";",
        "monotonic": "my ($up, $down) = (1, 1);\nfor my $i (1 .. $#a) {\n"
        "  $up = 0 if $a[$i] < $a[$i - 1];\n  $down = 0 if $a[$i] > $a[$i - 1];\n}\n"
        'print(($up || $down) ? 1 : 0, "\\n");',
        "count_primes": "my $c = 0;\nfor my $x (@a) {\n  my $p = $x >= 2;\n"
        "  for (my $d = 2; $d * $d <= $x; $d++) { $p = 0 if $x % $d == 0 }\n  $c++ if $p;\n}\n"
        'print "$c\\n";',
        "fib": 'my ($x, $y) = (0, 1); ($x, $y) = ($y, $x + $y) for 1 .. $a[0]; print "$x\\n";',
        "gcd": 'my ($x, $y) = @a[0, 1]; ($x, $y) = ($y, $x % $y) while $y != 0; print "$x\\n";',
    },
    "csharp": {
        "sum_list": "Console.WriteLine(a.Sum());",
        "max_element": "Console.WriteLine(a.Max());",
        "count_evens": "Console.WriteLine(a.Count(x => x % 2 == 0));",
        "sum_squares": "Console.WriteLine(a.Sum(x => x * x));",
        "below_zero": "long s = 0; int r = 0;\nforeach (var x in a) { s += x; if (s < 0) r = 1; }\n"
        "Console.WriteLine(r);",
        "is_palindrome": "Console.WriteLine(a.SequenceEqual(a.Reverse()) ? 1 : 0);",
        "monotonic": "bool up = true, down = true;\nfor (int i = 1; i < a.Length; i++) {\n"
        "  if (a[i] < a[i - 1]) up = false;\n  if (a[i] > a[i - 1]) down = false;\n}\n"
        "Console.WriteLine(up || down ? 1 : 0);",
        "count_primes": "Console.WriteLine(a.Count(x => {\n  if (x < 2) return false;\n"
        "  for (long d = 2; d * d <= x; d++) if (x % d == 0) return false;\n  return true;\n}));",
        "fib": "long x = 0, y = 1;\nfor (long i = 0; i < a[0]; i++) { var t = x + y; x = y; y = t; }\n"
        "Console.WriteLine(x);",
        "gcd": "long x = a[0], y = a[1];\nwhile (y != 0) { var t = x % y; x = y; y = t; }\n"
        "Console.WriteLine(x);",
    },
    "r": {
        "sum_list": 'cat(sum(a), "\\n", sep = "")',
        "max_element": 'cat(max(a), "\\n", sep = "")',
        "count_evens": 'cat(sum(a %% 2 == 0), "\\n", sep = "")',
        "sum_squares": 'cat(sum(a * a), "\\n", sep = "")',
        "below_zero": 'cat(as.integer(any(cumsum(a) < 0)), "\\n", sep = "")',
        "is_palindrome": 'cat(as.integer(all(a == rev(a))), "\\n", sep = "")',
        "monotonic": 'd <- diff(a)\ncat(as.integer(all(d >= 0) || all(d <= 0)), "\\n", sep = "")',
        "count_primes": "is_prime <- function(x) {\n  if (x < 2) return(FALSE)\n  d <- 2\n"
        "  while (d * d <= x) { if (x %% d == 0) return(FALSE); d <- d + 1 }\n  TRUE\n}\n"
        'cat(sum(sapply(a, is_prime)), "\\n", sep = "")',
        "fib": "x <- 0; y <- 1\nfor (i in seq_len(max(a[1], 0))) { t <- x + y; x <- y; y <- t }\n"
        'cat(format(x, scientific = FALSE), "\\n", sep = "")',
        "gcd": "x <- a[1]; y <- a[2]\nwhile (y != 0) { t <- x %% y; x <- y; y <- t }\n"
        'cat(x, "\\n", sep = "")',
    },
    "scala": {
        "sum_list": "println(a.sum)",
        "max_element": "println(a.max)",
        "count_evens": "println(a.count(_ % 2 == 0))",
        "sum_squares": "println(a.map(x => x * x).sum)",
        "below_zero": "println(if (a.scanLeft(0L)(_ + _).exists(_ < 0)) 1 else 0)",
        "is_palindrome": "println(if (a.sameElements(a.reverse)) 1 else 0)",
        "monotonic": "val d = a.zip(a.drop(1))\n"
        "println(if (d.forall(p => p._1 <= p._2) || d.forall(p => p._1 >= p._2)) 1 else 0)",
        "count_primes": "println(a.count(x => x >= 2 && (2L to math.sqrt(x.toDouble).toLong)"
        ".forall(x % _ != 0)))",
        "fib": "var x = 0L; var y = 1L\nfor (_ <- 0L until a(0)) { val t = x + y; x = y; y = t }\n"
        "println(x)",
        "gcd": "var x = a(0); var y = a(1)\nwhile (y != 0) { val t = x % y; x = y; y = t }\n"
        "println(x)",
    },
    "d": {
        "sum_list": "writeln(a.sum);",
        "max_element": "writeln(a.maxElement);",
        "count_evens": "writeln(a.count!(x => x % 2 == 0));",
        "sum_squares": "writeln(a.map!(x => x * x).sum);",
        "below_zero": "long s = 0; int r = 0;\nforeach (x; a) { s += x; if (s < 0) r = 1; }\n"
        "writeln(r);",
        "is_palindrome": "writeln(a.equal(a.retro) ? 1 : 0);",
        "monotonic": "bool up = true, down = true;\nforeach (i; 1 .. a.length) {\n"
        "  if (a[i] < a[i - 1]) up = false;\n  if (a[i] > a[i - 1]) down = false;\n}\n"
        "writeln(up || down ? 1 : 0);",
        "count_primes": "writeln(a.count!((long x) {\n  if (x < 2) return false;\n"
        "  for (long d = 2; d * d <= x; d++) if (x % d == 0) return false;\n  return true;\n}));",
        "fib": "long x = 0, y = 1;\nforeach (i; 0 .. a[0]) { auto t = x + y; x = y; y = t; }\n"
        "writeln(x);",
        "gcd": "long x = a[0], y = a[1];\nwhile (y != 0) { auto t = x % y; x = y; y = t; }\n"
        "writeln(x);",
    },
    "haskell": {
        "sum_list": "  print (sum a)",
        "max_element": "  print (maximum a)",
        "count_evens": "  print (length (filter even a))",
        "sum_squares": "  print (sum (map (^ (2 :: Int)) a))",
        "below_zero": "  print (if any (< 0) (scanl1 (+) a) then 1 else 0 :: Int)",
        "is_palindrome": "  print (if a == reverse a then 1 else 0 :: Int)",
        "monotonic": "  let d = zipWith (-) (drop 1 a) a\n"
        "  print (if all (>= 0) d || all (<= 0) d then 1 else 0 :: Int)",
        "count_primes": "  let isPrime x = x >= 2 && all (\\k -> x `mod` k /= 0) "
        "(takeWhile (\\k -> k * k <= x) [2 ..])\n  print (length (filter isPrime a))",
        "fib": "  let fibs = 0 : 1 : zipWith (+) fibs (tail fibs) :: [Integer]\n"
        "  print (fibs !! fromIntegral (max 0 (head a)))",
        "gcd": "  print (gcd (a !! 0) (a !! 1))",
    },
    "ocaml": {
        "sum_list": 'let () = Printf.printf "%d\\n" (Array.fold_left ( + ) 0 a)',
        "max_element": 'let () = Printf.printf "%d\\n" (Array.fold_left max a.(0) a)',
        "count_evens": 'let () = Printf.printf "%d\\n" '
        "(Array.fold_left (fun c x -> if x mod 2 = 0 then c + 1 else c) 0 a)",
        "sum_squares": 'let () = Printf.printf "%d\\n" (Array.fold_left (fun s x -> s + x * x) 0 a)',
        "below_zero": "let () =\n  let s = ref 0 and r = ref 0 in\n"
        "  Array.iter (fun x -> s := !s + x; if !s < 0 then r := 1) a;\n"
        '  Printf.printf "%d\\n" !r',
        "is_palindrome": "let () =\n  let n = Array.length a and r = ref 1 in\n"
        "  Array.iteri (fun i x -> if x <> a.(n - 1 - i) then r := 0) a;\n"
        '  Printf.printf "%d\\n" !r',
        "monotonic": "let () =\n  let up = ref true and down = ref true in\n"
        "  for i = 1 to Array.length a - 1 do\n    if a.(i) < a.(i - 1) then up := false;\n"
        "    if a.(i) > a.(i - 1) then down := false\n  done;\n"
        '  Printf.printf "%d\\n" (if !up || !down then 1 else 0)',
        "count_primes": "let is_prime x =\n"
        "  x >= 2 && (let rec go d = d * d > x || (x mod d <> 0 && go (d + 1)) in go 2)\n"
        'let () = Printf.printf "%d\\n" '
        "(Array.fold_left (fun c x -> if is_prime x then c + 1 else c) 0 a)",
        "fib": "let () =\n  let x = ref 0 and y = ref 1 in\n"
        "  for _ = 1 to a.(0) do let t = !x + !y in x := !y; y := t done;\n"
        '  Printf.printf "%d\\n" !x',
        "gcd": "let rec gcd x y = if y = 0 then x else gcd y (x mod y)\n"
        'let () = Printf.printf "%d\\n" (gcd a.(0) a.(1))',
    },
    "pascal": {
        "sum_list": "  s := 0; for i := 0 to n - 1 do s := s + a[i]; writeln(s);",
        "max_element": "  m := a[0]; for i := 0 to n - 1 do if a[i] > m then m := a[i]; writeln(m);",
        "count_evens": "  c := 0; for i := 0 to n - 1 do if a[i] mod 2 = 0 then inc(c); writeln(c);",
        "sum_squares": "  s := 0; for i := 0 to n - 1 do s := s + a[i] * a[i]; writeln(s);",
        "below_zero": "  s := 0; r := 0;\n"
        "  for i := 0 to n - 1 do begin s := s + a[i]; if s < 0 then r := 1; end;\n  writeln(r);",
        "is_palindrome": "  r := 1; for i := 0 to n - 1 do if a[i] <> a[n - 1 - i] then r := 0;\n"
        "  writeln(r);",
        "monotonic": "  up := true; down := true;\n  for i := 1 to n - 1 do begin\n"
        "    if a[i] < a[i - 1] then up := false;\n    if a[i] > a[i - 1] then down := false;\n"
        "  end;\n  if up or down then writeln(1) else writeln(0);",
        "count_primes": "  c := 0;\n  for i := 0 to n - 1 do begin\n    x := a[i]; p := x >= 2; d := 2;\n"
        "    while d * d <= x do begin if x mod d = 0 then p := false; inc(d); end;\n"
        "    if p then inc(c);\n  end;\n  writeln(c);",
        "fib": "  x := 0; y := 1; m := a[0];\n"
        "  while m > 0 do begin t := x + y; x := y; y := t; dec(m); end;\n  writeln(x);",
        "gcd": "  x := a[0]; y := a[1];\n"
        "  while y <> 0 do begin t := x mod y; x := y; y := t; end;\n  writeln(x);",
    },
    "fortran": {
        "sum_list": "  print '(I0)', sum(a)",
        "max_element": "  print '(I0)', maxval(a)",
        "count_evens": "  print '(I0)', count(mod(a, 2_8) == 0)",
        "sum_squares": "  print '(I0)', sum(a * a)",
        "below_zero": "  s = 0; r = 0\n  do i = 1, n\n    s = s + a(i)\n    if (s < 0) r = 1\n"
        "  end do\n  print '(I0)', r",
        "is_palindrome": "  r = 1\n  do i = 1, n\n    if (a(i) /= a(n + 1 - i)) r = 0\n  end do\n"
        "  print '(I0)', r",
        "monotonic": "  up = .true.; down = .true.\n  do i = 2, n\n"
        "    if (a(i) < a(i - 1)) up = .false.\n    if (a(i) > a(i - 1)) down = .false.\n"
        "  end do\n  if (up .or. down) then\n    print '(I0)', 1\n  else\n    print '(I0)', 0\n"
        "  end if",
        "count_primes": "  c = 0\n  do i = 1, n\n    x = a(i); p = x >= 2; d = 2\n"
        "    do while (d * d <= x)\n      if (mod(x, d) == 0) p = .false.\n      d = d + 1\n"
        "    end do\n    if (p) c = c + 1\n  end do\n  print '(I0)', c",
        "fib": "  x = 0; y = 1\n  do i = 1, int(a(1))\n    t = x + y; x = y; y = t\n  end do\n"
        "  print '(I0)', x",
        "gcd": "  x = a(1); y = a(2)\n  do while (y /= 0)\n    t = mod(x, y); x = y; y = t\n"
        "  end do\n  print '(I0)', x",
    },
    "racket": {
        "sum_list": "(displayln (apply + a))",
        "max_element": "(displayln (apply max a))",
        "count_evens": "(displayln (count even? a))",
        "sum_squares": "(displayln (for/sum ([x a]) (* x x)))",
        "below_zero": "(displayln (if (for/fold ([s 0] [neg #f] #:result neg) ([x a])\n"
        "                (values (+ s x) (or neg (< (+ s x) 0)))) 1 0))",
        "is_palindrome": "(displayln (if (equal? a (reverse a)) 1 0))",
        "monotonic": "(define d (for/list ([x a] [y (cdr a)]) (- y x)))\n"
        "(displayln (if (or (andmap (lambda (v) (>= v 0)) d) (andmap (lambda (v) (<= v 0)) d))"
        " 1 0))",
        "count_primes": "(define (prime? x)\n  (and (>= x 2)\n"
        "       (for/and ([k (in-range 2 (add1 (integer-sqrt x)))]) (not (zero? (remainder x k))))))\n"
        "(displayln (count prime? a))",
        "fib": "(displayln (for/fold ([x 0] [y 1] #:result x) ([i (in-range (car a))]) "
        "(values y (+ x y))))",
        "gcd": "(displayln (gcd (first a) (second a)))",
    },
    "sql": {
        "sum_list": "SELECT sum(v) FROM a;",
        "max_element": "SELECT max(v) FROM a;",
        "count_evens": "SELECT count(*) FROM a WHERE v % 2 = 0;",
        "sum_squares": "SELECT sum(v * v) FROM a;",
        "below_zero": "SELECT EXISTS (SELECT 1 FROM (SELECT sum(v) OVER (ORDER BY i) AS s FROM a) "
        "WHERE s < 0);",
        "is_palindrome": "SELECT NOT EXISTS (SELECT 1 FROM a x JOIN a y "
        "ON x.i + y.i = (SELECT count(*) + 1 FROM a) WHERE x.v <> y.v);",
        "monotonic": "SELECT NOT EXISTS (SELECT 1 FROM a x JOIN a y ON y.i = x.i + 1 WHERE y.v < x.v)\n"
        "    OR NOT EXISTS (SELECT 1 FROM a x JOIN a y ON y.i = x.i + 1 WHERE y.v > x.v);",
        "count_primes": "WITH RECURSIVE d(k) AS (SELECT 2 UNION ALL SELECT k + 1 FROM d WHERE k < 1000)\n"
        "SELECT count(*) FROM a WHERE v >= 2\n"
        "  AND NOT EXISTS (SELECT 1 FROM d WHERE k * k <= v AND v % k = 0);",
        "fib": "WITH RECURSIVE f(n, x, y) AS (SELECT 0, 0, 1 UNION ALL\n"
        "  SELECT n + 1, y, x + y FROM f WHERE n < (SELECT v FROM a WHERE i = 1))\n"
        "SELECT x FROM f WHERE n = max(0, (SELECT v FROM a WHERE i = 1));",
        "gcd": "WITH RECURSIVE g(x, y) AS (\n"
        "  SELECT (SELECT v FROM a WHERE i = 1), (SELECT v FROM a WHERE i = 2)\n"
        "  UNION ALL SELECT y, x % y FROM g WHERE y <> 0)\nSELECT x FROM g WHERE y = 0;",
    },
    "swift": {
        "sum_list": "print(a.reduce(0, +))",
        "max_element": "print(a.max()!)",
        "count_evens": "print(a.filter { $0 % 2 == 0 }.count)",
        "sum_squares": "print(a.reduce(0) { $0 + $1 * $1 })",
        "below_zero": "var s = 0\nvar r = 0\nfor x in a { s += x; if s < 0 { r = 1 } }\nprint(r)",
        "is_palindrome": "print(a == Array(a.reversed()) ? 1 : 0)",
        "monotonic": "let d = zip(a, a.dropFirst()).map { $1 - $0 }\n"
        "print(d.allSatisfy { $0 >= 0 } || d.allSatisfy { $0 <= 0 } ? 1 : 0)",
        "count_primes": "func isPrime(_ x: Int) -> Bool {\n  if x < 2 { return false }\n  var d = 2\n"
        "  while d * d <= x { if x % d == 0 { return false }; d += 1 }\n  return true\n}\n"
        "print(a.filter(isPrime).count)",
        "fib": "var x = 0\nvar y = 1\nfor _ in 0..<max(a[0], 0) { (x, y) = (y, x + y) }\nprint(x)",
        "gcd": "var x = a[0]\nvar y = a[1]\nwhile y != 0 { (x, y) = (y, x % y) }\nprint(x)",
    },
    "verilog": {
        "sum_list": '    s = 0; for (i = 0; i < n; i = i + 1) s = s + a[i]; $display("%0d", s);',
        "max_element": "    m = a[0]; for (i = 0; i < n; i = i + 1) if (a[i] > m) m = a[i];\n"
        '    $display("%0d", m);',
        "count_evens": "    c = 0; for (i = 0; i < n; i = i + 1) if (a[i] % 2 == 0) c = c + 1;\n"
        '    $display("%0d", c);',
        "sum_squares": "    s = 0; for (i = 0; i < n; i = i + 1) s = s + a[i] * a[i];\n"
        '    $display("%0d", s);',
        "below_zero": "    s = 0; r = 0;\n"
        "    for (i = 0; i < n; i = i + 1) begin s = s + a[i]; if (s < 0) r = 1; end\n"
        '    $display("%0d", r);',
        "is_palindrome": "    r = 1; for (i = 0; i < n; i = i + 1) if (a[i] != a[n - 1 - i]) r = 0;\n"
        '    $display("%0d", r);',
        "monotonic": "    up = 1; down = 1;\n    for (i = 1; i < n; i = i + 1) begin\n"
        "      if (a[i] < a[i - 1]) up = 0;\n      if (a[i] > a[i - 1]) down = 0;\n    end\n"
        '    $display("%0d", (up || down) ? 1 : 0);',
        "count_primes": "    c = 0;\n    for (i = 0; i < n; i = i + 1) begin\n"
        "      x = a[i]; p = x >= 2;\n"
        "      for (d = 2; d * d <= x; d = d + 1) if (x % d == 0) p = 0;\n"
        "      if (p) c = c + 1;\n    end\n"
        '    $display("%0d", c);',
        "fib": "    x = 0; y = 1;\n"
        "    for (i = 0; i < a[0]; i = i + 1) begin t = x + y; x = y; y = t; end\n"
        '    $display("%0d", x);',
        "gcd": "    x = a[0]; y = a[1];\n    while (y != 0) begin t = x % y; x = y; y = t; end\n"
        '    $display("%0d", x);',
    },
}

# ---- per language: programs that crash (RE), loop (TLE) and hoard memory (MLE) -------------
_JAVA_LIKE_MAIN = "object Main {{\n  def main(args: Array[String]): Unit = {{\n    {}\n  }}\n}}\n"
_CS_MAIN = "class P {{\n  static void Main() {{\n    {}\n  }}\n}}\n"

CRASH: dict[str, str] = {
    "typescript": 'const boom = (): never => { throw new Error("boom"); };\nboom();\n',
    "bash": 'set -u\necho "$undefined_variable"\n',
    "php": '<?php\nthrow new Exception("boom");\n',
    "ruby": 'raise "boom"\n',
    "lua": 'error("boom")\n',
    "perl": 'die "boom\\n";\n',
    "csharp": _CS_MAIN.format("int[] a = new int[1]; System.Console.WriteLine(a[5]);"),
    "r": 'stop("boom")\n',
    "scala": _JAVA_LIKE_MAIN.format('throw new RuntimeException("boom")'),
    "d": "void main() {\n  int[] a;\n  a[5] = 1;\n}\n",
    "haskell": "main :: IO ()\nmain = print (head ([] :: [Int]))\n",
    "ocaml": 'let () = failwith "boom"\n',
    "pascal": "program main;\nvar z: integer;\nbegin\n  z := 0;\n  writeln(10 div z);\nend.\n",
    "fortran": "program main\n  error stop 3\nend program main\n",
    "racket": '#lang racket\n(error "boom")\n',
    "sql": "SELECT * FROM no_such_table;\n",
    "swift": "let a: [Int] = []\nprint(a[5])\n",
    "verilog": 'module main;\n  initial begin\n    $fatal(1, "boom");\n  end\nendmodule\n',
}

LOOP: dict[str, str] = {
    "typescript": "let i: number = 0;\nwhile (true) { i++; }\n",
    "bash": "while :; do :; done\n",
    "php": "<?php\n$i = 0;\nwhile (true) { $i++; }\n",
    "ruby": "i = 0\nloop { i += 1 }\n",
    "lua": "local i = 0\nwhile true do i = i + 1 end\n",
    "perl": "my $i = 0;\n$i++ while 1;\n",
    "csharp": _CS_MAIN.format("long i = 0; while (true) { i++; }"),
    "r": "i <- 0\nrepeat { i <- i + 1 }\n",
    "scala": _JAVA_LIKE_MAIN.format("var i = 0L; while (true) { i += 1 }"),
    "d": "import std.stdio;\nvoid main() {\n  for (;;) {}\n}\n",
    "haskell": "main :: IO ()\nmain = print (spin 0)\n  where\n    spin :: Int -> Int\n"
    "    spin n = if n < 0 then n else spin (n + 1)\n",
    "ocaml": "let () = while true do () done\n",
    "pascal": "program main;\nbegin\n  while true do ;\nend.\n",
    "fortran": "program main\n  integer(8) :: i\n  i = 0\n  do\n    i = i + 1\n  end do\n"
    "end program main\n",
    "racket": "#lang racket\n(let loop () (loop))\n",
    "sql": "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r;\n",
    "swift": "var i = 0\nwhile true { i &+= 1 }\n",
    "verilog": "module main;\n  integer i;\n  initial begin\n    i = 0;\n    forever i = i + 1;\n"
    "  end\nendmodule\n",
}

HOG: dict[str, str] = {
    "typescript": "const hoard: number[][] = [];\nfor (;;) hoard.push(new Array(1e6).fill(1));\n",
    "bash": "s=x\nwhile :; do s=$s$s; done\n",
    "php": '<?php\n$a = str_repeat("x", 1 << 30);\necho strlen($a), "\\n";\n',
    "ruby": 's = "x" * (1 << 30)\nputs s.size\n',
    "lua": 'local s = string.rep("x", 1 << 30)\nprint(#s)\n',
    "perl": 'my $s = "x" x (1 << 30);\nprint length($s), "\\n";\n',
    "csharp": _CS_MAIN.format(
        "var a = new byte[1 << 30]; for (int i = 0; i < a.Length; i += 4096) a[i] = 1; "
        "System.Console.WriteLine(a[4096]);"
    ),
    "r": 'x <- numeric(2e8)\nx[] <- 1\ncat(sum(x), "\\n")\n',
    "scala": _JAVA_LIKE_MAIN.format("val a = Array.fill(200000000)(1L); println(a.sum)"),
    "d": "import std.stdio;\nvoid main() {\n  auto a = new ubyte[1 << 30];\n  a[] = 1;\n"
    "  writeln(a[$ - 1]);\n}\n",
    "haskell": "main :: IO ()\nmain = do\n  let xs = [1 .. 30000000] :: [Int]\n"
    "  print (length xs + sum xs)\n",
    "ocaml": "let () =\n  let a = Array.make 200_000_000 1 in\n  print_int a.(199_999_999)\n",
    "pascal": "{$mode objfpc}\nprogram main;\nvar a: array of Int64; i: Int64;\nbegin\n"
    "  SetLength(a, 200000000);\n  for i := 0 to High(a) do a[i] := i;\n  writeln(a[High(a)]);\n"
    "end.\n",
    "fortran": "program main\n  integer(8), allocatable :: a(:)\n  allocate(a(200000000))\n"
    "  a = 1\n  print *, sum(a)\nend program main\n",
    "racket": "#lang racket\n(define v (make-vector 200000000 1))\n(displayln (vector-length v))\n",
    "sql": "SELECT length(randomblob(1000000000));\n",
    "swift": "let a = [Int](repeating: 1, count: 200_000_000)\nprint(a.reduce(0, +))\n",
    "verilog": "module main;\n  reg [31:0] m [0:99999999];\n  integer i;\n  initial begin\n"
    "    for (i = 0; i < 100000000; i = i + 1) m[i] = i;\n"
    '    $display("%0d", m[5]);\n    $finish;\n  end\nendmodule\n',
}

LANGUAGES = tuple(SOLUTIONS)
