"""The helpers array-API modules carry, run on ``array_api_strict`` against numpy's own
functions: ``_einsum`` on random contractions, the triangles, diagonals and scatters
on random shapes and offsets."""

import string

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from codegen.targets.array_api.helpers import helper_source, with_callees

xps = pytest.importorskip("array_api_strict")
pytest.importorskip("array_api_compat")


def _helpers(*names):
    """The helpers ``names`` (with those they call) as one namespace."""
    import math

    import array_api_extra as xpx
    from array_api_compat import array_namespace, device

    namespace = {"array_namespace": array_namespace, "_device_of": device, "xpx": xpx,
                 "math": math}
    source = "\n\n".join(helper_source(n) for n in with_callees(names))
    exec(compile(source, "<helpers>", "exec"), namespace)
    return namespace


EINSUM = _helpers("_einsum")["_einsum"]


@st.composite
def contractions(draw):
    """A subscripts string of 1 to 3 operands over a few letters, and its sizes."""
    letters = string.ascii_lowercase[:draw(st.integers(1, 5))]
    sizes = {c: draw(st.integers(1, 3)) for c in letters}
    terms = [draw(st.lists(st.sampled_from(letters), max_size=3, unique=True))
             for _ in range(draw(st.integers(1, 3)))]
    named = sorted(set("".join("".join(t) for t in terms)))
    output = draw(st.permutations(named).map(lambda p: p[:draw(st.integers(0, len(p)))]))
    spec = ",".join("".join(t) for t in terms) + "->" + "".join(output)
    return spec, [tuple(sizes[c] for c in t) for t in terms]


@settings(max_examples=60, deadline=None)
@given(contractions(), st.integers(0, 2 ** 16))
def test_einsum_is_numpys_einsum(contraction, seed):
    spec, shapes = contraction
    rng = np.random.default_rng(seed)
    operands = [rng.standard_normal(s) for s in shapes]
    got = EINSUM(spec, *[xps.asarray(o) for o in operands])
    np.testing.assert_allclose(np.asarray(got), np.einsum(spec, *operands), rtol=1e-12,
                               atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2), st.integers(-4, 4))
def test_triangles_and_diagonals_are_numpys(rows, columns, batch, k):
    helpers = _helpers("_tril", "_triu", "_diag", "_embed_diagonal")
    x = np.random.default_rng(rows * 10 + columns).standard_normal((batch + 1, rows, columns))
    np.testing.assert_array_equal(np.asarray(helpers["_tril"](xps.asarray(x), k)),
                                  np.tril(x, k))
    np.testing.assert_array_equal(np.asarray(helpers["_triu"](xps.asarray(x), k)),
                                  np.triu(x, k))
    np.testing.assert_array_equal(np.asarray(helpers["_diag"](xps.asarray(x[0]), k)),
                                  np.diag(x[0], k))
    v = x[0, 0]
    np.testing.assert_array_equal(np.asarray(helpers["_diag"](xps.asarray(v), k)),
                                  np.diag(v, k))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3), st.integers(0, 1), st.integers(0, 2 ** 16))
def test_scatter_add_along_axis_adds_repeats(n, m, axis, seed):
    rng = np.random.default_rng(seed)
    shape = (n, 3) if axis == 0 else (3, n)
    indices = rng.integers(0, n, size=(m, 3) if axis == 0 else (3, m))
    values = rng.standard_normal(indices.shape)
    want = np.zeros(shape)
    grid = list(np.indices(indices.shape, sparse=True))
    grid[axis] = indices
    np.add.at(want, tuple(grid), values)
    scatter = _helpers("_scatter_add_along_axis")["_scatter_add_along_axis"]
    got = scatter(xps.asarray(values), xps.asarray(indices), axis, shape)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


@pytest.mark.parametrize("position", [0, 2, 4])
def test_scatters_take_a_loop_counter_as_an_index(position):
    """A 0-d integer array (a fori_loop's counter) indexes a scatter as an int would."""
    scatter = _helpers("_scatter_add")["_scatter_add"]
    values = np.arange(3.0) + 1
    want = np.zeros((5, 3))
    want[position] = values
    got = scatter(xps.asarray(values), (5, 3), (xps.asarray(position), Ellipsis))
    np.testing.assert_array_equal(np.asarray(got), want)
    got = scatter(xps.asarray(values[1]), (5, 3), (xps.asarray(position), 1))
    want = np.zeros((5, 3))
    want[position, 1] = values[1]
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("index", [(slice(None, -1), Ellipsis), (Ellipsis, slice(1, None)),
                                   (1, Ellipsis), (Ellipsis, -2), (slice(1, 3), 4),
                                   (slice(2, 2), Ellipsis), (slice(None, None, 2), Ellipsis),
                                   (slice(None, None, -1), Ellipsis),
                                   (Ellipsis, slice(3, 0, -2)),
                                   (1, slice(None, None, -1), Ellipsis),
                                   (Ellipsis, slice(None, 2, -1))])
def test_scatters_are_numpys_index_writes(index):
    """Slices and integers become pads; backward slices are read forwards."""
    scatter = _helpers("_scatter")["_scatter"]
    shape = (4, 5)
    values = np.random.default_rng(1).standard_normal(np.zeros(shape)[index].shape)
    want = np.zeros(shape)
    want[index] = values
    got = scatter(xps.asarray(values), shape, index)
    np.testing.assert_array_equal(np.asarray(got), want)
    broadcast = scatter(xps.asarray(1.5), shape, index)
    want[index] = 1.5
    np.testing.assert_array_equal(np.asarray(broadcast), want)
