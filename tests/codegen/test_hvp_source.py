"""``codegen.hvp_source``: generated forward-over-reverse Hessian-vector products.

Every row of the gradient table is differentiated by its first argument: the
generated module's ``H @ v`` must equal the eager one (an accumulator around
a tape), which the ir tests check against reverse-over-reverse and finite
differences.  Then the module contract: ``v`` last, the docstring, names.
"""

import inspect

import numpy as np
import pytest

import codegen
import codegen.module
import tracer
from codegen_support import TOLERANCES, named_tensors
from gradient_table import rows

CASES = [pytest.param(case, id=case.id) for case in rows()]


@pytest.fixture
def inline_captured_arrays(monkeypatch):
    """Arrays a case captures are written inline, so every case is called with its tensors."""
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)


def _direction(array, seed):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(np.shape(array))
    if np.iscomplexobj(array):
        values = values + 1j * rng.standard_normal(np.shape(array))
    return np.asarray(values, dtype=np.asarray(array).dtype)


def _eager_hvp(fn, tensors, v):
    with tracer.ForwardAccumulator(tensors[0], tracer.constant(v)) as acc:
        with tracer.GradientTape() as tape:
            tape.watch(tensors)
            out = fn(*tensors)
        gradient = tape.gradient(out, tensors[0])
    return None if gradient is None else acc.jvp(gradient)


@pytest.mark.usefixtures("inline_captured_arrays")
@pytest.mark.parametrize("case", CASES)
def test_generated_hvp_matches_eager(case):
    arrays = case.arrays()
    tensors = named_tensors(arrays)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    module = codegen.load(codegen.hvp_source(tape, out, tensors[0]))
    v = _direction(arrays[0], 1)
    parameters = inspect.signature(module.hvp).parameters
    values = {t.name: a for t, a in zip(tensors, arrays)}
    generated = module.hvp(*(v if p == "v" else values[p] for p in parameters))
    eager = _eager_hvp(case.fn, [tracer.constant(a) for a in arrays], v)
    if eager is None:
        assert generated is None or not np.any(generated)
        return
    eager = eager.numpy()
    assert np.asarray(generated).shape == eager.shape
    np.testing.assert_allclose(generated, eager, **TOLERANCES[np.dtype(np.float64)])


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rosenbrock_module(**options):
    x = tracer.constant(np.linspace(-1.0, 1.0, 6), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = rosenbrock(x)
    return codegen.hvp_source(tape, y, x, **options), x


def test_vector_is_the_last_parameter_and_input():
    source, x = _rosenbrock_module(name="rosenbrock_hvp")
    module = codegen.load(source)
    assert list(inspect.signature(module.rosenbrock_hvp).parameters) == ["x", "v"]
    assert module.INPUTS == (("x", (6,), "float64"), ("v", (6,), "float64"))
    assert "Hessian of rosenbrock" in source and "times v." in source
    assert "import numpy as np" in source and "import tracer" not in source


def test_tangents_are_commented_and_named_after_their_values():
    source, _ = _rosenbrock_module()
    assert "# tangent of" in source
    assert "d_x_dot" in source


def test_a_user_value_called_v_keeps_its_name():
    v = tracer.constant(np.ones(3), name="v")
    with tracer.GradientTape() as tape:
        tape.watch(v)
        y = np.sum(np.sin(v) ** 2)
    module = codegen.load(codegen.hvp_source(tape, y, v))
    assert list(inspect.signature(module.hvp).parameters) == ["v", "v_1"]


def test_one_source_only():
    x, y = tracer.constant(1.0), tracer.constant(2.0)
    with tracer.GradientTape() as tape:
        tape.watch([x, y])
        z = x * y
    with pytest.raises(ValueError, match="one source"):
        codegen.hvp_source(tape, z, [x, y])
