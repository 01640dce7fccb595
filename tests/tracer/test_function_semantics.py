"""``tracer.function`` keeps TensorFlow's semantics: when it traces again, what runs at
every call and what only while tracing, assignments and the reads after them,
variables, methods, nesting, control flow, threads, and its errors."""

import functools
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest

import ir
import tracer


def counting(function):
    """``function`` with a count of how many times its Python body ran (traces)."""
    runs = []

    @functools.wraps(function)
    def counted(*args, **kwargs):
        runs.append(1)
        return function(*args, **kwargs)
    return counted, runs


# --- when a trace serves a call ------------------------------------------------------

def test_one_trace_per_shape_and_dtype():
    body, runs = counting(lambda x: np.sum(x * 2))
    f = tracer.function(body)
    assert float(f(np.ones(3))) == 6.0
    assert float(f(np.full(3, 2.0))) == 12.0
    assert len(runs) == 1
    f(np.ones(4))
    f(np.ones(3, np.float32))
    f(tracer.constant(np.ones(3)))  # a tensor and an array of one shape share a trace
    assert len(runs) == f.experimental_get_tracing_count() == 3


def test_python_values_by_value_and_structures_by_what_they_hold():
    body, runs = counting(lambda x, scale, options: x * scale * options["k"][0])
    f = tracer.function(body)
    np.testing.assert_allclose(f(np.ones(2), 2.0, {"k": (3,)}).numpy(), [6.0, 6.0])
    f(np.ones(2), 2.0, {"k": (3,)})
    assert len(runs) == 1
    np.testing.assert_allclose(f(np.ones(2), 5.0, {"k": (3,)}).numpy(), [15.0, 15.0])
    f(np.ones(2), 2.0, {"k": (4,)})
    f(np.ones(2), 2, {"k": (3,)})  # an int is not the float 2.0
    assert len(runs) == 4


