"""``ir.autodiff.batching``: a primitive applied to a batch equals the primitive applied to each value.

The gradient table drives every rule through real derivatives; these cases
cover the placements it meets rarely or never: products of every rank with
either or both operands batched, advanced indices apart and together,
positional reductions over the flattened value, and the fallback that
applies a primitive to one value at a time.
"""

import numpy as np
import pytest

import ir.primitives
from ir.autodiff.batching import Batched, one_hot
from ir.primitive import PRIMITIVES, Primitive
from ir.primitives.shape import IndexArg

SIZE = 3
RNG = np.random.default_rng(0)


def values(shape):
    return RNG.standard_normal((SIZE,) + shape)


def check(name, args, batched, **params):
    """``PRIMITIVES[name]`` on the batch against a stack of its values one by one."""
    prim = PRIMITIVES[name]
    inputs = [Batched(a, SIZE) if b else a for a, b in zip(args, batched)]
    result = prim(*inputs, **params)
    expected = np.stack([prim(*[a[k] if b else a for a, b in zip(args, batched)], **params)
                         for k in range(SIZE)])
    assert isinstance(result, Batched) and result.size == SIZE
    np.testing.assert_allclose(result.value, expected, rtol=1e-12, atol=1e-12)


MATMUL_SHAPES = [((4,), (4,)), ((2, 4), (4,)), ((4,), (4, 5)), ((2, 4), (4, 5)),
                 ((6, 2, 4), (4, 5)), ((2, 4), (6, 4, 5)), ((4,), (6, 4, 5)), ((6, 2, 4), (4,))]


@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)],
                         ids=["left", "right", "both"])
@pytest.mark.parametrize("x_shape, y_shape", MATMUL_SHAPES)
def test_matmul_of_every_rank(x_shape, y_shape, batched):
    x = values(x_shape) if batched[0] else RNG.standard_normal(x_shape)
    y = values(y_shape) if batched[1] else RNG.standard_normal(y_shape)
    check("matmul", [x, y], batched)


@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)],
                         ids=["left", "right", "both"])
@pytest.mark.parametrize("b_shape", [(3,), (3, 2)], ids=["vector", "matrix"])
def test_solve_with_vectors_and_matrices(b_shape, batched):
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    a = np.stack([a + 0.1 * k * np.eye(3) for k in range(SIZE)]) if batched[0] else a
    b = values(b_shape) if batched[1] else RNG.standard_normal(b_shape)
    check("solve", [a, b], batched)


@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)],
                         ids=["left", "right", "both"])
def test_tensordot(batched):
    a = values((2, 3, 4)) if batched[0] else RNG.standard_normal((2, 3, 4))
    b = values((4, 3, 5)) if batched[1] else RNG.standard_normal((4, 3, 5))
    check("tensordot", [a, b], batched, axes=((1, 2), (1, 0)))


KEYS = [(IndexArg(0),), (slice(None), IndexArg(0)), (IndexArg(0), slice(None), IndexArg(1)),
        (0, slice(None), IndexArg(0)), (Ellipsis, IndexArg(0)), (None, IndexArg(0), 1)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_indexing_keeps_the_batch_in_front(key):
    x = values((4, 5, 6))
    indices = [np.array([[0, 2], [3, 1]]), np.array([1, 0])][:sum(isinstance(k, IndexArg)
                                                                   for k in key)]
    check("getitem", [x] + indices, [True] + [False] * len(indices), key=key)


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_scatter_add_is_indexing_transposed(key):
    indices = [np.array([[0, 2], [3, 1]]), np.array([1, 0])][:sum(isinstance(k, IndexArg)
                                                                   for k in key)]
    shape = (4, 5, 6)
    probe = np.zeros(shape)[tuple(indices[k.position] if isinstance(k, IndexArg) else k
                                  for k in key)]
    g = values(probe.shape)
    check("scatter_add", [g] + indices, [True] + [False] * len(indices), key=key, shape=shape)


def test_indices_that_are_batched_are_taken_one_value_at_a_time():
    x = RNG.standard_normal((4, 5))
    indices = np.array([[0, 1], [2, 3], [1, 1]])
    check("getitem", [x, indices], [False, True], key=(IndexArg(0),))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (1, False), (-1, True)])
def test_positional_reductions(name, axis, keepdims):
    check(name, [values((4, 5))], [True], axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("axis", [None, (0,), (1, 0), ()])
def test_reductions_shift_their_axes(axis):
    check("sum", [values((4, 5))], [True], axis=axis, keepdims=False)


def test_einsum_labels_the_batch_with_an_unused_letter():
    check("einsum", [values((2, 3)), RNG.standard_normal((3, 4))], [True, False],
          subscripts="ij,jk->ik")


def test_broadcasts_and_sums_keep_the_batch_in_front():
    check("broadcast_to", [values((3,))], [True], shape=(2, 3))
    check("sum_to", [values((2, 4, 3))], [True], shape=(1, 3))


def test_one_hot_is_the_identity_reshaped():
    batch = one_hot(np.float64(1.0), (2, 3))
    assert batch.size == 6 and batch.shape == (2, 3)
    np.testing.assert_array_equal(batch.value.reshape(6, 6), np.eye(6))


# --- every primitive has a rule, or a reason to go one value at a time -------------

ONE_VALUE_AT_A_TIME = {
    "custom_gradient": "the user's forward and gradient functions see one value as written",
    "numpy_call": "any numpy function: no rule can know where it would put a batch axis",
    "nonzero": "how many positions each value has depends on the value",
    "flatnonzero": "how many positions each value has depends on the value",
    "searchsorted": "numpy searches one sorted 1-D array: a batch of them is not one",
    "size": "it has no inputs, so no batch axis ever reaches it",
    "arange": "it has no inputs, so no batch axis ever reaches it",
    "print": "each value is printed as the user's code asked for it",
}
"""The primitives left to ``ir.autodiff.batching.one_at_a_time``, each with its reason."""


def defined_primitives():
    """The primitives ``ir.primitives`` defines (tests register a few of their own)."""
    modules = [getattr(ir.primitives, name) for name in ir.primitives.__all__]
    return {value.name: value for module in modules if module is not None
            for value in vars(module).values() if isinstance(value, Primitive)}


def test_every_primitive_has_a_batching_rule_or_a_named_reason_to_loop():
    without = {name for name, prim in defined_primitives().items()
               if prim.batch is None and not prim.elementwise}
    assert without == set(ONE_VALUE_AT_A_TIME)


def test_a_primitive_without_a_rule_is_applied_one_value_at_a_time():
    sorted_values = np.sort(RNG.standard_normal(5))
    check("searchsorted", [sorted_values, values((4,))], (False, True), side="left")
    assert PRIMITIVES["searchsorted"].batch is None
