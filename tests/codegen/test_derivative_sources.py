"""Generated higher derivatives: ``hvp_source``, ``hessian_source``, ``jacobian_source``.

Every row of the gradient table goes through each: the generated module's
Hessian-vector product, dense Hessian (by the first argument) and Jacobians
(by every argument) must equal the eager ones, which the ir tests check
against finite differences and against each other.  Then the module
contract: ``v`` last, the docstrings, names.
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


def _recorded_case(case):
    arrays = case.arrays()
    tensors = named_tensors(arrays)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    values = {t.name: a for t, a in zip(tensors, arrays)}
    return tape, out, tensors, values


def _call(function, values):
    return function(*(values[p] for p in inspect.signature(function).parameters))


def _assert_equal(generated, eager):
    eager = np.asarray(eager)
    assert np.asarray(generated).shape == eager.shape
    np.testing.assert_allclose(generated, eager, **TOLERANCES[np.dtype(np.float64)])


REAL_CASES = [pytest.param(case, id=case.id) for case in rows()
              if not any(np.iscomplexobj(a) for a in case.arrays())]


@pytest.mark.usefixtures("inline_captured_arrays")
@pytest.mark.parametrize("case", REAL_CASES)
def test_generated_jacobians_match_the_tape(case):
    tape, out, tensors, values = _recorded_case(case)
    if np.iscomplexobj(out.numpy()):
        return
    module = codegen.load(codegen.jacobian_source(tape, out, tensors))
    generated = _call(module.jacobian, values)
    eager = tape.jacobian(out, tensors)
    for g, e in zip(generated, eager):
        if e is None:
            assert g is None
        else:
            _assert_equal(g, e.numpy())


@pytest.mark.usefixtures("inline_captured_arrays")
@pytest.mark.parametrize("case", REAL_CASES)
def test_generated_hessians_match_forward_over_reverse(case):
    tape, out, tensors, values = _recorded_case(case)
    if np.iscomplexobj(out.numpy()):
        return
    module = codegen.load(codegen.hessian_source(tape, out, tensors[0]))
    generated = _call(module.hessian, values)
    arrays = [values[t.name] for t in tensors]

    def first_argument_only(x):
        return np.sum(case.fn(x, *(tracer.constant(a) for a in arrays[1:])))
    eager = tracer.hessian(first_argument_only)(arrays[0])
    if generated is None:
        assert not np.any(np.asarray(eager))
    else:
        _assert_equal(generated, eager)


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
    assert "Hessian of y (" in source and "times v." in source
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


def test_hessians_by_one_source_and_jacobians_of_one_target():
    x, y = tracer.constant(1.0), tracer.constant(2.0)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * y
    for source_function in (codegen.hvp_source, codegen.hessian_source):
        with pytest.raises(ValueError, match="one source"):
            source_function(tape, z, [x, y])
    with pytest.raises(ValueError, match="one target"):
        codegen.jacobian_source(tape, [z, z], x)


def test_a_generated_hessian_is_named_and_shaped_as_documented():
    x = tracer.constant(np.linspace(-1.0, 1.0, 6).reshape(2, 3), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.tanh(x) ** 3)
    source = codegen.hessian_source(tape, y, x, name="curvature")
    assert "Hessian of" in source and "return hessian" in source
    H = codegen.load(source).curvature(x.numpy())
    assert H.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(H, tracer.hessian(lambda x: np.sum(np.tanh(x) ** 3))(x.numpy()))


def test_a_generated_jacobian_has_one_array_per_source():
    x = tracer.constant(np.array([0.1, 0.2, 0.3]), name="x")
    W = tracer.constant(np.arange(6.0).reshape(2, 3), name="W")
    with tracer.GradientTape() as tape:
        tape.watch([x, W])
        y = np.tanh(W @ x)
    source = codegen.jacobian_source(tape, y, {"x": x, "W": W})
    assert "jacobian_x" in source and "jacobian_W" in source
    jacobians = codegen.load(source).jacobian(x=x.numpy(), W=W.numpy())
    assert jacobians["x"].shape == (2, 3) and jacobians["W"].shape == (2, 2, 3)