def test_nested_arrays_are_leaves_of_the_signature():
    f = tracer.function(lambda batch: batch["x"] @ batch["w"][0] + batch["w"][1])
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=4)
    np.testing.assert_allclose(f({"x": x, "w": [w, b]}).numpy(), x @ w + b, rtol=1e-12)
    x2 = rng.normal(size=(2, 3))
    np.testing.assert_allclose(f({"x": x2, "w": [w, b]}).numpy(), x2 @ w + b, rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


def test_variables_by_identity():
    body, runs = counting(lambda v: v * 2)
    f = tracer.function(body)
    a, b = tracer.Variable(np.ones(2)), tracer.Variable(np.ones(2))
    f(a)
    a.assign(np.full(2, 3.0))
    np.testing.assert_allclose(f(a).numpy(), [6.0, 6.0])  # the value read at the call
    f(b)
    assert len(runs) == 2


def test_results_keep_their_structure():
    @tracer.function
    def f(x):
        return {"sum": np.sum(x), "parts": [x * 2, None, "done", 3]}

    out = f(np.ones(2))
    assert isinstance(out["sum"], tracer.Tensor) and float(out["sum"]) == 2.0
    assert out["parts"][1:] == [None, "done", 3]
    np.testing.assert_allclose(out["parts"][0].numpy(), [2.0, 2.0])


# --- what runs when -------------------------------------------------------------------

def test_python_side_effects_run_while_tracing_and_tracer_print_at_every_call(capsys):
    seen = []

    @tracer.function
    def f(x):
        print("tracing")
        seen.append(1)
        tracer.print("x:", x, "sum", np.sum(x))
        return x + 1

    for value in (1.0, 2.0):
        f(np.array([value]))
    out = capsys.readouterr().out
    assert out.count("tracing") == 1 and len(seen) == 1
    assert "x: [1.] sum 1.0" in out and "x: [2.] sum 2.0" in out
    assert "tracer.print" not in out
    assert "print('x:', x, 'sum', x.sum())" in f.get_concrete_function(
        np.array([1.0])).source


def test_tracer_print_outside_a_function_prints_at_once(capsys):
    tracer.print("now", tracer.constant([1.0, 2.0]), sep="|")
    assert capsys.readouterr().out == "now|[1. 2.]\n"


def test_a_read_after_an_assignment_sees_the_new_value():
    v = tracer.Variable(np.array([1.0, 2.0]), name="v")

    @tracer.function
    def f(x):
        before = v * 1
        v.assign(v * x)
        after = v + 0
        v.assign_add(x)
        v.assign_sub(np.ones(2))
        return before, after

    before, after = f(np.array([3.0, 4.0]))
    np.testing.assert_allclose(before.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(after.numpy(), [3.0, 8.0])
    np.testing.assert_allclose(v.numpy(), [5.0, 11.0])
    f(np.array([1.0, 1.0]))
    np.testing.assert_allclose(v.numpy(), [5.0, 11.0])
    assert f.experimental_get_tracing_count() == 1


def test_tracing_leaves_the_variables_as_it_found_them():
    v = tracer.Variable(np.zeros(2), name="v")
    f = tracer.function(v.assign_add)
    f.get_concrete_function(np.ones(2))
    np.testing.assert_allclose(v.numpy(), [0.0, 0.0])
    f(np.ones(2))
    np.testing.assert_allclose(v.numpy(), [1.0, 1.0])


def test_moving_averages_as_batch_normalization_keeps_them():
    """Non-trainable statistics assigned in the step, the normalised value differentiated,
    over several calls: equal to the same steps run eagerly."""
    def run(compiled):
        rng = np.random.default_rng(0)
        gamma = tracer.Variable(np.ones(3), name="gamma")
        mean = tracer.Variable(np.zeros(3), trainable=False, name="moving_mean")
        var = tracer.Variable(np.ones(3), trainable=False, name="moving_variance")

        def step(x):
            with tracer.GradientTape() as tape:
                batch_mean = np.mean(x, axis=0)
                batch_var = np.var(x, axis=0)
                y = gamma * (x - batch_mean) / np.sqrt(batch_var + 1e-3)
                loss = np.sum(y ** 3)
            mean.assign(0.99 * mean + 0.01 * batch_mean)
            var.assign(0.99 * var + 0.01 * batch_var)
            gamma.assign_sub(0.1 * tape.gradient(loss, gamma))
            return loss
        step = tracer.function(step) if compiled else step
        losses = [float(step(rng.normal(size=(5, 3)))) for _ in range(4)]
        return losses, [v.numpy() for v in (gamma, mean, var)]

    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-12)
    for a, b in zip(eager[1], compiled[1]):
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_variables_may_be_created_on_the_first_trace_only():
    class Model:
        def __init__(self):
            self.w = None

        @tracer.function
        def __call__(self, x):
            if self.w is None:
                self.w = tracer.Variable(np.ones((x.shape[1], 1)), name="w")
            return x @ self.w

    model = Model()
    np.testing.assert_allclose(model(np.ones((2, 3))).numpy(), [[3.0], [3.0]])
    model(np.ones((4, 3)))  # traces again, and the variable is there

    @tracer.function
    def makes_one(x):
        return x * tracer.Variable(np.ones(2))

    makes_one(np.ones(2))
    with pytest.raises(ValueError, match="first call only"):
        makes_one(np.ones(2, np.float32))


# --- methods, nesting, no tape, control flow -------------------------------------------

def test_methods_bind_self_and_each_instance_traces_its_own():
    class Scale:
        def __init__(self, k):
            self.k = tracer.Variable(np.array(k, dtype=float))

        @tracer.function
        def apply(self, x):
            return x * self.k

    a, b = Scale(2.0), Scale(3.0)
    np.testing.assert_allclose(a.apply(np.ones(2)).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(b.apply(np.ones(2)).numpy(), [3.0, 3.0])
    assert a.apply is a.apply
    assert a.apply.experimental_get_tracing_count() == 1


def test_methods_of_unhashable_and_slotted_classes_and_their_instances_collected():
    class Unhashable:
        def __init__(self):
            self.k = tracer.Variable(np.ones(2))

        def __eq__(self, other):
            return False

        @tracer.function
        def apply(self, x):
            return x * self.k

    class Slotted:
        __slots__ = ("k", "__weakref__")

        def __init__(self):
            self.k = tracer.Variable(np.ones(2))

        @tracer.function
        def apply(self, x):
            return x * self.k

    for cls in (Unhashable, Slotted):
        instance = cls()
        instance.apply(np.ones(2))
        instance.apply(np.ones(2))
        assert instance.apply.experimental_get_tracing_count() == 1
        alive = weakref.ref(instance)
        del instance
        gc.collect()
        assert alive() is None


def test_a_function_inside_a_tape_or_another_function_is_traced_into_it():
    inner = tracer.function(lambda x: np.sin(x) * x)
    x = tracer.constant([0.5, 1.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(inner(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0]))

    @tracer.function
    def outer(x):
        with tracer.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(inner(x))
        return tape.gradient(y, x)

    np.testing.assert_allclose(outer(np.array([0.5, 1.0])).numpy(),
                               np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0]))
    assert inner.experimental_get_tracing_count() == 0


def test_a_plain_forward_function():
    f = tracer.function(lambda x, y: np.tanh(x @ y))
    x, y = np.ones((2, 3)), np.full((3, 2), 0.1)
    np.testing.assert_allclose(f(x, y).numpy(), np.tanh(x @ y), rtol=1e-15)


def test_nested_tapes_give_a_second_derivative():
    @tracer.function
    def second(x):
        with tracer.GradientTape() as outer:
            outer.watch(x)
            with tracer.GradientTape() as inner:
                inner.watch(x)
                y = np.sum(x ** 3)
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x)

    np.testing.assert_allclose(second(np.array([1.0, 2.0])).numpy(), [6.0, 12.0])
    np.testing.assert_allclose(second(np.array([3.0, -1.0])).numpy(), [18.0, -6.0])


