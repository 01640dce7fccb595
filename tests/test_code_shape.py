"""The architecture's limits, kept: small modules and functions, no import circles.

The figures come from ``docs/code_shape.py``, which prints them; here they are held
to the limits that script names, so a change that breaks one fails here first.
"""

import importlib.util
import os
import statistics

import pytest

_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "docs", "code_shape.py")
_spec = importlib.util.spec_from_file_location("code_shape", _PATH)
shape = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(shape)


def test_no_module_is_over_the_limit():
    over = {name: lines for name, lines in shape.module_sizes().items()
            if lines > shape.MODULE_LIMIT}
    assert not over, f"modules over {shape.MODULE_LIMIT} lines: {over}"


def test_no_function_is_over_the_limit_and_the_median_stays_short():
    lengths = shape.function_lengths()
    over = {name: lines for name, lines in lengths.items() if lines > shape.FUNCTION_LIMIT}
    assert not over, f"functions over {shape.FUNCTION_LIMIT} lines: {over}"
    assert statistics.median(lengths.values()) <= shape.MEDIAN_LIMIT


def test_no_import_circle_inside_a_package():
    assert shape.import_circles() == []


@pytest.mark.parametrize("package", shape.PACKAGES)
def test_the_import_graph_sees_each_package(package):
    """The circle check must read real imports: each package's modules import each other."""
    graph = shape.import_graph()
    assert any(a.split(".")[0] == package for a, _ in graph.edges)


def test_no_folder_holds_more_modules_than_the_limit():
    over = {folder: n for folder, n in shape.folder_sizes().items() if n > shape.FOLDER_LIMIT}
    assert not over, f"folders over {shape.FOLDER_LIMIT} modules at their top level: {over}"


def test_the_design_rules_hold():
    """codegen compiles graphs alone, from spellings on the primitives, emitted from the
    graph; primitives are referenced, not looked up by name; loops are read by parts."""
    parsed = shape.trees()
    assert shape.importing("codegen", "tracer", parsed) == []
    assert shape.text_rewriting(parsed) == []
    assert shape.spelling_tables(parsed) == []
    assert shape.name_lookups(parsed) == []
    assert shape.position_sums(parsed) == []


def test_the_design_checks_see_what_they_look_for():
    """Each check finds the pattern it is named after, so an empty list means absence."""
    import ast

    source = ast.parse("import re\nSTANDARD_NAMES = {}\nf = PRIMITIVES['add']\n"
                       "g = x[count_c + count_x]\ns = t.replace('a', 'b')\n")
    parsed = {"codegen.example": source}
    assert shape.text_rewriting(parsed) == ["codegen.example"]
    assert shape.spelling_tables(parsed) == ["codegen.example.STANDARD_NAMES"]
    assert shape.name_lookups(parsed) == ["codegen.example"]
    assert shape.position_sums(parsed) == [("codegen.example", 4)]
