"""The code generator works from graphs alone: only the command line, which traces a
user's function, imports ``tracer``.

Read from the source, so an import deferred into a function counts as well.
"""

import ast
import pathlib

import codegen

PACKAGE = pathlib.Path(codegen.__file__).parent


def _imports(path):
    """The top-level packages and the ``codegen`` modules one file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            if node.module == "codegen":
                found |= {f"codegen.{alias.name}" for alias in node.names}
    return found


def _reached_from(name, imports):
    """The ``codegen`` modules that importing ``name`` loads, ``name`` included."""
    reached, waiting = set(), [name]
    while waiting:
        module = waiting.pop()
        if module in reached or module not in imports:
            continue
        reached.add(module)
        waiting += [m for m in imports[module] if m.startswith("codegen")]
    return reached


def test_the_code_generator_does_not_import_tracer():
    imports = {"codegen" if path.stem == "__init__" else f"codegen.{path.stem}": _imports(path)
               for path in PACKAGE.glob("*.py")}
    generator = _reached_from("codegen", imports)
    assert "codegen.module" in generator and "codegen.cli" not in generator
    importing_tracer = sorted(m for m in generator
                              if any(i.split(".")[0] == "tracer" for i in imports[m]))
    assert importing_tracer == []
