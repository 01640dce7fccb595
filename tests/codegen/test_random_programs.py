"""Random straight-line programs, differentiated eagerly and through generated code.

hypothesis builds programs of up to six steps from elementwise, broadcasting,
reduction, shape and product primitives on small random shapes.  Each step
reads values already computed (the inputs at first), so every program is a
valid numpy function; its domain is kept smooth (denominators bounded away
from zero, no ties, no kinks), so finite differences are a fair judge.

For each program the generated vector-Jacobian product must equal the eager
tape's, and pass the inner-product check against central differences of the
program itself: ``<seed, (f(x + eps v) - f(x - eps v)) / 2 eps>`` equals
``<gradient, v>``.  Second-order programs compare the generated gradient of
an inner gradient with nested eager tapes.
"""

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import tracer
from codegen_support import assert_gradients_equal, call, generate, named_tensors, recorded

UNARY = {
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "square": np.square,
    "negative": np.negative, "cube": lambda x: x ** 3, "half_exp": lambda x: np.exp(0.5 * x),
    "smooth_abs": lambda x: np.sqrt(1.0 + x * x), "shift": lambda x: 2.0 - x,
    "transpose": np.transpose, "flatten": lambda x: np.reshape(x, (-1,)),
    "expand": lambda x: np.expand_dims(x, 0),
    "spread": lambda x: np.broadcast_to(x, (2,) + np.shape(x)),
}
BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": lambda x, y: x / (1.5 + np.sin(y)),
}
REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod}


def _apply(step, pool):
    kind, name, args, params = step
    values = [pool[i] for i in args]
    if kind == "unary":
        return UNARY[name](*values)
    if kind == "binary":
        return BINARY[name](*values)
    if kind == "reduce":
        return REDUCTIONS[name](*values, **params)
    if kind == "slice":
        return values[0][params["key"]]
    if kind == "join":
        return getattr(np, name)(values, axis=0)
    return np.matmul(*values)


def run(program, inputs):
    """The program's last value, computed from ``inputs`` (arrays or tensors)."""
    pool = list(inputs)
    for step in program:
        pool.append(_apply(step, pool))
    return pool[-1]


@st.composite
def programs(draw):
    """``(input shapes, steps)``; each step is ``(kind, name, argument indices, params)``."""
    shapes = draw(st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
                           min_size=1, max_size=3))
    pool = [np.zeros(s) for s in shapes]
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        step = draw(_step(pool))
        steps.append(step)
        pool.append(_apply(step, pool))
    return shapes, steps


@st.composite
def _step(draw, pool):
    indices = st.integers(0, len(pool) - 1)
    kinds = ["unary", "binary", "reduce", "slice", "join", "matmul"]
    kind = draw(st.sampled_from(kinds))
    x = draw(indices)
    shape = pool[x].shape
    if kind == "binary":
        y = draw(indices)
        if _broadcasts(shape, pool[y].shape):
            return kind, draw(st.sampled_from(sorted(BINARY))), (x, y), {}
    elif kind == "reduce":
        axis = draw(st.sampled_from([None] + list(range(len(shape)))))
        params = {"axis": axis, "keepdims": draw(st.booleans())}
        return kind, draw(st.sampled_from(sorted(REDUCTIONS))), (x,), params
    elif kind == "slice" and shape and shape[0] > 1:
        key = draw(st.sampled_from([slice(1, None), slice(None, None, -1), 0, (Ellipsis, 0)]))
        return kind, "getitem", (x,), {"key": key}
    elif kind == "join":
        partners = [i for i, v in enumerate(pool) if v.shape == shape and shape]
        if partners:
            name = draw(st.sampled_from(["concatenate", "stack"]))
            return kind, name, (x, draw(st.sampled_from(partners))), {}
    elif kind == "matmul":
        partners = [i for i, v in enumerate(pool) if _multiplies(shape, v.shape)]
        if partners:
            return kind, "matmul", (x, draw(st.sampled_from(partners))), {}
    return "unary", draw(st.sampled_from(sorted(UNARY))), (x,), {}


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _multiplies(a, b):
    return 1 <= len(a) <= 2 and 1 <= len(b) <= 2 and a[-1] == b[0]


def _inputs(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, s) for s in shapes]


def _inner_product_check(program, arrays, seed, gradients, eps=1e-6):
    """``<seed, J v>`` by central differences against ``<J^T seed, v>``."""
    rng = np.random.default_rng(0)
    directions = [rng.standard_normal(np.shape(a)) for a in arrays]

    def along(step):
        shifted = [a + step * v for a, v in zip(arrays, directions)]
        return float(np.sum(seed * run(program, shifted)))

    numeric = (along(eps) - along(-eps)) / (2 * eps)
    analytic = sum(float(np.sum(g * v)) for g, v in zip(gradients, directions) if g is not None)
    assert abs(numeric - analytic) <= 1e-7 + 1e-5 * (abs(numeric) + abs(analytic))


SWEEP = settings(max_examples=60, deadline=None)


@SWEEP
@given(program=programs(), optimize=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_generated_gradients_match_eager_and_differences(program, optimize, seed):
    shapes, steps = program
    arrays = _inputs(shapes, seed)
    tensors = named_tensors(arrays)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = run(steps, tensors)
    upstream = np.random.default_rng(seed + 1).standard_normal(out.shape)
    module = generate(tape, out, tensors, seed_argument=True, optimize=optimize)
    generated = call(module, {t.name: a for t, a in zip(tensors, arrays)}, upstream)
    eager = tape.gradient(out, tensors, output_gradients=tracer.constant(upstream))
    assert_gradients_equal(generated, eager)
    _inner_product_check(steps, arrays, upstream, generated)


@settings(max_examples=30, deadline=None)
@given(program=programs(), seed=st.integers(0, 2**32 - 1))
def test_generated_second_derivatives_match_nested_tapes(program, seed):
    shapes, steps = program
    arrays = _inputs(shapes, seed)
    tensors = named_tensors(arrays)
    rng = np.random.default_rng(seed + 1)
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = run(steps, tensors)
        # Watched, the upstream gradient is a parameter rather than captured data.
        upstream = tracer.constant(rng.standard_normal(out.shape), name="u")
        outer.watch(upstream)
        first = inner.gradient(out, tensors, output_gradients=upstream)
    targets = [g for g in first if g is not None and recorded(outer, g)]
    if not targets:
        return
    seeds = [rng.standard_normal(t.shape) for t in targets]
    module = generate(outer, targets, tensors, seed_argument=True)
    values = {t.name: a for t, a in zip(tensors + [upstream], arrays + [upstream.numpy()])}
    generated = call(module, values, seeds)
    assert_gradients_equal(generated, outer.gradient(targets, tensors, output_gradients=seeds))
