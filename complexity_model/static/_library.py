"""Library calls whose cost is known, per language, and the names that do input or output.

Costs are per call, in terms of the size of the collection the call works on. Anything not
listed costs O(1).
"""

from __future__ import annotations

from complexity_model.static._cost import LINEAR, LOG, N_LOG_N, Cost

# Loops whose bound is a literal up to this are constant-size (the alphabet, 4 directions, 60
# bits, 100 bisection steps); larger literals are the problem's size limit (arrays sized 1e5).
CONSTANT_LOOP_LIMIT = 1000

PYTHON_FUNCTIONS: dict[str, Cost] = {
    "sorted": N_LOG_N,
    "heappush": LOG,
    "heappop": LOG,
    "heappushpop": LOG,
    "heapreplace": LOG,
    "heapify": LINEAR,
    "nlargest": LINEAR,
    "nsmallest": LINEAR,
    "bisect": LOG,
    "bisect_left": LOG,
    "bisect_right": LOG,
    "insort": LINEAR,
    "insort_left": LINEAR,
    "insort_right": LINEAR,
    "factorial": LINEAR,
}

# Builtins that walk their (collection) argument once.
PYTHON_CONSUMERS = frozenset(
    {
        "sum",
        "min",
        "max",
        "list",
        "set",
        "tuple",
        "frozenset",
        "any",
        "all",
        "Counter",
        "dict",
        "deque",
        "reversed",
        "accumulate",
        "join",
        "fsum",
        "prod",
        "bytes",
        "bytearray",
    }
)

PYTHON_METHODS: dict[str, Cost] = {
    "sort": N_LOG_N,
    "count": LINEAR,
    "index": LINEAR,
    "find": LINEAR,
    "rfind": LINEAR,
    "replace": LINEAR,
    "copy": LINEAR,
    "reverse": LINEAR,
    "remove": LINEAR,
    "insert": LINEAR,
    "extend": LINEAR,
    "startswith": LINEAR,
    "endswith": LINEAR,
    "lower": LINEAR,
    "upper": LINEAR,
    "most_common": N_LOG_N,
}

PYTHON_READS = frozenset({"input", "raw_input", "readline", "readlines", "read"})
PYTHON_WRITES = frozenset({"print", "write", "writelines", "stdout"})
PYTHON_FILLS = frozenset(
    {"append", "appendleft", "add", "extend", "insert", "update", "setdefault", "push"}
)
PYTHON_POPS = frozenset({"pop", "popleft", "heappop", "popitem", "get_nowait", "popright"})
PYTHON_MEMO_DECORATORS = frozenset({"lru_cache", "cache", "memoize", "memoized", "memo"})
PYTHON_EXPONENTIAL_ITERATORS = frozenset(
    {"permutations", "combinations", "product", "combinations_with_replacement"}
)

JAVA_STATIC_CALLS: dict[str, Cost] = {
    "Arrays.sort": N_LOG_N,
    "Arrays.parallelSort": N_LOG_N,
    "Collections.sort": N_LOG_N,
    "Arrays.binarySearch": LOG,
    "Collections.binarySearch": LOG,
    "Arrays.fill": LINEAR,
    "Arrays.copyOf": LINEAR,
    "Arrays.copyOfRange": LINEAR,
    "Arrays.asList": LINEAR,
    "Arrays.equals": LINEAR,
    "Arrays.stream": LINEAR,
    "System.arraycopy": LINEAR,
    "Collections.max": LINEAR,
    "Collections.min": LINEAR,
    "Collections.reverse": LINEAR,
    "Collections.frequency": LINEAR,
}

# Methods on ordered containers (TreeMap, TreeSet, PriorityQueue) cost log n.
JAVA_TREE_TYPES = frozenset(
    {
        "TreeMap",
        "TreeSet",
        "PriorityQueue",
        "SortedMap",
        "SortedSet",
        "NavigableMap",
        "NavigableSet",
    }
)
JAVA_TREE_METHODS = frozenset(
    {
        "add",
        "offer",
        "poll",
        "remove",
        "put",
        "get",
        "contains",
        "containsKey",
        "floor",
        "ceiling",
        "higher",
        "lower",
        "floorKey",
        "ceilingKey",
        "higherKey",
        "lowerKey",
        "floorEntry",
        "ceilingEntry",
        "higherEntry",
        "lowerEntry",
        "pollFirst",
        "pollLast",
        "first",
        "last",
        "firstKey",
        "lastKey",
        "merge",
        "getOrDefault",
        "pollFirstEntry",
        "pollLastEntry",
    }
)
JAVA_LINEAR_METHODS = frozenset(
    {
        "indexOf",
        "lastIndexOf",
        "substring",
        "toCharArray",
        "split",
        "replace",
        "replaceAll",
        "reverse",
        "toString",
        "equals",
        "compareTo",
        "contains",
        "startsWith",
        "endsWith",
        "clone",
        "containsValue",
        "toArray",
        "addAll",
        "removeAll",
        "retainAll",
        "fill",
        "repeat",
        "concat",
        "matches",
        "trim",
        "toLowerCase",
        "toUpperCase",
    }
)
# contains/remove are linear on lists and strings but constant on hash containers.
JAVA_HASH_TYPES = frozenset(
    {"HashMap", "HashSet", "LinkedHashMap", "LinkedHashSet", "Map", "Set", "BitSet"}
)
JAVA_READ_METHODS = frozenset(
    {
        "next",
        "nextInt",
        "nextLong",
        "nextDouble",
        "nextLine",
        "nextToken",
        "readLine",
        "read",
        "readInt",
        "readLong",
        "readDouble",
        "readString",
        "nextString",
        "ni",
        "nl",
        "ns",
        "nd",
        "nextChar",
        "readChar",
        "nextIntArray",
        "nextBigInteger",
        "hasNext",
        "hasNextInt",
        "scanInt",
        "scanLong",
        "nextFloat",
        "nextByte",
        "nextShort",
    }
)
JAVA_WRITE_METHODS = frozenset(
    {"println", "print", "printf", "write", "format", "printLine", "flush", "append"}
)
JAVA_FILL_METHODS = frozenset(
    {
        "add",
        "put",
        "offer",
        "push",
        "addLast",
        "addFirst",
        "offerLast",
        "offerFirst",
        "set",
        "merge",
        "putIfAbsent",
        "addAll",
        "push_back",
        "emplace_back",
        "insert",
        "emplace",
    }
)
JAVA_POP_METHODS = frozenset(
    {
        "poll",
        "pop",
        "remove",
        "removeFirst",
        "removeLast",
        "pollFirst",
        "pollLast",
        "pop_front",
        "pop_back",
        "erase",
    }
)

