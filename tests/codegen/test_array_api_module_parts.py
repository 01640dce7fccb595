"""An array-API module is written from its parts: the emitter asks the target how each
constant is written, and the module binds the device, checks scipy and imports only
what its expressions read, without reading its own text back."""

import numpy as np
import pytest
import scipy.special

import codegen
import tracer
from codegen.targets.array_api import ARRAY_API

xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")


@pytest.mark.parametrize("value, spelled", [
    (2.0, "2.0"),
    (float("-inf"), "-xp.inf"),
    (np.float64(1.5), "xp.asarray(1.5, dtype=xp.float64, device=on)"),
    (np.full((2,), 3, np.int32), "xp.full((2,), 3, dtype=xp.int32, device=on)"),
    (np.array([1.0, np.nan]), "xp.asarray([1.0, xp.nan], dtype=xp.float64, device=on)"),
    (np.zeros((0, 3)), "xp.zeros((0, 3), dtype=xp.float64, device=on)"),
])
def test_a_constant_is_made_in_the_namespace_on_the_device(value, spelled):
    assert ARRAY_API.literal(value) == spelled


def _module(function, x):
    """The array-API gradient module of ``sum(function(x))``, and its numpy twin."""
    x = tracer.Variable(x, name="x")
    with tracer.GradientTape() as tape:
        loss = np.sum(function(x))
    return (codegen.gradient_source(tape, loss, [x], target="array_api"),
            codegen.gradient_source(tape, loss, [x]))


@pytest.mark.parametrize("function, device, scipy_checked", [
    (lambda x: x * x, False, False),
    (lambda x: x * np.array([1.0, np.inf, 2.0]) + np.float64(2.0) * x, True, False),
    (lambda x: scipy.special.gammaln(x) * 3.0, False, True),
])
def test_the_module_reads_what_its_expressions_read(function, device, scipy_checked):
    x = np.array([0.5, 1.0, 1.5])
    source, numpy_source = _module(function, x)
    assert ("on = _device_of(x)" in source) == device, source
    assert ("_check_scipy(xp)" in source) == scipy_checked, source
    assert ("import scipy.special" in source) == scipy_checked, source
    got = codegen.load(source).gradient(xps.asarray(x))
    want = codegen.load(numpy_source).gradient(x)
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-12)
