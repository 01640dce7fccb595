"""The shape of tapegen's code, in the figures its architecture is held to.

Prints, for the packages ``tracer``, ``ir`` and ``codegen``:

- module sizes (lines), largest first, and how many exceed the limit;
- function lengths (lines from ``def`` to the end of its body): the longest,
  how many exceed the limit, and the median;
- import circles between modules of one package (imports deferred into a
  function count: they hide a circle, they do not remove it; ``from package import
  x`` reads the package's namespace, so it counts as importing the package);
- the floors: ``codegen`` modules that import ``tracer`` (the compiler imports ``ir``
  alone), and the folders with the most modules at their top level;
- what the code generator's design rules out: ``codegen`` modules that rewrite text
  (import ``re`` or call ``str.replace``), string tables of spellings, primitives
  looked up by name outside the JSON reader and the registry, and sums of a loop's
  input-group counts (``count_c + count_x``) outside ``Body``;
- the calls one gradient makes: recording ``np.sum(np.sin(x))`` and taking its
  gradient, counted in tapegen's own functions, with how many functions and
  files they pass through.

    python docs/code_shape.py
"""

import ast
import os
import statistics
import sys

import networkx as nx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("tracer", "ir", "codegen")
MODULE_LIMIT = 450
FUNCTION_LIMIT = 60
MEDIAN_LIMIT = 8
FOLDER_LIMIT = 20
SPELLING_TABLES = ("STANDARD_NAMES", "SPECIAL_CALLS", "CHECK_REWRITES", "HELPERS")
NAME_LOOKUPS_ALLOWED = ("ir.primitive", "ir.json.")
"""Where a primitive is found by its name because a name is all there is: the registry
and the JSON reader."""
GROUP_COUNTS = ("count_c", "count_x", "n_carries", "n_xs")


def modules():
    """``{dotted name: path}`` of every module of the packages."""
    found = {}
    for package in PACKAGES:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    dotted = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    found[dotted.removesuffix(".__init__")] = path
    return found


def module_sizes():
    return {name: sum(1 for _ in open(path)) for name, path in modules().items()}


def function_lengths():
    """``{"module:function": lines}`` for every function and method."""
    lengths = {}
    for name, path in modules().items():
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lengths[f"{name}:{node.name}:{node.lineno}"] = node.end_lineno - node.lineno + 1
    return lengths


def import_graph():
    """Imports between modules of the same package, as a directed graph: every import,
    at module level or deferred into a function (a deferred import hides a circle, it
    does not remove it)."""
    found = modules()
    graph = nx.DiGraph()
    for name, path in found.items():
        graph.add_node(name)
        package = name.split(".")[0]
        is_package = path.endswith("__init__.py")
        for node in ast.walk(ast.parse(open(path).read())):
            for target in _imported(node, is_package, name, found):
                if target.split(".")[0] == package and target != name:
                    graph.add_edge(name, target)
    return graph