CPP_FUNCTIONS: dict[str, Cost] = {
    "sort": N_LOG_N,
    "stable_sort": N_LOG_N,
    "partial_sort": N_LOG_N,
    "lower_bound": LOG,
    "upper_bound": LOG,
    "binary_search": LOG,
    "equal_range": LOG,
    "memset": LINEAR,
    "fill": LINEAR,
    "fill_n": LINEAR,
    "reverse": LINEAR,
    "accumulate": LINEAR,
    "count": LINEAR,
    "find": LINEAR,
    "max_element": LINEAR,
    "min_element": LINEAR,
    "unique": LINEAR,
    "iota": LINEAR,
    "copy": LINEAR,
    "nth_element": LINEAR,
    "make_heap": LINEAR,
    "push_heap": LOG,
    "pop_heap": LOG,
    "__gcd": LOG,
    "gcd": LOG,
}
CPP_TREE_TYPES = frozenset({"set", "map", "multiset", "multimap", "priority_queue"})
CPP_TREE_METHODS = frozenset(
    {"insert", "erase", "find", "count", "lower_bound", "upper_bound", "push", "pop", "emplace"}
)
CPP_READS = frozenset({"scanf", "cin", "getline", "getchar", "gets", "read", "fread"})
CPP_WRITES = frozenset({"printf", "cout", "puts", "putchar", "write", "fwrite"})

# Modules whose functions are modelled above, cost O(1), or do input and output: a call into
# any other module (numpy, a module of the submitter's own) runs code the analysis cannot see.
PYTHON_KNOWN_MODULES = frozenset(
    {
        "__future__",
        "__pypy__",
        "abc",
        "array",
        "ast",
        "atexit",
        "bisect",
        "cmath",
        "collections",
        "copy",
        "dataclasses",
        "datetime",
        "decimal",
        "enum",
        "fractions",
        "functools",
        "heapq",
        "io",
        "itertools",
        "json",
        "math",
        "numbers",
        "operator",
        "os",
        "queue",
        "random",
        "re",
        "statistics",
        "string",
        "sys",
        "threading",
        "time",
        "typing",
        "typing_extensions",
        "unicodedata",
    }
)
# Modules that exist to run native or outside code: importing one is enough to give up.
PYTHON_NATIVE_MODULES = frozenset(
    {"ctypes", "_ctypes", "cffi", "subprocess", "importlib", "runpy", "pyximport"}
)
# Builtins that run code given as data, or look a function up by a computed name.
PYTHON_DYNAMIC_CODE = frozenset({"exec", "eval", "compile", "execfile"})
PYTHON_NAMESPACE_LOOKUPS = frozenset({"globals", "locals", "vars"})
PYTHON_COMPUTED_ATTRIBUTES = frozenset({"getattr", "setattr", "delattr"})
# ``os`` functions that start other programs (plus the exec* and spawn* families).
PYTHON_OS_PROCESSES = frozenset(
    {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "startfile"}
)

# Java calls that run code the source does not show: reflection, scripting, other programs,
# native libraries. Names the program defines itself are its own functions, not these.
JAVA_OPAQUE_CALLS = frozenset(
    {
        "forName",
        "getMethod",
        "getDeclaredMethod",
        "getMethods",
        "getDeclaredMethods",
        "invoke",
        "invokeExact",
        "invokeWithArguments",
        "newInstance",
        "findVirtual",
        "findStatic",
        "defineClass",
        "loadLibrary",
        "System.load",
        "getEngineByName",
        "getEngineByExtension",
        "eval",
        "exec",
    }
)
JAVA_OPAQUE_TYPES = frozenset({"ProcessBuilder", "ScriptEngineManager", "URLClassLoader"})
CPP_OPAQUE_CALLS = frozenset(
    {
        "system",
        "popen",
        "_popen",
        "dlopen",
        "dlsym",
        "execl",
        "execlp",
        "execle",
        "execv",
        "execvp",
        "execvpe",
        "execve",
        "fork",
        "vfork",
        "posix_spawn",
        "posix_spawnp",
        "syscall",
        "mprotect",
        "LoadLibrary",
        "LoadLibraryA",
        "LoadLibraryW",
        "GetProcAddress",
        "CreateProcess",
        "CreateProcessA",
        "WinExec",
        "ShellExecute",
        "ShellExecuteA",
    }
)

# Methods that collections, sorting and the language call without the program naming them:
# Java's comparison and hashing methods, C++ operators (names starting with "operator").
JAVA_IMPLICIT_METHODS = frozenset({"compareTo", "compare", "equals", "hashCode"})
