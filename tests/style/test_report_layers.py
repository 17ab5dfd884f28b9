#!/usr/bin/env python3
"""report/ reads downward only, one header per .cpp (suite style).

Reads the #include "..." lines of report/**/*.hpp and *.cpp (resolved as the compiler does: beside
the including file first, then from report/, the library's include directory) and checks:

  (a) no file of report/ but report/report.cpp includes report.hpp, the library's public face
      (app/ and tests/ may);
  (b) the module graph is acyclic: a module is a same-stem .hpp/.cpp pair at report/'s top level,
      or a whole subdirectory (charts/, sections/); a cycle is printed with the includes that
      make it;
  (c) every .cpp has a same-stem .hpp beside it and every .hpp a same-stem .cpp, but for the
      headers of TYPE_ONLY and GENERATED (report/embed_assets.py writes the .cpp of assets.hpp);
  (d) a header declares the functions of its own .cpp only: every function it declares at
      namespace scope is defined at namespace scope in its same-stem .cpp, and a type-only header
      declares none.

Usage: test_report_layers.py [SOURCE_ROOT] (default: two folders above this file).
"""

import re
import sys
from pathlib import Path

# Headers with no .cpp of their own, each for a reason; every entry must exist.
TYPE_ONLY = {
    "options.hpp",  # Prices and RenderOptions: what the caller adds to the results
    "charts/plot.hpp",  # the structs every chart shape builds on
}
GENERATED = {
    "assets.hpp",  # its .cpp is report_assets.cpp, written by embed_assets.py at build time
}
PUBLIC_FACE = "report.hpp"
PUBLIC_FACE_SOURCE = "report.cpp"

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def report_files(report):
    return sorted(p for p in report.rglob("*") if p.suffix in (".hpp", ".cpp") and p.is_file())


