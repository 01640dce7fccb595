"""``gradient``'s contract: result structure, several targets, seeds
(``output_gradients``), unconnected sources, and dtypes."""

import collections

import numpy as np
import pytest

import tracer
from tracer import GradientTape, UnconnectedGradients


def scalars(*values):
    return [tracer.constant(v) for v in values]


def plain(structure):
    """Gradients as floats (or None) in the same structure, for comparisons."""
    if isinstance(structure, dict):
        return {k: plain(v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(plain(v) for v in structure)
    return None if structure is None else float(structure)


@pytest.fixture
def linear():
    """y = x1 + 2 x2 + 3 x3, recorded on a persistent tape."""
    x1, x2, x3 = scalars(1.0, 1.0, 1.0)
    with GradientTape(persistent=True) as tape:
        tape.watch([x1, x2, x3])
        y = x1 + 2.0 * x2 + 3.0 * x3
    return tape, y, x1, x2, x3


# --- structure of the result -------------------------------------------------------

def test_single_source_gives_a_single_tensor(linear):
    tape, y, x1, x2, x3 = linear
    grad = tape.gradient(y, x2)
    assert isinstance(grad, tracer.Tensor)
    assert grad == 2.0


def test_result_mirrors_nested_tuples_and_lists(linear):
    tape, y, x1, x2, x3 = linear
    grads = tape.gradient(y, (x1, x2, [x1, x3]))
    assert type(grads) is tuple and type(grads[2]) is list
    assert plain(grads) == (1.0, 2.0, [1.0, 3.0])


def test_result_mirrors_dicts_with_their_keys_and_order(linear):
    tape, y, x1, x2, x3 = linear
    grads = tape.gradient(y, [x1, {"x3": x3, "x2": x2}])
    assert plain(grads) == [1.0, {"x3": 3.0, "x2": 2.0}]
    assert list(grads[1]) == ["x3", "x2"]


def test_result_mirrors_named_tuples(linear):
    tape, y, x1, x2, x3 = linear
    Pair = collections.namedtuple("Pair", "first second")
    grads = tape.gradient(y, Pair(x3, x1))
    assert isinstance(grads, Pair)
    assert (float(grads.first), float(grads.second)) == (3.0, 1.0)


def test_a_source_listed_twice_gets_the_full_gradient_twice():
    x, = scalars(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x + 7.0 * x
    assert plain(tape.gradient(y, [x, x])) == [11.0, 11.0]


# --- targets ---------------------------------------------------------------------------

def test_a_list_of_targets_is_summed():
    x, y = scalars(1.0, 1.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        targets = [2.0 * x, 3.0 * y]
    assert plain(tape.gradient(targets, [x, y])) == [2.0, 3.0]


def test_a_dict_of_targets_is_summed():
    x, = scalars(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        targets = {"square": x * x, "triple": 3.0 * x}
    assert tape.gradient(targets, x) == 9.0


def test_a_target_that_is_a_source_contributes_one():
    x, y = scalars(2.0, 5.0)
    with GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        square = x * x
        y_square = y * y
    assert tape.gradient([x, square], x) == 5.0
    assert plain(tape.gradient([x, y, y_square], [x, y])) == [1.0, 11.0]


def test_gradient_of_a_source_with_respect_to_itself_is_ones():
    x = tracer.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
    np.testing.assert_array_equal(tape.gradient(x, x), [1.0, 1.0])


def test_gradient_of_an_unwatched_tensor_with_respect_to_itself_is_ones():
    c = tracer.constant([1.0, 2.0])
    x = tracer.constant(1.0)
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = c * x
    np.testing.assert_array_equal(tape.gradient(c, c), [1.0, 1.0])
    assert tape.gradient(y, c) is None


def test_gradient_of_a_variable_with_respect_to_itself_is_ones():
    v = tracer.Variable([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        v * 1.0
    np.testing.assert_array_equal(tape.gradient(v, v), np.ones(3))


def test_a_non_scalar_target_means_the_gradient_of_its_sum():
    m = tracer.constant([[1.0, 2.0], [3.0, 4.0]])
    b = tracer.constant([[5.0], [6.0]])
    with GradientTape() as tape:
        tape.watch(b)
        y = m @ b
    np.testing.assert_array_equal(tape.gradient(y, b), [[4.0], [6.0]])


def test_a_constant_target_gives_none_or_zeros():
    x = tracer.constant([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tracer.constant(3.0) * 2.0
    assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(tape.gradient(y, x, unconnected_gradients="zero"), [0.0, 0.0])


@pytest.mark.parametrize("dtype", [np.int32, np.bool_])
def test_integer_and_bool_targets_give_none(dtype):
    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = (x * 3.0).astype(dtype)
    assert tape.gradient(y, x) is None


# --- output_gradients ------------------------------------------------------------------

def test_output_gradients_give_one_upstream_gradient_per_target():
    x, y0 = scalars(3.0, 2.0)
    with GradientTape() as tape:
        tape.watch(x)
        targets = [x * x, x * y0]
    seeds = [tracer.constant(2.0), tracer.constant(10.0)]
    assert tape.gradient(targets, x, output_gradients=seeds) == 2.0 * 6.0 + 10.0 * 2.0


def test_output_gradients_on_a_non_scalar_target_give_a_vjp():
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x = tracer.constant([0.5, -1.0])
    u = np.array([1.0, 10.0, 100.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = a @ x
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=u), u @ a)


def test_output_gradients_may_be_arrays_and_keep_the_targets_dtype():
    x = tracer.constant(np.array([1.0, 2.0], dtype=np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    grad = tape.gradient(y, x, output_gradients=[np.array([1.0, 3.0])])
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, [2.0, 12.0])


def test_output_gradients_with_none_entries_are_rejected_before_consuming_the_tape():
    x, = scalars(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        targets = [x * x, 2.0 * x]
    with pytest.raises(ValueError, match="None"):
        tape.gradient(targets, x, output_gradients=[tracer.constant(1.0), None])
    assert tape.gradient(targets, x) == 8.0


def test_output_gradients_of_the_wrong_count_or_shape_are_rejected():
    x = tracer.constant([1.0, 2.0])
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="2 entries for 1 targets"):
        tape.gradient(y, x, output_gradients=[[1.0, 2.0]])
    with pytest.raises(ValueError, match=r"shape \(3,\).*shape \(2,\)"):
        tape.gradient(y, x, output_gradients=[np.ones(3)])


# --- unconnected sources ----------------------------------------------------------------

def test_unconnected_sources_give_none_by_default():
    x, y = scalars(1.0, 2.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        z = x * 2.0
    assert plain(tape.gradient(z, [x, y])) == [2.0, None]


@pytest.mark.parametrize("zero", [UnconnectedGradients.ZERO, "zero"])
def test_zero_gives_zeros_of_the_sources_shape_and_dtype(zero):
    x = tracer.constant(np.ones((2, 3), dtype=np.float32))
    unused = tracer.constant(np.ones((4,), dtype=np.float32))
    v = tracer.Variable(np.ones((3, 1)))
    with GradientTape() as tape:
        tape.watch([x, unused])
        z = np.sum(x * 2.0)
    grads = tape.gradient(z, {"x": x, "rest": (unused, v)}, unconnected_gradients=zero)
    np.testing.assert_array_equal(grads["x"], np.full((2, 3), 2.0))
    assert grads["rest"][0].dtype == np.float32
    np.testing.assert_array_equal(grads["rest"][0], np.zeros(4))
    assert grads["rest"][1].shape == (3, 1) and grads["rest"][1].dtype == np.float64
    np.testing.assert_array_equal(grads["rest"][1], 0.0)


def test_none_may_be_given_as_a_string():
    x, y = scalars(1.0, 2.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        z = x * 2.0
    assert plain(tape.gradient(z, [x, y], unconnected_gradients="none")) == [2.0, None]


# --- dtypes -----------------------------------------------------------------------------

def test_a_python_float_constant_is_float64_and_its_gradient_too():
    x = tracer.constant(2.0)
    assert x.dtype == np.float64
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).dtype == np.float64


def test_gradients_keep_the_sources_dtype_under_numpy_promotion():
    # numpy promotes float32 with float64 (TensorFlow refuses the mix); each
    # gradient still has its source's dtype.
    x32 = tracer.constant(np.array([1.0, 2.0], dtype=np.float32))
    x64 = tracer.constant(np.array([3.0, 4.0]))
    with GradientTape() as tape:
        tape.watch([x32, x64])
        y = x32 * x64
    assert y.dtype == np.float64
    g32, g64 = tape.gradient(y, [x32, x64])
    assert g32.dtype == np.float32 and g64.dtype == np.float64
    np.testing.assert_allclose(g32, [3.0, 4.0])
    np.testing.assert_allclose(g64, [1.0, 2.0])


def test_python_scalars_adopt_the_tensors_dtype():
    x = tracer.constant(np.array([1.0], dtype=np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        y = 2.0 * x + 1
    assert y.dtype == np.float32
    assert tape.gradient(y, x).dtype == np.float32


def test_no_gradient_flows_through_a_cast_to_integer():
    x = tracer.constant(2.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x.astype(np.int32).astype(np.float64) * x
    assert tape.gradient(y, x) == 2.0  # only the direct factor


def test_no_gradient_flows_through_integers_alone():
    x = tracer.constant(2.7)
    with GradientTape() as tape:
        tape.watch(x)
        y = x.astype(np.int32).astype(np.float64)
    assert tape.gradient(y, x) is None


def test_a_bool_mask_differentiates_only_the_float_factor():
    x = tracer.constant([-1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = (x > 0) * x
    np.testing.assert_array_equal(tape.gradient(y, x), [0.0, 1.0])


def test_float32_overflow_is_real():
    x = tracer.constant(np.array([0.0, 100.0], dtype=np.float32))
    with GradientTape() as tape:
        tape.watch(x)
        with np.errstate(over="ignore", invalid="ignore"):
            y = np.log(1.0 + np.exp(x))
    with np.errstate(over="ignore", invalid="ignore"):
        grad = tape.gradient(y, x)
    assert grad.dtype == np.float32
    assert grad.numpy()[0] == 0.5 and np.isnan(grad.numpy()[1])


def test_gather_gradients_are_dense_and_accumulate_duplicates():
    x = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = np.take(x, [0, 2, 2]) * np.array([1.0, 2.0, 3.0])
    grad = tape.gradient(y, x)
    assert isinstance(grad, tracer.Tensor)
    np.testing.assert_array_equal(grad, [1.0, 0.0, 5.0])