def test_loops_and_branches_inside():
    W = tracer.Variable(np.full((2, 2), 0.5), name="W")

    @tracer.function
    def f(xs, flag):
        with tracer.GradientTape() as tape:
            def body(h, x):
                h = np.tanh(h @ W + x)
                return h, h
            h, _ = tracer.scan(body, np.zeros(2), xs)
            h = tracer.fori_loop(0, 3, lambda i, h: h * 0.9, h)
            out = tracer.cond(flag > 0, lambda: np.sum(h), lambda: -np.sum(h))
        return out, tape.gradient(out, W)

    xs = np.array([[0.1, 0.2], [0.3, -0.1], [0.0, 0.5]])

    def eager(xs, flag):
        with tracer.GradientTape() as tape:
            h = tracer.constant(np.zeros(2))
            for x in xs:
                h = np.tanh(h @ W + x)
            h = h * 0.9 ** 3
            out = np.sum(h) if flag > 0 else -np.sum(h)
        return out, tape.gradient(out, W)

    for flag in (1.0, -1.0):
        got, expected = f(xs, np.array(flag)), eager(xs, flag)
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    assert f.experimental_get_tracing_count() == 1


_JACOBIAN_LOOPS = {  # h of x, of shape (4, 3), through each kind of loop and branch
    "scan": lambda x, W: tracer.scan(lambda h, r: (np.tanh(h @ W + r), h), x[0], x)[0],
    "fori_loop": lambda x, W: tracer.fori_loop(0, 3, lambda i, h: np.tanh(h @ W), x),
    "while_loop": lambda x, W: tracer.while_loop(
        lambda i, h: i < 3, lambda i, h: (i + 1, np.tanh(h @ W)), (0, x))[1],
    "cond": lambda x, W: tracer.cond(np.sum(x) > 0, lambda: np.tanh(x @ W),
                                     lambda: x @ W * 2.0),
}


@pytest.mark.parametrize("kind", sorted(_JACOBIAN_LOOPS))
def test_a_jacobian_through_a_loop_or_branch_inside(kind):
    """A jacobian's rows run as one batched loop, whose results the trace packs together;
    the generated module reads each straight from the loop."""
    W = tracer.Variable(np.random.default_rng(0).normal(size=(3, 3)) * 0.4, name="W")

    def jacobians(x):
        with tracer.GradientTape(persistent=True) as tape:
            tape.watch(x)
            out = np.sum(_JACOBIAN_LOOPS[kind](x, W) ** 2, axis=-1)
        return out, tape.jacobian(out, W), tape.jacobian(out, x)
    compiled = tracer.function(jacobians)
    for seed in (1, 2):
        x = np.random.default_rng(seed).normal(size=(4, 3))
        for got, want in zip(compiled(x), jacobians(tracer.constant(x))):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_defaults_fill_the_parameters_a_call_leaves_out():
    body, runs = counting(lambda x, scale=2.0, shift=None:
                          x * scale + (0.0 if shift is None else shift))
    f = tracer.function(body)
    assert float(f(np.array(1.0))) == 2.0
    assert float(f(np.array(1.0), 3.0)) == 3.0
    assert float(f(np.array(1.0), 3.0, np.array(1.0))) == 4.0
    assert float(f(np.array(2.0), shift=np.array(1.0))) == 5.0
    assert float(f(np.array(2.0))) == 4.0  # the first call's trace
    assert len(runs) == 4
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match="too many positional arguments"):
        f(np.array(1.0), 1.0, None, 4)