def _imported(node, is_package, name, found):
    """The modules an import statement loads: ``from ir import passes`` is ``ir.optimize.passes``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in found]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        parts = name.split(".") if is_package else name.split(".")[:-1]
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    targets = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        targets.append(submodule if submodule in found else base)
    targets.append(base)  # ``from package import x`` reads the package's namespace
    return [t for t in targets if t in found]


def import_circles():
    """The strongly connected groups of more than one module."""
    return [sorted(group) for group in nx.strongly_connected_components(import_graph())
            if len(group) > 1]


def trees():
    """``{dotted name: parsed module}``."""
    return {name: ast.parse(open(path).read()) for name, path in modules().items()}


def folder_sizes():
    """``{folder: modules at its top level}``."""
    counts = {}
    for path in modules().values():
        folder = os.path.relpath(os.path.dirname(path), ROOT)
        counts[folder] = counts.get(folder, 0) + 1
    return counts


def importing(package, other, parsed):
    """Modules of ``package`` that import ``other``."""
    def imports(tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                yield from (alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                yield node.module
    return sorted(name for name, tree in parsed.items() if name.split(".")[0] == package
                  and any(i.split(".")[0] == other for i in imports(tree)))


def text_rewriting(parsed):
    """``codegen`` modules that import ``re`` or call ``.replace`` on strings."""
    found = []
    for name, tree in parsed.items():
        if not name.startswith("codegen"):
            continue
        for node in ast.walk(tree):
            regex = isinstance(node, ast.Import) and any(a.name == "re" for a in node.names)
            replace = (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                       and node.func.attr == "replace" and len(node.args) == 2
                       and all(isinstance(a, (ast.Constant, ast.JoinedStr)) for a in node.args))
            if regex or replace:
                found.append(name)
                break
    return found


def spelling_tables(parsed):
    """Module-level tables of spellings as source text, by name."""
    return sorted(f"{name}.{target.id}" for name, tree in parsed.items() for node in tree.body
                  if isinstance(node, (ast.Assign, ast.AnnAssign))
                  for target in getattr(node, "targets", [getattr(node, "target", None)])
                  if isinstance(target, ast.Name) and target.id in SPELLING_TABLES)


def name_lookups(parsed):
    """Modules that find a primitive by its name (``PRIMITIVES[...]``, ``PRIMITIVES.get``,
    ``_prim("...")``) outside the registry and the JSON reader."""
    def looks_up(node):
        if isinstance(node, ast.Subscript):
            return isinstance(node.value, ast.Name) and node.value.id == "PRIMITIVES"
        if isinstance(node, ast.Call):
            func = node.func
            return ((isinstance(func, ast.Name) and func.id == "_prim")
                    or (isinstance(func, ast.Attribute) and func.attr == "get"
                        and isinstance(func.value, ast.Name) and func.value.id == "PRIMITIVES"))
        return False
    return sorted(name for name, tree in parsed.items()
                  if not name.startswith(NAME_LOOKUPS_ALLOWED)
                  and any(looks_up(node) for node in ast.walk(tree)))


def position_sums(parsed):
    """``(module, line)`` of each sum with a count of a loop's input group as an operand
    (``count_c + count_x``, ``len(body.carries) + k``, ``body.carries + body.xs`` in an
    index), outside the class ``Body``."""
    def is_count(node, in_index):
        if isinstance(node, ast.Name):
            return node.id in GROUP_COUNTS
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "len":
            return bool(node.args) and getattr(node.args[0], "attr", None) in ("carries", "xs")
        return in_index and isinstance(node, ast.Attribute) and node.attr in ("carries", "xs")

    def sums(node, in_index):
        if isinstance(node, ast.ClassDef) and node.name == "Body":
            return
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
                and (is_count(node.left, in_index) or is_count(node.right, in_index))):
            yield node.lineno
        if isinstance(node, ast.Subscript):
            yield from sums(node.value, in_index)
            yield from sums(node.slice, True)
            return
        for child in ast.iter_child_nodes(node):
            yield from sums(child, in_index)
    return sorted({(name, line) for name, tree in parsed.items() for line in sums(tree, False)})


def gradient_calls():
    """``(calls, functions, files)`` in tapegen's code for recording and differentiating
    ``np.sum(np.sin(x))``."""
    sys.path.insert(0, ROOT)
    import numpy as np
    import tracer

    x = tracer.constant(np.linspace(0.1, 1.0, 5))
    own = tuple(os.path.join(ROOT, package) + os.sep for package in PACKAGES)
    calls, functions = 0, set()

    def profile(frame, event, arg):
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.startswith(own):
            calls += 1
            functions.add((frame.f_code.co_filename, frame.f_code.co_name,
                           frame.f_code.co_firstlineno))

    def one_gradient():
        with tracer.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(np.sin(x))
        return tape.gradient(y, x)

    one_gradient()  # imports and caches settle first
    sys.setprofile(profile)
    try:
        one_gradient()
    finally:
        sys.setprofile(None)
    return calls, len(functions), len({f for f, _, _ in functions})


def main():
    sizes = module_sizes()
    largest = sorted(sizes.items(), key=lambda item: -item[1])
    over = [f"{name} ({lines})" for name, lines in largest if lines > MODULE_LIMIT]
    print(f"modules: {len(sizes)}; over {MODULE_LIMIT} lines: {len(over)}")
    for name, lines in largest[:8]:
        print(f"  {lines:5} {name}")
    lengths = function_lengths()
    longest = sorted(lengths.items(), key=lambda item: -item[1])
    median = statistics.median(lengths.values())
    print(f"functions: {len(lengths)}; median {median:g} lines (limit {MEDIAN_LIMIT}); "
          f"over {FUNCTION_LIMIT} lines: {sum(1 for n in lengths.values() if n > FUNCTION_LIMIT)}")
    for name, lines in longest[:8]:
        print(f"  {lines:5} {name}")
    circles = import_circles()
    print(f"import circles inside a package: {len(circles)}")
    for group in circles:
        print("  " + " <-> ".join(group))
    parsed = trees()
    folders = sorted(folder_sizes().items(), key=lambda item: -item[1])
    print(f"largest folder: {folders[0][1]} modules at the top level of {folders[0][0]} "
          f"(limit {FOLDER_LIMIT}); over: {sum(1 for _, n in folders if n > FOLDER_LIMIT)}")
    print(f"codegen modules importing tracer: {len(importing('codegen', 'tracer', parsed))}")
    for label, found in [("codegen modules rewriting text (re, str.replace)",
                          text_rewriting(parsed)),
                         ("string tables of spellings", spelling_tables(parsed)),
                         ("modules looking a primitive up by name", name_lookups(parsed))]:
        print(f"{label}: {len(found)}" + "".join(f"\n  {item}" for item in found))
    sums = position_sums(parsed)
    print(f"sums of loop input-group counts outside Body: {len(sums)} in "
          f"{len({m for m, _ in sums})} files")
    calls, functions, files = gradient_calls()
    print(f"one gradient of np.sum(np.sin(x)): {calls} calls through {functions} functions "
          f"in {files} files")


if __name__ == "__main__":
    main()
