"""``tracer.Tensor``, ``tracer.constant`` and ``tracer.Variable`` as values."""

import operator

import numpy as np
import pytest

import tracer
from tracer import GradientTape


# --- constant and Tensor basics --------------------------------------------------------

def test_constant_dtypes_follow_numpy():
    assert tracer.constant(1.5).dtype == np.float64
    assert tracer.constant(1).dtype == np.int64
    assert tracer.constant(True).dtype == np.bool_
    assert tracer.constant([1, 2], dtype=np.float32).dtype == np.float32
    assert tracer.constant(np.ones(2, dtype=np.float32)).dtype == np.float32


def test_constant_copies_its_value_and_keeps_a_name():
    source = np.array([1.0, 2.0])
    t = tracer.constant(source, name="t")
    source[0] = 99.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    assert t.name == "t"
    assert "name='t'" in repr(t)


def test_constant_of_a_tensor_or_variable_is_a_new_untracked_tensor():
    x = tracer.constant(2.0)
    v = tracer.Variable(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = tracer.constant(x) * tracer.constant(v)
    assert y == 6.0
    assert tape.gradient(y, [x, v]) == [None, None]


def test_tensor_properties():
    t = tracer.constant(np.arange(6.0).reshape(2, 3))
    assert t.shape == (2, 3)
    assert t.dtype == np.float64
    assert t.ndim == 2
    assert t.size == 6
    assert len(t) == 2
    with pytest.raises(TypeError):
        len(tracer.constant(1.0))


def test_numpy_gives_a_read_only_view():
    t = tracer.constant([1.0, 2.0])
    value = t.numpy()
    assert isinstance(value, np.ndarray)
    with pytest.raises(ValueError, match="read-only"):
        value[0] = 5.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_asarray_and_array_convert():
    t = tracer.constant([1.0, 2.0])
    as_array = np.asarray(t)
    assert type(as_array) is np.ndarray
    np.testing.assert_array_equal(as_array, [1.0, 2.0])
    copy = np.array(t)
    copy[0] = 7.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    assert np.asarray(t, dtype=np.float32).dtype == np.float32


def test_scalar_conversions():
    t = tracer.constant(2.5)
    assert float(t) == 2.5
    assert int(t) == 2
    assert complex(t) == 2.5 + 0j
    assert bool(t)
    assert [10, 20, 30][tracer.constant(1)] == 20
    assert t.item() == 2.5
    assert tracer.constant([1.0, 2.0]).tolist() == [1.0, 2.0]


def test_str_shows_the_value():
    assert str(tracer.constant([1.0, 2.0])) == str(np.array([1.0, 2.0]))


# --- operators --------------------------------------------------------------------------

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow, operator.lt, operator.le, operator.gt, operator.ge,
          operator.eq, operator.ne]


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
def test_binary_operators_match_numpy_in_both_orders(op):
    a = np.array([1.5, 2.0, 3.0])
    b = np.array([0.5, 2.0, 4.0])
    ta, tb = tracer.constant(a), tracer.constant(b)
    for result, expected in [(op(ta, tb), op(a, b)), (op(ta, b), op(a, b)),
                             (op(a, tb), op(a, b)), (op(ta, 2.0), op(a, 2.0)),
                             (op(2.0, tb), op(2.0, b))]:
        assert isinstance(result, tracer.Tensor)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result.numpy(), expected)


def test_comparisons_give_bool_tensors():
    x = tracer.constant([1.0, 3.0])
    result = x < 2.0
    assert isinstance(result, tracer.Tensor) and result.dtype == np.bool_
    np.testing.assert_array_equal(result, [True, False])
    np.testing.assert_array_equal(x == tracer.constant([1.0, 0.0]), [True, False])


def test_matmul_in_both_orders():
    m = np.arange(6.0).reshape(2, 3)
    v = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tracer.constant(m) @ v, m @ v)
    np.testing.assert_array_equal(m @ tracer.constant(v), m @ v)
    np.testing.assert_array_equal(tracer.constant(m) @ tracer.constant(v), m @ v)


def test_unary_operators():
    x = tracer.constant([-1.5, 2.0])
    np.testing.assert_array_equal(-x, [1.5, -2.0])
    np.testing.assert_array_equal(+x, [-1.5, 2.0])
    np.testing.assert_array_equal(abs(x), [1.5, 2.0])