# --- retracing, threads, inspection -----------------------------------------------------

def test_reduce_retracing_makes_a_short_last_batch_use_the_same_trace():
    body, runs = counting(lambda x: np.mean(x ** 2, axis=0))
    f = tracer.function(body, reduce_retracing=True)
    data = np.random.default_rng(0).normal(size=(100, 3))
    for start in range(0, 100, 32):
        np.testing.assert_allclose(f(data[start:start + 32]).numpy(),
                                   np.mean(data[start:start + 32] ** 2, axis=0), rtol=1e-12)
    assert len(runs) == 1
    f(np.ones((5, 4)))  # another axis changes: it becomes symbolic too
    f(np.ones((6, 7)))
    assert len(runs) == 2


def test_sizes_that_break_a_symbolic_trace_s_guard_trace_again():
    body, runs = counting(lambda x: np.sum(x, axis=0) if x.shape[0] > 3 else
                          np.prod(x, axis=0))
    f = tracer.function(body, reduce_retracing=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tracer.GradientTapeWarning)
        np.testing.assert_allclose(f(np.full((4, 2), 2.0)).numpy(), [8.0, 8.0])
        np.testing.assert_allclose(f(np.full((5, 2), 2.0)).numpy(), [10.0, 10.0])
        assert len(runs) == 1
        np.testing.assert_allclose(f(np.full((2, 2), 2.0)).numpy(), [4.0, 4.0])
        np.testing.assert_allclose(f(np.full((6, 2), 2.0)).numpy(), [12.0, 12.0])
    assert len(runs) == 2


def test_input_signature_gives_one_trace_for_every_batch():
    body, runs = counting(lambda x: np.sum(x, axis=1))
    f = tracer.function(body, input_signature=[tracer.TensorSpec((None, 3), np.float64)])
    for n in (2, 7, 1):
        np.testing.assert_allclose(f(np.ones((n, 3))).numpy(), np.full(n, 3.0))
    assert len(runs) == 1
    with pytest.raises(TypeError, match="'x' is float64\\[2, 4\\]"):
        f(np.ones((2, 4)))
    with pytest.raises(TypeError, match="input_signature"):
        tracer.function(lambda x, y: x, input_signature=[tracer.TensorSpec((3,))])(
            np.ones(3), np.ones(3))


def test_retracing_more_than_five_times_warns_and_says_what_changed():
    f = tracer.function(lambda x: x * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 7):
            f(np.ones(n))
    messages = [str(w.message) for w in caught if issubclass(w.category,
                                                              tracer.GradientTapeWarning)]
    assert len(messages) == 1
    assert "traced 6 times" in messages[0] and "reduce_retracing=True" in messages[0]
    assert "x went from float64[5] to float64[6]" in messages[0]
    assert caught[0].filename == __file__


def test_threads_see_the_results_of_serial_calls():
    v = tracer.Variable(np.zeros(()), name="count")
    body, runs = counting(v.assign_add)
    f = tracer.function(body)

    def work():
        for _ in range(25):
            f(np.ones(()))
    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert float(v.numpy()) == 100.0
    assert len(runs) == 1


def test_a_concrete_function_shows_its_graph_source_and_signature(tmp_path):
    W = tracer.Variable(np.ones((3, 2)), name="W")

    @tracer.function
    def predict(x):
        return np.tanh(x @ W)

    concrete = predict.get_concrete_function(tracer.TensorSpec((4, 3)))
    assert isinstance(concrete.graph, ir.Graph)
    assert "def predict(W, x):" in concrete.source and "import numpy as np" in concrete.source
    assert concrete.variables == {"W": W}
    path = concrete.write(str(tmp_path / "predict.py"))
    assert open(path).read() == concrete.source
    np.testing.assert_allclose(concrete(np.ones((4, 3))).numpy(), np.tanh(np.full((4, 2), 3.0)))
    text = predict.pretty_printed_concrete_signatures()
    assert text.splitlines()[:5] == ["predict(x)", "  Args:",
                                     "    x: float64 Tensor, shape=(4, 3)", "  Returns:",
                                     "    float64 Tensor, shape=(4, 2)"]
    with pytest.raises(TypeError, match="do not fit"):
        concrete(np.ones((5, 3)))


