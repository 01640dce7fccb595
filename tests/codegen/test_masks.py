"""Boolean masks in generated code: the positions a mask selects are computed from the
mask the module is given, not kept from the trace (a kept mask would give silently wrong
gradients for any other data)."""

import numpy as np
import pytest

import codegen
import tracer

RNG = np.random.default_rng(5)

FUNCTIONS = {
    "positive": lambda x: np.sum(x[x > 0] ** 2),
    "rows": lambda x: np.sum(np.sin(x[np.sum(x, axis=1) > 0])),
    "two_d": lambda x: np.sum(x[x > 0.5] * 3.0),
    "masked_tail": lambda x: np.sum(x[1:][x[1:] < 0] ** 3),
}


def _gradient(fn, value):
    x = tracer.constant(value, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = fn(x)
    return tape, out, x


@pytest.mark.parametrize("name", FUNCTIONS)
def test_a_mask_is_recomputed_from_the_arguments(name):
    fn = FUNCTIONS[name]
    tape, out, x = _gradient(fn, RNG.normal(size=(5, 4)))
    module = codegen.load(codegen.gradient_source(tape, out, x))
    for _ in range(3):
        value = RNG.normal(size=(5, 4))
        tape, out, x = _gradient(fn, value)
        np.testing.assert_allclose(module.gradient(value), tape.gradient(out, x).numpy(),
                                   rtol=1e-12)
