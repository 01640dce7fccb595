"""The floors of the packages: ``ir`` imports neither ``codegen`` nor ``tracer``, and
``codegen`` is a compiler from graphs to source that imports ``ir`` alone: the command
line, which traces a user's function, lives in ``tracer``.

Read from the source, so an import deferred into a function counts as well.
"""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = {"ir": {"codegen", "tracer"}, "codegen": {"tracer"}}


def _imported_packages(path):
    """The top-level packages one file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_package_imports_nothing_from_the_floors_above_it(package):
    crossing = sorted(str(path.relative_to(ROOT))
                      for path in (ROOT / package).rglob("*.py")
                      if _imported_packages(path) & FORBIDDEN[package])
    assert crossing == []


def test_the_command_line_lives_in_the_front_door():
    from tracer.cli import main

    assert callable(main.main)
    assert not (ROOT / "codegen" / "cli.py").exists()
