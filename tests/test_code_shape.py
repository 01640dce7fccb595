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
