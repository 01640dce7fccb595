"""np.pad's modes beyond 'constant' compute numpy's values bit for bit, in numpy's dtype
and shape, and refuse what numpy refuses or tapegen does not build.

Their gradients (first and second order, eager and generated, batched, forward,
symbolic sizes) are checked by the gradient table's ``pad-<mode>`` rows
(``tests/support/gradient_table/shapes.py``).
"""

import itertools

import numpy as np
import pytest

import tracer
from tape_refusals import raised_on_a_watched_tensor

MODES = [
    ("edge", {}), ("wrap", {}), ("reflect", {}), ("symmetric", {}),
    ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {}), ("linear_ramp", {"end_values": (1.5, -2)}),
    ("linear_ramp", {"end_values": ((1, 2), (3.5, 0.25))}),
    ("maximum", {}), ("minimum", {"stat_length": 10}), ("mean", {"stat_length": 2}),
    ("median", {"stat_length": ((2, 1), (5, 3))}),
]
WIDTHS = [2, ((0, 7), (3, 1)), ((11, 0), (4, 13))]
"""Widths within the axis, and wider than it (numpy then fills a chunk at a time)."""
SHAPES = [(1, 4), (2, 3), (5, 2)]


def _samples():
    """Every mode, on a sample of the shapes, widths and dtypes, so each meets each."""
    combos = list(itertools.product(range(len(SHAPES)), range(len(WIDTHS)),
                                    (np.float64, np.float32, np.int64)))
    for k, (mode, options) in enumerate(MODES):
        for shape, width, dtype in combos[k % 3::3]:
            yield pytest.param(mode, options, SHAPES[shape], WIDTHS[width], dtype,
                               id=f"{mode}-{'-'.join(map(str, options.values()))}-"
                                  f"{shape}-{width}-{np.dtype(dtype).name}")


def _exactly_as_numpy(fn, array):
    with np.errstate(all="ignore"):
        want = fn(array)
        got = fn(tracer.constant(array))
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("mode, options, shape, width, dtype", list(_samples()))
def test_each_mode_is_numpys_bit_for_bit(mode, options, shape, width, dtype):
    array = (np.random.default_rng(len(mode)).standard_normal(shape) * 5).astype(dtype)
    _exactly_as_numpy(lambda a: np.pad(a, width, mode=mode, **options), array)


@pytest.mark.parametrize("fn, array", [
    (lambda a: np.pad(a, {1: (4, 2), -1: 3}, mode="reflect", reflect_type="odd"),
     np.linspace(-1.0, 2.0, 24).reshape(2, 3, 4)),
    (lambda a: np.pad(a, 4, mode="reflect"), np.array([2.5])),
    (lambda a: np.pad(a, 4, mode="symmetric", reflect_type="odd"), np.array([2.5])),
    (lambda a: np.pad(a, 7, mode="reflect", reflect_type="odd"), np.arange(5, dtype=np.int8)),
    (lambda a: np.pad(a, (3, 9), mode="linear_ramp", end_values=(5, -3)),
     np.arange(5, dtype=np.int32)),
    (lambda a: np.pad(a, (3, 9), mode="mean"), np.arange(5, dtype=np.int32)),
    (lambda a: np.pad(a, ((2, 5), (1, 6)), mode="wrap"),
     np.arange(12.0).reshape(3, 4) * (1 + 1j)),
    (lambda a: np.pad(a, ((0, 0), (1, 1), (0, 0)), mode="edge"), np.zeros((0, 3, 2))),
    (lambda a: np.pad(a, 0, mode="median"), np.zeros((2, 0))),
], ids=["3d-dict-odd", "one-value-reflect", "one-value-symmetric-odd", "int8-odd",
        "int-ramp", "int-mean", "complex-wrap", "empty-other-axis", "empty-no-width"])
def test_edge_cases_are_numpys_bit_for_bit(fn, array):
    _exactly_as_numpy(fn, array)


@pytest.mark.parametrize("call, error, words", [
    (lambda x: np.pad(x, 1, mode="empty"), TypeError, "mode='empty'"),
    (lambda x: np.pad(x, 1, mode=lambda *args: None), TypeError, "modes supported are"),
    (lambda x: np.pad(x, 1, mode="nearest"), ValueError, "mode 'nearest' is not supported"),
    (lambda x: np.pad(x, 1, mode="edge", constant_values=1), ValueError, "constant_values"),
    (lambda x: np.pad(x, 1, end_values=1), ValueError, "for mode 'constant'"),
    (lambda x: np.pad(x, 1, mode="maximum", stat_length=0), ValueError, "stat_length of 0"),
    (lambda x: np.pad(x, 1, mode="mean", stat_length=-1), ValueError, "negative"),
    (lambda x: np.pad(x[:, :0], 1, mode="wrap"), ValueError, "can't extend empty axis 1"),
    (lambda x: np.pad(x, 1, mode="linear_ramp", end_values=x[0, 0]), TypeError,
     "plain numbers"),
])
def test_refusals_name_the_mode_and_what_to_use(call, error, words):
    assert words in str(raised_on_a_watched_tensor(call, error))


def test_a_wide_odd_reflection_differentiates_through_every_chunk():
    """An odd reflection wider than the axis: each chunk is twice the edge minus the
    values it mirrors, so the gradient of the pad is an integer combination that the
    same pad of the identity matrix gives."""
    x = tracer.constant(np.array([0.5, -1.0, 2.0]))
    seed = np.random.default_rng(0).standard_normal(3 + 7 + 5)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.pad(x, (7, 5), mode="reflect", reflect_type="odd")
    gradient = tape.gradient(out, x, output_gradients=seed)
    jacobian = np.pad(np.eye(3), ((7, 5), (0, 0)), mode="reflect", reflect_type="odd")
    np.testing.assert_allclose(gradient.numpy(), seed @ jacobian)


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric", "linear_ramp",
                                  "maximum", "mean", "median"])
def test_padding_other_axes_keeps_a_symbolic_batch_free_of_guards(mode):
    """Only the axes padded are asked about: a batch of rows padded along each row holds
    at every batch size."""
    import codegen

    x = tracer.constant(np.arange(8.0).reshape(2, 4) ** 1.5, name="x", dims=("n", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.sum(np.pad(x, {1: (2, 5)}, mode=mode) * np.arange(11.0))
    assert tape.graph.guards == []
    module = codegen.load(codegen.gradient_source(tape, out, [x]))
    for n in (1, 3, 6):
        values = np.arange(4.0 * n).reshape(n, 4) ** 1.5
        y = tracer.constant(values)
        with tracer.GradientTape() as eager:
            eager.watch(y)
            out = np.sum(np.pad(y, {1: (2, 5)}, mode=mode) * np.arange(11.0))
        (generated,) = module.gradient(values)
        np.testing.assert_allclose(generated, eager.gradient(out, y).numpy())