# --- errors ----------------------------------------------------------------------------

def test_python_control_flow_on_a_tensor_names_the_line():
    @tracer.function
    def f(x):
        loss = np.sum(x)
        if loss > 0:
            return loss
        return -loss

    with pytest.raises(tracer.ControlFlowError) as error:
        f(np.ones(2))
    message = str(error.value)
    assert "test_function_semantics.py" in message and "tracer.cond" in message
    assert "Python control flow on a tensor's value" in message


def test_a_conversion_of_a_traced_value_is_an_error():
    f = tracer.function(lambda x: float(np.sum(x)) * x)
    with pytest.raises(tracer.ControlFlowError, match="float"):
        f(np.ones(2))


def test_an_unhashable_argument_is_named():
    f = tracer.function(lambda x, config: x * 2)
    with pytest.raises(TypeError, match="argument config.*not hashable"):
        f(np.ones(2), {"b": set()})


def test_a_failing_call_assigns_no_variable():
    a = tracer.Variable(np.ones(2), name="a")
    b = tracer.Variable(np.eye(2), name="b")

    @tracer.function
    def f(m):
        a.assign_add(np.ones(2))
        b.assign(np.linalg.cholesky(m))
        return a

    f(np.eye(2) * 4)
    np.testing.assert_allclose(a.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(b.numpy(), np.eye(2) * 2)
    with pytest.raises(np.linalg.LinAlgError):
        f(-np.eye(2))
    np.testing.assert_allclose(a.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(b.numpy(), np.eye(2) * 2)


def test_a_wrong_call_names_the_function():
    f = tracer.function(lambda x: x)
    with pytest.raises(TypeError, match="<lambda>"):
        f(1, 2)


def test_custom_gradients_and_jacobians_inside():
    @tracer.custom_gradient
    def clipped_identity(x):
        return x * 1.0, lambda dy: np.clip(dy, -0.1, 0.1)

    W = tracer.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]), name="W")

    def step(x):
        with tracer.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = clipped_identity(x @ W)
            loss = np.sum(y ** 2)
        return y, tape.gradient(loss, W), tape.jacobian(y, x)

    compiled = tracer.function(step)
    for x in (np.array([[0.5, -1.0]]), np.array([[0.01, 0.02]])):
        for a, b in zip(compiled(x), step(tracer.constant(x))):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    assert compiled.experimental_get_tracing_count() == 1


def test_a_while_loop_runs_as_many_steps_as_each_call_needs():
    @tracer.function
    def halvings(x):
        count, value = tracer.while_loop(lambda k, v: np.max(v) > 1.0,
                                         lambda k, v: (k + 1, v / 2), (np.int64(0), x))
        return count, value

    for x, steps in ((np.array([8.0, 3.0]), 3), (np.array([0.5, 40.0]), 6)):
        count, value = halvings(x)
        assert int(count.numpy()) == steps
        np.testing.assert_allclose(value.numpy(), x / 2 ** steps)
    assert halvings.experimental_get_tracing_count() == 1


def test_the_print_primitive_prints_when_evaluated_as_generated_code_does(capsys):
    from ir.primitives.control import printed
    params = {"parts": ("loss {0}", None, 3), "sep": "|", "end": "!\n", "order": 1}
    token = printed(np.array([1.0, 2.0]), **params)
    assert token.shape == () and capsys.readouterr().out == "loss {0}|[1. 2.]|3!\n"
    assert printed.spelling(params, [(2,)]) == (
        "print('loss \\x7b0}', {0}, 3, sep='|', end='!\\n')")


def test_np_shape_and_np_size_keep_a_symbolic_batch_symbolic():
    """np.shape and np.size read a traced argument's shape as x.shape does: a size traced
    as symbolic stays symbolic, so the one module holds for every batch."""
    @tracer.function(reduce_retracing=True)
    def scaled(x):
        return np.shape(x)[0] * x + np.size(x) + np.size(x, 0)

    for rows in (2, 5, 3):
        x = np.ones((rows, 2))
        np.testing.assert_array_equal(np.asarray(scaled(x)), rows + 2 * rows + rows)
    assert scaled.experimental_get_tracing_count() == 1