def includes(path, report):
    """(line number, text as written, resolved path relative to report/ or None) per include."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = INCLUDE.match(line)
        if not match:
            continue
        written = match.group(1)
        resolved = None
        for base in (path.parent, report):
            candidate = (base / written).resolve()
            if candidate.is_file():
                try:
                    resolved = candidate.relative_to(report.resolve()).as_posix()
                except ValueError:  # outside report/ (core/, analysis/ through other folders)
                    resolved = None
                break
        found.append((number, written, resolved))
    return found


def module_of(relative):
    parts = relative.split("/")
    return parts[0] + "/" if len(parts) > 1 else Path(relative).stem


def cycles(graph):
    """One shortest cycle through each strongly connected part of `graph` (module -> {module:
    reason}) that has more than one module, as lists of modules."""
    index, low, on_stack, stack, parts = {}, {}, set(), [], []

    def connect(node):  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, {})):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            part = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                part.add(top)
                if top == node:
                    break
            if len(part) > 1:
                parts.append(part)

    for node in sorted(set(graph) | {m for targets in graph.values() for m in targets}):
        if node not in index:
            connect(node)
    found = []
    for part in parts:
        start = min(part)
        previous, queue = {start: None}, [start]
        while queue:  # breadth first, inside the part, back to start
            node = queue.pop(0)
            if start in graph.get(node, {}) and node in previous:
                path = [node]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                found.append(list(reversed(path)) + [start])
                break
            for nxt in sorted(graph.get(node, {})):
                if nxt in part and nxt not in previous:
                    previous[nxt] = node
                    queue.append(nxt)
    return sorted(found)


def code_only(text):
    """The text without comments, string and character literals, and preprocessor lines."""
    text = re.sub(r'R"([^(\s]*)\((?:.|\n)*?\)\1"', '""', text)
    text = re.sub(
        r'//[^\n]*|/\*(?:.|\n)*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
        lambda m: " " if m.group(0).startswith("/") else '""',
        text,
    )
    return "\n".join("" if line.lstrip().startswith("#") else line for line in text.splitlines())


NOT_A_FUNCTION = re.compile(
    r"^(?:template\s*<[^>]*>\s*)?(?:namespace|struct|class|enum|union|using|typedef|static_assert)\b"
)
NAME_BEFORE_PAREN = re.compile(r"(operator\s*[^\s(]+|[A-Za-z_]\w*)\s*$")


def function_name(statement):
    """The name of the function `statement` declares or defines at namespace scope, or None."""
    statement = " ".join(statement.split())
    if NOT_A_FUNCTION.match(statement) or "(" not in statement:
        return None
    head = statement[: statement.index("(")]
    if "=" in head:
        return None  # a variable with an initializer
    match = NAME_BEFORE_PAREN.search(head)
    return match.group(1) if match else None


def namespace_scope_functions(path):
    """(declared, defined): names of the functions declared (no body) and defined (with a body) at
    namespace scope. A heuristic reader of clang-formatted code, enough for report/."""
    text = code_only(path.read_text(encoding="utf-8"))
    declared, defined = set(), set()
    statement = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "{":
            if re.match(r"^\s*(?:inline\s+)?namespace\b", statement):
                statement = ""  # namespace scope goes on inside
                i += 1
                continue
            depth, j = 1, i + 1
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            name = function_name(statement)
            if name and not statement.rstrip().endswith("="):
                defined.add(name)
                statement = ""
            else:
                statement += " {} "  # a struct, enum or initializer: the statement ends at ';'
            i = j
            continue
        if c == "}":  # a namespace closes
            statement = ""
        elif c == ";":
            name = function_name(statement)
            if name and "{}" not in statement:
                declared.add(name)
            statement = ""
        else:
            statement += c
        i += 1
    return declared, defined


def main():
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
    report = root / "report"
    files = report_files(report)
    relative = {p: p.relative_to(report).as_posix() for p in files}
    problems = []

    # (a) the public face is included by report.cpp only.
    offenders = []
    graph = {}  # module -> {module it includes: the first include that makes the edge}
    for path in files:
        for number, written, resolved in includes(path, report):
            if resolved is None:
                continue
            if resolved == PUBLIC_FACE and relative[path] != PUBLIC_FACE_SOURCE:
                offenders.append(f'  report/{relative[path]}:{number}: #include "{written}"')
            source, target = module_of(relative[path]), module_of(resolved)
            if source != target:
                graph.setdefault(source, {}).setdefault(
                    target, f'report/{relative[path]}:{number}: #include "{written}"'
                )
    if offenders:
        problems.append(
            f"(a) only report/{PUBLIC_FACE_SOURCE} may include {PUBLIC_FACE} inside report/ "
            "(include the header that declares what is used):\n" + "\n".join(offenders)
        )

    # (b) modules include downward only.
    for cycle in cycles(graph):
        steps = [f"  {a} -> {b}   ({graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
        problems.append(
            "(b) the modules of report/ include each other in a cycle "
            f"({' -> '.join(cycle)}):\n" + "\n".join(steps)
        )

    # (c) one header per .cpp, one .cpp per header.
    present = set(relative.values())
    stale = sorted((TYPE_ONLY | GENERATED) - present)
    if stale:
        problems.append(
            "(c) the allow-list names headers that are gone (remove them from it):\n"
            + "\n".join(f"  report/{name}" for name in stale)
        )
    unpaired = []
    for name in sorted(present):
        stem, suffix = name.rsplit(".", 1)
        other = stem + (".hpp" if suffix == "cpp" else ".cpp")
        if other in present or name in TYPE_ONLY or name in GENERATED:
            continue
        unpaired.append(f"  report/{name} has no report/{other}")
    if unpaired:
        problems.append(
            "(c) every .cpp of report/ has a same-stem .hpp beside it and every .hpp a .cpp "
            "(or is listed as type-only in tests/style/test_report_layers.py):\n"
            + "\n".join(unpaired)
        )

    # (d) a header declares its own .cpp's functions, and a type-only header none.
    misplaced = []
    for name in sorted(n for n in present if n.endswith(".hpp") and n not in GENERATED):
        declared, inline = namespace_scope_functions(report / name)
        declared -= inline  # a template declared, then defined below
        source = name[: -len(".hpp")] + ".cpp"
        if name in TYPE_ONLY:
            for function in sorted(declared):
                misplaced.append(f"  report/{name} (type-only) declares {function}()")
        elif source in present:
            _, defined = namespace_scope_functions(report / source)
            for function in sorted(declared - defined):
                misplaced.append(
                    f"  report/{name} declares {function}(), which report/{source} does not define"
                )
    if misplaced:
        problems.append(
            "(d) a header declares the functions of its own .cpp only:\n" + "\n".join(misplaced)
        )

    if problems:
        print("\n\n".join(problems))
        return 1
    print(
        f"report/: {len(files)} files, {len(graph)} modules with includes, no cycle; "
        f"{PUBLIC_FACE} included by {PUBLIC_FACE_SOURCE} only; every header paired with its .cpp"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
