"""The shape of tapegen's code, in the figures its architecture is held to.

Prints, for the packages ``tracer``, ``ir`` and ``codegen``:

- module sizes (lines), largest first, and how many exceed the limit;
- function lengths (lines from ``def`` to the end of its body): the longest,
  how many exceed the limit, and the median;
- import circles between modules of one package (imports deferred into a
  function count: they hide a circle, they do not remove it);
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
    """The modules an import statement loads: ``from ir import passes`` is ``ir.passes``."""
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
    return [t for t in targets if t in found]


def import_circles():
    """The strongly connected groups of more than one module."""
    return [sorted(group) for group in nx.strongly_connected_components(import_graph())
            if len(group) > 1]


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
    calls, functions, files = gradient_calls()
    print(f"one gradient of np.sum(np.sin(x)): {calls} calls through {functions} functions "
          f"in {files} files")


if __name__ == "__main__":
    main()