def test_operators_are_differentiated():
    x = tracer.constant(2.0)
    y = tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch([x, y])
        z = x * y + x / y - y ** x + abs(-x) - (+y)
    dx, dy = tape.gradient(z, [x, y])
    np.testing.assert_allclose(dx, 3.0 + 1 / 3.0 - 9.0 * np.log(3.0) + 1.0)
    np.testing.assert_allclose(dy, 2.0 - 2.0 / 9.0 - 2.0 * 3.0 - 1.0)


def test_augmented_assignment_rebinds_and_never_mutates():
    x = tracer.constant([1.0, 2.0])
    alias = x
    x += 1.0
    x *= 2.0
    x @= np.eye(2)
    assert x is not alias
    np.testing.assert_array_equal(alias, [1.0, 2.0])
    np.testing.assert_array_equal(x, [4.0, 6.0])


def test_augmented_assignment_inside_a_tape_is_recorded():
    x = tracer.constant(3.0)
    with GradientTape() as tape:
        tape.watch(x)
        y = x
        y += x
        y *= x
    assert tape.gradient(y, x) == 12.0


def test_item_assignment_raises_and_says_what_to_use_instead():
    x = tracer.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="immutable") as info:
        x[0] = 5.0
    assert "np.where" in str(info.value) and "Variable" in str(info.value)
    np.testing.assert_array_equal(x, [1.0, 2.0])


def test_tensors_are_unhashable_because_eq_is_elementwise():
    with pytest.raises(TypeError):
        hash(tracer.constant(1.0))


def test_iteration_yields_recorded_rows():
    x = tracer.constant([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        tape.watch(x)
        total = sum(row * row for row in x)
    np.testing.assert_array_equal(tape.gradient(total, x), [2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match="0-d"):
        list(tracer.constant(1.0))


# --- Variable ----------------------------------------------------------------------------

def test_variable_construction():
    v = tracer.Variable([1, 2], dtype=np.float32, name="v")
    assert v.dtype == np.float32 and v.shape == (2,) and v.ndim == 1 and len(v) == 2
    assert v.name == "v" and v.trainable
    assert not tracer.Variable(1.0, trainable=False).trainable
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    assert "tracer.Variable 'v'" in repr(v)


def test_variable_identity_is_stable_across_assignments():
    v = tracer.Variable(1.0)
    identity = id(v)
    v.assign(2.0)
    v.assign_add(1.0)
    v.assign_sub(tracer.constant(0.5))
    assert id(v) == identity
    assert v.numpy() == 2.5


def test_variable_operators_read_the_current_value():
    v = tracer.Variable([1.0, 2.0])
    before = v * 2.0
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(before, [2.0, 4.0])
    np.testing.assert_array_equal(v * 2.0, [6.0, 8.0])
    np.testing.assert_array_equal(2.0 - v, [-1.0, -2.0])
    np.testing.assert_array_equal(v[1], 4.0)
    np.testing.assert_array_equal(np.sum(v), 7.0)


def test_variable_item_assignment_raises_and_says_what_to_use_instead():
    v = tracer.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match=r"v.assign\(np.where"):
        v[0] = 5.0
    v.assign(np.where(np.array([True, False]), 5.0, v))
    np.testing.assert_array_equal(v.numpy(), [5.0, 2.0])


def test_no_conversion_hands_out_a_writable_view_of_a_tensor():
    x = tracer.constant([1.0, 2.0])
    for view in (np.asarray(x), np.asarray(x, dtype=np.float64), x.numpy(),
                 np.array(x, copy=False)):
        assert not view.flags.writeable
    copy = np.array(x)
    copy[0] = 10.0
    assert x.numpy()[0] == 1.0


def test_the_tensor_constructor_copies_its_value():
    data = np.array([1.0, 2.0])
    x = tracer.Tensor(data)
    data[0] = 10.0
    assert x.numpy()[0] == 1.0
    assert tracer.Tensor(3.0).shape == ()


def test_converting_a_recorded_tensor_to_an_array_warns_at_the_users_line():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    w = tracer.constant([1.0, 2.0])
    with tracer.GradientTape() as tape:
        tape.watch(w)
        with pytest.warns(tracer.GradientTapeWarning, match="test_tensor_api.py") as caught:
            X.dot(w)
    assert caught[0].filename == __file__


def test_a_boolean_mask_that_does_not_fit_is_an_index_error():
    x = tracer.constant([1.0, 2.0, 3.0])
    with pytest.raises(IndexError):
        x[np.array([True, False])]
