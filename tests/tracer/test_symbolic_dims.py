"""Symbolic dimensions: declared axes, ``tracer.Dim``, guards, and modules generated from
a trace that hold at every size (checked against eager gradients at other sizes)."""

import re
import warnings

import numpy as np
import pytest

import codegen
import tracer

RNG = np.random.default_rng(0)


def _traced(fn, arrays, dims, **options):
    tensors = [tracer.constant(a, name=f"x{k}", dims=d) for k, (a, d) in
               enumerate(zip(arrays, dims))]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return codegen.load(codegen.gradient_source(tape, out, tensors, **options))


def _eager(fn, arrays):
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return tape.gradient(out, tensors)


def _loss(x, y):
    h = np.tanh(x * 2.0)
    return np.mean((h - y) ** 2) + np.sum(h) / x.shape[0]


@pytest.mark.parametrize("batch", [1, 3, 32])
def test_a_module_traced_at_one_batch_size_holds_at_others(batch):
    module = _traced(_loss, [RNG.normal(size=(8, 4)), RNG.normal(size=(8, 4))],
                     [("batch", None), ("batch", None)])
    arrays = [RNG.normal(size=(batch, 4)), RNG.normal(size=(batch, 4))]
    for got, want in zip(module.gradient(*arrays), _eager(_loss, arrays)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


def test_sizes_are_computed_from_the_arguments_not_written_as_numbers():
    tensors = [tracer.constant(RNG.normal(size=(8, 4)), name=n, dims=("batch", None))
               for n in ("x", "y")]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = _loss(*tensors)
    source = codegen.gradient_source(tape, out, tensors)
    assert '("x", ("batch", 4), "float64")' in source
    assert "n_batch = x.shape[0]" in source
    assert "/ 8" not in source and "32" not in source


def test_a_symbol_shared_by_inputs_is_checked_with_a_message_naming_both():
    module = _traced(_loss, [RNG.normal(size=(8, 4)), RNG.normal(size=(8, 4))],
                     [("batch", None), ("batch", None)])
    with pytest.raises(ValueError, match=re.escape("x1: axis 0 has size 6 but batch = 7 from x0")):
        module.gradient(np.ones((7, 4)), np.ones((6, 4)))


def test_dims_compute_like_integers_and_keep_their_expression():
    x = tracer.constant(np.ones((6, 4)), dims=("batch", None))
    n, k = x.shape
    assert isinstance(n, tracer.Dim) and k == 4 and type(k) is int
    assert repr(n * k + 1) == "Dim(4*batch + 1=25)"
    assert repr(n // 4) == "Dim(batch // 4=1)" and repr(-n % 4) == "Dim(-batch % 4=2)"
    assert str(x.size) == "24" and repr(x.size) == "Dim(4*batch=24)"
    assert n - n == 0 and type(n - n) is int


def test_reshape_and_slices_record_the_expression():
    def flatten_halves(x):
        n = x.shape[0]
        return np.sum(np.reshape(x, (-1,)) ** 2) + np.sum(np.reshape(x, (n, 2, 2))[:, 0])
    module = _traced(flatten_halves, [RNG.normal(size=(6, 4))], [("batch", None)])
    for batch in (1, 5):
        x = RNG.normal(size=(batch, 4))
        np.testing.assert_allclose(module.gradient(x)[0], _eager(flatten_halves, [x])[0].numpy())


def test_a_comparison_is_a_guard_that_the_module_checks_with_the_users_line():
    def branchy(x):
        if x.shape[0] > 4:  # the guard's line
            return np.sum(x ** 2)
        return np.sum(x)
    module = _traced(branchy, [RNG.normal(size=(6, 3))], [("batch", None)])
    np.testing.assert_allclose(module.gradient(np.ones((9, 3)))[0], 2 * np.ones((9, 3)))
    with pytest.raises(ValueError, match=r"batch = 3: this module holds only where batch > 4, "
                                         r"as when it was traced \(.*test_symbolic_dims.py:\d+"):
        module.gradient(np.ones((3, 3)))


def test_a_size_used_as_a_plain_int_is_fixed_with_a_warning_at_the_users_line():
    def fixed(x):
        return np.sum(x * np.arange(x.shape[0])[:, None])
    x = tracer.constant(RNG.normal(size=(5, 2)), name="x", dims=("batch", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning,
                          match="symbolic size batch .traced as 5. was used as") as caught:
            out = fixed(x)
    assert caught[0].filename == __file__
    module = codegen.load(codegen.gradient_source(tape, out, [x]))
    np.testing.assert_allclose(module.gradient(np.ones((5, 2)))[0],
                               _eager(fixed, [np.ones((5, 2))])[0].numpy())
    with pytest.raises(ValueError, match="this module holds only where batch == 5"):
        module.gradient(np.ones((4, 2)))


def test_declaring_dims_is_checked():
    with pytest.raises(ValueError, match="one entry per axis|has 1 entries"):
        tracer.constant(np.ones((3, 2)), dims=("batch",))
    with pytest.raises(ValueError, match="not a valid name"):
        tracer.constant(np.ones((3, 2)), dims=("2x", None))
    with pytest.raises(ValueError, match="at 2 or more"):
        tracer.constant(np.ones((1, 2)), dims=("batch", None))
    a = tracer.constant(np.ones((3, 2)), name="a", dims=("batch", None))
    b = tracer.constant(np.ones((4, 2)), name="b", dims=("batch", None))
    with tracer.GradientTape() as tape:
        tape.watch([a, b])
        with pytest.raises(ValueError, match="symbolic size batch is 3 on another tensor"):
            np.sum(a) + np.sum(b) + (a.shape[0] + b.shape[0])


def test_a_symbolic_variable_keeps_its_dims_across_assignments():
    v = tracer.Variable(np.ones((4, 2)), name="state", dims=("batch", None))
    v.assign(np.zeros((4, 2)))
    assert repr(v.shape[0]) == "Dim(batch=4)"


def test_the_recorded_graph_shows_the_symbols_and_the_guards():
    x = tracer.constant(np.ones((6, 8)), name="x", dims=("batch", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.tanh(x)) / x.shape[0]
        assert x.shape[0] != 7
    graph = tape.graph
    assert "x: f64[batch,8] = input" in str(graph)
    assert "size size=batch" in str(graph)
    assert graph.sizes == {"batch": 6}
    assert [g.text() for g in graph.guards] == ["batch != 7"]


@pytest.mark.parametrize("make", ["hvp", "hessian", "jacobian"])
def test_second_derivative_modules_take_symbolic_lengths(make):
    def energy(x):
        return np.sum(np.sin(x) * x) / x.shape[0]
    x = tracer.constant(RNG.normal(size=6), name="x", dims=("n",))
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = energy(x) if make != "jacobian" else np.sin(x) * x
    source = getattr(codegen, f"{make}_source")(tape, out, x)
    module = codegen.load(source)
    for n in (2, 9):
        value = RNG.normal(size=n)
        full = (tracer.hessian(energy)(tracer.constant(value)).numpy()
                if make != "jacobian" else None)
        if make == "hvp":
            v = RNG.normal(size=n)
            np.testing.assert_allclose(module.hvp(value, v), np.asarray(full) @ v, rtol=1e-10)
        elif make == "hessian":
            np.testing.assert_allclose(module.hessian(value), np.asarray(full), rtol=1e-10)
        else:
            np.testing.assert_allclose(module.jacobian(value),
                                       np.diag(np.cos(value) * value + np.sin(value)), rtol=1e-10)


def _symbolic_graph():
    x = tracer.constant(RNG.normal(size=(6, 8)), name="x", dims=("batch", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.tanh(x) ** 2) / x.shape[0]
        assert x.shape[0] > 2
    graph = tape.graph
    graph.outputs = [graph.names()["y"] if "y" in graph.names() else len(graph) - 1]
    return graph


def test_json_keeps_the_sizes_and_the_guards_and_code_generates_from_it():
    graph = _symbolic_graph()
    loaded = type(graph).from_json(graph.to_json())
    assert str(loaded) == str(graph)
    assert loaded.sizes == {"batch": 6} and loaded.guards == graph.guards
    module = codegen.load(codegen.gradient_source(loaded, loaded.outputs[0], "x"))
    x = RNG.normal(size=(3, 8))
    np.testing.assert_allclose(module.gradient(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2) / 3)
    with pytest.raises(ValueError, match="batch = 2: this module holds only where batch > 2"):
        module.gradient(np.ones((2, 8)))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["sizes"].update({"2b": 3}), "sizes: a size's name is a Python identifier"),
    (lambda d: d["sizes"].update({"batch": 0}), "a size is at least 1"),
    (lambda d: d["guards"][0].update({"relation": "<>"}), "relation: expected one of"),
    (lambda d: d["guards"][0].update({"left": {"$": "size", "terms": [[1, ["other"]]]}}),
     "size other is not among the sizes"),
    (lambda d: d["guards"][0].update({"holds": 1}), "holds: expected true or false"),
    (lambda d: d["guards"][0].update({"extra": 1}), "unknown fields"),
])
def test_json_refuses_malformed_sizes_and_guards(change, message):
    import json
    import ir
    document = json.loads(_symbolic_graph().to_json())
    change(document)
    with pytest.raises(ir.GraphFormatError, match=message):
        ir.Graph.from_json(json.dumps(document))


SYMBOLIC_PROGRAMS = {
    "slice_by_a_size": (lambda x: np.sum(x[: x.shape[0] // 2] ** 2), (2, 9)),
    "broadcast_to_a_size": (lambda x: np.sum(np.broadcast_to(x[:, :1], (x.shape[0], 4))
                                             * np.arange(4.0)), (1, 9)),
    "zeros_like": (lambda x: np.sum(np.zeros_like(x) + x ** 3), (1, 9)),
    "ones_and_full_like": (lambda x: np.sum(np.ones_like(x) * x + np.full_like(x, 2.0) * x),
                           (1, 9)),
    "scan_over_rows": (lambda x: np.sum(tracer.scan(lambda c, r: (c + r, np.sin(c) * r),
                                                    np.zeros(3), x)[1]), (1, 9)),
    "fori_loop_of_a_size": (lambda x: tracer.fori_loop(
        0, x.shape[0], lambda i, c: np.sin(c) * 0.5 + 1.0, np.sum(x)), (1, 9)),
    "fori_loop_of_half_a_size": (lambda x: np.sum(tracer.fori_loop(
        0, x.shape[0] // 2, lambda i, c: np.sin(c) * c, x[0])), (1, 9)),
    "cumsum_sort_diff": (lambda x: np.sum(np.cumsum(x, axis=0) ** 2)
                         + np.sum(np.sort(x, axis=0)[:2]) + np.sum(np.diff(x, axis=0) ** 2),
                         (2, 9)),
    "var_and_norm": (lambda x: np.sum(np.var(x, axis=0)) + np.sum(np.linalg.norm(x, axis=1)),
                     (2, 9)),
    "concatenate_and_flip": (lambda x: np.sum(np.concatenate([x, np.flip(x, 0) ** 2]) ** 2),
                             (1, 9)),
    "split_in_halves": (lambda x: sum(np.sum(p * (k + 1.0)) for k, p in enumerate(np.split(x, 2)))
                        + np.sum(np.split(x, [x.shape[0] // 2], axis=0)[1] ** 2), (4, 10)),
    "mask_of_values": (lambda x: np.sum(x[x > 0] ** 2), (1, 9)),
    "arange_like_x": (lambda x: np.sum((np.arange(x.shape[0], like=x) + 1.0)[:, None] * x ** 2)
                      + np.sum(np.arange(1, x.shape[0] + 1, 2, like=x)[:, None] * x[::2]),
                      (1, 2, 9)),
    "eye_ones_and_full_like_x": (lambda x: np.sum(np.eye(x.shape[0], like=x) @ x ** 2)
                                 + np.sum(np.ones((x.shape[0], 3), like=x) * np.sin(x))
                                 + np.sum(np.full((x.shape[0], 3), 2.0, like=x) * x ** 3),
                                 (1, 9)),
    "order_statistics": (lambda x: np.sum(np.median(x, axis=0) ** 2)
                         + np.sum(np.quantile(x, [0.3, 1.0], axis=0) ** 3)
                         + np.sum(np.percentile(x, 40.0, axis=0) * x[-1])
                         + np.sum(np.roll(x, 2, axis=0) * x), (1, 2, 9)),
    "a_reversed_slice": (lambda x: np.sum(x[-1:0:-2] ** 2), (2, 9)),
    "mean_of_a_product_of_sizes": (lambda x: np.mean(np.reshape(x, (-1,)) ** 2)
                                   * (x.shape[0] * x.shape[1]), (1, 9)),
}


@pytest.mark.parametrize("name", SYMBOLIC_PROGRAMS)
def test_programs_stay_symbolic(name):
    fn, sizes = SYMBOLIC_PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.GradientTapeWarning)
        module = _traced(fn, [RNG.normal(size=(6, 3))], [("n", None)])
    for n in sizes:
        x = RNG.normal(size=(n, 3))
        np.testing.assert_allclose(module.gradient(x)[0], _eager(fn, [x])[0].numpy(), rtol=1e-10)


def test_broadcasting_corners_a_symbolic_axis_of_one_and_a_static_one_against_it():
    def corners(x, b, c):
        return np.sum((x * b) ** 2 + x * c)  # x (n, 3); b (1, 3) static; c (n, 1)
    module = _traced(corners, [RNG.normal(size=(5, 3)), RNG.normal(size=(1, 3)),
                               RNG.normal(size=(5, 1))], [("n", None), None, ("n", None)])
    for n in (1, 4):
        arrays = [RNG.normal(size=(n, 3)), RNG.normal(size=(1, 3)), RNG.normal(size=(n, 1))]
        for got, want in zip(module.gradient(*arrays), _eager(corners, arrays)):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


def test_a_loop_body_is_traced_symbolically_too():
    def body_reads_sizes(x):
        total = np.sum(x)
        def step(i, c):
            return c + total / x.shape[0] + np.sum(np.reshape(x, (x.shape[0] * 2,)) ** 2)
        return tracer.fori_loop(0, 3, step, tracer.constant(0.0))
    x = tracer.constant(RNG.normal(size=(6, 2)), name="x", dims=("n", None))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.GradientTapeWarning)
        with tracer.GradientTape() as tape:
            tape.watch(x)
            out = body_reads_sizes(x)
    module = codegen.load(codegen.gradient_source(tape, out, x))
    for n in (1, 6, 9):
        value = RNG.normal(size=(n, 2))
        np.testing.assert_allclose(module.gradient(value),
                                   _eager(body_reads_sizes, [value])[0].numpy(), rtol=1e-12)


def test_an_rnn_with_a_symbolic_batch_and_number_of_steps():
    W, U = RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=(3, 4)) * 0.5

    def rnn(xs):
        def step(h, x):
            h = np.tanh(h @ W + x @ U)
            return h, np.sum(h ** 2) / h.shape[0]
        h, ys = tracer.scan(step, np.zeros_like(xs[0] @ U), xs)
        return np.sum(ys) + np.mean(h)
    module = _traced(rnn, [RNG.normal(size=(5, 6, 3))], [("steps", "batch", None)])
    for steps, batch in ((5, 6), (1, 1), (7, 9)):
        xs = RNG.normal(size=(steps, batch, 3))
        np.testing.assert_allclose(module.gradient(xs)[0], _eager(rnn, [xs])[0].numpy(),
                                   rtol=1e-12)


def test_branches_are_traced_symbolically_too():
    def branchy(x):
        total = np.sum(x)
        return tracer.cond(total > 0, lambda: total * 2.0 / x.shape[0] + np.sum(x ** 2),
                           lambda: total)
    module = _traced(branchy, [RNG.normal(size=(6, 3)) + 1.0], [("n", None)])
    for n in (1, 9):
        for shift in (1.0, -1.0):
            x = RNG.normal(size=(n, 3)) + shift
            np.testing.assert_allclose(module.gradient(x)[0], _eager(branchy, [x])[0].numpy(),
                                       rtol=1e-12)


def test_while_loops_are_traced_symbolically_too():
    def grow(x):
        return np.sum(tracer.while_loop(lambda c: np.sum(c) < 50.0,
                                        lambda c: c * 1.5 + c / x.shape[0], x * x + 0.1))
    module = _traced(grow, [RNG.normal(size=(6, 3))], [("n", None)])
    for n in (1, 9):
        x = RNG.normal(size=(n, 3))
        np.testing.assert_allclose(module.gradient(x)[0], _eager(grow, [x])[0].numpy(),
                                   rtol=1e-12)


_W = RNG.normal(size=(3, 3)) * 0.4

_LOOPS = {  # a loss of x, of shape (4, n, 3), through each kind of loop and branch
    "scan": lambda x: (lambda h, ys: np.sum(ys ** 2) + np.sum(h))(*tracer.scan(
        lambda h, r: (np.tanh(h @ _W + r), h * 2.0), np.zeros_like(x[0]), x)),
    "scan, final carry unread": lambda x: np.sum(tracer.scan(
        lambda h, r: (np.tanh(h @ _W + r), h / h.shape[0]), x[0] * 0.5, x)[1] ** 2),
    "fori_loop": lambda x: np.sum(tracer.fori_loop(
        0, 3, lambda i, h: np.sin(h @ _W) + x[i], x[3]) ** 3),
    "while_loop": lambda x: np.sum(tracer.while_loop(
        lambda i, h: i < 3, lambda i, h: (i + 1, np.tanh(h @ _W)), (0, x[0]))[1] ** 2),
    "cond": lambda x: np.sum(tracer.cond(np.sum(x) > 0, lambda: np.tanh(x @ _W),
                                         lambda: x @ _W * 2.0) ** 2),
}


@pytest.mark.parametrize("kind", sorted(_LOOPS))
def test_a_gradient_through_a_loop_taken_inside_a_function_keeps_its_batch_symbolic(kind):
    """The reverse loop a tape records for the recordings around it is derived of the
    loop's body with symbolic sizes too: one trace serves every batch."""
    loss = _LOOPS[kind]
    W = tracer.Variable(_W, name="W")
    compiled = tracer.function(lambda x: _loss_and_gradient(loss, x, W),
                               input_signature=[tracer.TensorSpec((4, None, 3))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.GradientTapeWarning)
        for n in (6, 1, 9):
            x = RNG.normal(size=(4, n, 3))
            got = compiled(x)
            want = _loss_and_gradient(loss, tracer.constant(x), W)
            for a, b in zip(got, want):
                np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12)
    assert compiled.experimental_get_tracing_count() == 1
    assert compiled.get_concrete_function(x).graph.guards == []


def _loss_and_gradient(loss, x, W):
    with tracer.GradientTape() as tape:
        tape.watch(x)
        value = loss(x) + np.sum(W) * 0.0
    return (value, *tape.gradient(value, [x, W]))


@pytest.mark.parametrize("kind", ["scan", "while_loop"])
def test_a_second_derivative_through_a_loop_holds_at_every_batch(kind):
    loss = _LOOPS[kind]

    def gradient_norm(x):
        with tracer.GradientTape() as inner:
            inner.watch(x)
            value = loss(x)
        return np.sum(inner.gradient(value, x) ** 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.GradientTapeWarning)
        module = _traced(gradient_norm, [RNG.normal(size=(4, 5, 3))], [(None, "n", None)])
    for n in (1, 5, 8):
        x = RNG.normal(size=(4, n, 3))
        np.testing.assert_allclose(module.gradient(x)[0], _eager(gradient_norm, [x])[0].numpy(),
                                   rtol=1e-10)


def test_a_size_in_a_body_traced_concretely_is_fixed_with_a_guard_on_the_tapes_around():
    x = tracer.constant(np.ones((6, 3)), name="x", dims=("n", None))

    @tracer.custom_gradient
    def doubled(v):
        return v * 2.0, lambda g: g * 2.0 / x.shape[0]  # (traced once, concretely, in a loop)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning, match="inside a loop or branch body"):
            carry, _ = tracer.scan(lambda c, r: (doubled(c) + np.sum(r), c),
                                   tracer.constant(0.0), x)
    assert [g.text() for g in tape.graph.guards] == ["n == 6"]
    module = codegen.load(codegen.gradient_source(tape, carry, x))
    with pytest.raises(ValueError, match="this module holds only where n == 6"):
        module.gradient(np.ones((9, 3)))

def test_ir_evaluate_runs_a_symbolic_graph_at_the_sizes_it_is_given():
    import ir
    x = tracer.constant(np.ones((6, 3)), name="x", dims=("n", None))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.sum(np.reshape(x, (x.shape[0] * 3,)) ** 2) / x.shape[0]
        assert x.shape[0] > 2
    graph = tape.graph
    graph.outputs = [len(graph) - 1]
    leaf = next(n.id for n in graph if n.name == "x")
    assert ir.evaluate(graph, {leaf: np.full((4, 3), 2.0)}) == [12.0]
    assert float(out.numpy()) == 3.0
    with pytest.raises(ValueError, match="n = 2: the graph holds only where n > 2"):
        ir.evaluate(graph, {leaf: np.ones((2, 3))})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("q", [0.3, np.float32(0.5), np.array([0.25, 1.0])])
def test_a_quantile_of_a_symbolic_length_has_numpys_type_and_value(dtype, q):
    values = RNG.normal(size=(5, 2)).astype(dtype) if dtype != np.int64 else \
        RNG.integers(-9, 9, size=(5, 2))
    x = tracer.constant(values, dims=("n", None))
    with tracer.GradientTape() as tape:
        if dtype != np.int64:
            tape.watch(x)
        got = np.quantile(x, q, axis=0)
    want = np.quantile(values, q, axis=0)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def _rnn_gradient_module(initial):
    """An RNN over ``xs`` of a symbolic number of steps and batch, not watched, started
    from ``initial(xs)``; the module differentiates by ``w`` alone."""
    w = tracer.Variable(RNG.normal(size=(3, 3)) * 0.5, name="w")
    xs = tracer.constant(RNG.normal(size=(5, 4, 3)), name="xs", dims=("steps", "batch", None))
    with tracer.GradientTape() as tape:
        carry, outs = tracer.scan(lambda h, x: (np.tanh(h @ w + x),) * 2, initial(xs), xs)
        loss = np.sum(outs ** 2) + np.sum(carry)
    return tape, codegen.load(codegen.gradient_source(tape, loss, [w]))


def test_values_computed_from_a_symbolic_tensor_no_tape_watches_keep_its_sizes():
    tape, module = _rnn_gradient_module(lambda xs: np.zeros_like(xs[0]))
    assert tape.graph.guards == []
    w, xs = RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(7, 2, 3))

    def loss(w):
        carry, outs = tracer.scan(lambda h, x: (np.tanh(h @ w + x),) * 2,
                                  np.zeros_like(xs[0]), xs)
        return np.sum(outs ** 2) + np.sum(carry)
    np.testing.assert_allclose(module.gradient(w, xs)[0], _eager(loss, [w])[0].numpy(),
                               rtol=1e-12)


def test_a_static_carry_met_by_a_symbolic_slice_in_a_loop_body_is_a_guard():
    tape, module = _rnn_gradient_module(lambda xs: tracer.constant(np.zeros((4, 3))))
    assert [g.text() for g in tape.graph.guards] == ["4 == batch"]
    with pytest.raises(ValueError, match="batch = 2: this module holds only where 4 == batch"):
        module.gradient(RNG.normal(size=(3, 3)), RNG.normal(size=(7, 2, 3)))
