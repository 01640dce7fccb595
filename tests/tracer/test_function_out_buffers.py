"""A compiled step writes its new state into memory it is given (``out``) instead of new
arrays: the ``tracer.Function`` hands it memory from the pool that the state it replaces
returns to, and a shipped module takes the arrays its caller no longer needs.  Values
read out of the variables never change afterwards, and a step that fails changes none."""

import numpy as np
import pytest

import codegen
import tracer
from tracer import optimizers
from tracer.buffers import POOL

LARGE = (256, 256)  # 512 KiB of float64: tracer.buffers.MIN_STATE_BYTES


def adam_step(shape, seed=0):
    """A ``tracer.Function`` training a tanh layer of weights ``shape`` with Adam, and its
    variables (the layer's, then the optimizer's)."""
    rng = np.random.default_rng(seed)
    W = tracer.Variable(rng.normal(size=shape) / np.sqrt(shape[0]), name="W")
    b = tracer.Variable(np.zeros(shape[1]), name="b")
    optimizer = optimizers.Adam(0.01)

    @tracer.function
    def step(x, y):
        with tracer.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ W + b) - y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, [W, b]), [W, b]))
        return loss
    return step, W, b, optimizer


def batches(shape, count, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(5, shape[0])), rng.normal(size=(5, shape[1])))
            for _ in range(count)]


@pytest.mark.parametrize("shape", [(3, 2), LARGE])
def test_steps_writing_into_buffers_equal_eager_steps(shape):
    """Twenty steps equal the same steps run eagerly, small state and pooled state alike."""
    data = batches(shape, 20)
    compiled, *compiled_vars = adam_step(shape)
    eager_step, *eager_vars = adam_step(shape)
    eager = eager_step.python_function
    for x, y in data:
        np.testing.assert_allclose(compiled(x, y).numpy(), eager(x, y).numpy(), rtol=1e-12)
    compiled_optimizer, eager_optimizer = compiled_vars.pop(), eager_vars.pop()
    for a, b in zip(compiled_vars + compiled_optimizer.variables,
                    eager_vars + eager_optimizer.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-15)


def test_a_step_in_a_loop_updates_its_large_state_in_reused_memory():
    """Each large new value (the weights and Adam's two moments) is written into memory a
    value it replaced returned to the pool."""
    step, W, _, optimizer = adam_step(LARGE)
    data = batches(LARGE, 13)
    for x, y in data[:3]:
        step(x, y)
    reused = POOL.reused
    for x, y in data[3:]:
        step(x, y)
    assert POOL.reused - reused >= 3 * len(data[3:])
    large = [v for v in [W] + optimizer.variables if v.numpy().shape == LARGE]
    assert len(large) == 3
    assert all(isinstance(owner(v._current_array()), memoryview) for v in large)


def owner(array):
    """What holds an array's memory: the first base that is not an array."""
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


def test_values_read_from_a_variable_never_change_afterwards():
    """Memory a reader holds (a tensor, ``numpy()``'s view, an array made from it, a view
    of that) stays out of the pool, however many steps follow."""
    step, W, _, _ = adam_step(LARGE)
    data = batches(LARGE, 12)
    step(*data[0])
    step(*data[1])
    tensor = W.read_value()
    view = W.numpy()
    row = np.asarray(W)[3]
    expected = np.array(view)
    for x, y in data[2:]:
        step(x, y)
    for held in (tensor.numpy(), view, row):
        assert not np.array_equal(held.ravel()[:10], W.numpy().ravel()[:10])
    np.testing.assert_array_equal(tensor.numpy(), expected)
    np.testing.assert_array_equal(view, expected)
    np.testing.assert_array_equal(row, expected[3])


def test_a_failing_step_changes_no_large_variable():
    v = tracer.Variable(np.ones(LARGE), name="v")

    @tracer.function
    def step(x):
        v.assign(v + x)
        return np.exp(x * 1000.0)

    step(np.zeros(LARGE))
    step(np.zeros(LARGE))
    before = v.numpy().copy()
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            step(np.ones(LARGE))
    np.testing.assert_array_equal(v.numpy(), before)
    step(np.full(LARGE, 0.5))
    np.testing.assert_array_equal(v.numpy(), before + 0.5)


def test_a_variable_named_out_keeps_its_value_and_its_update():
    out = tracer.Variable(np.zeros(3), name="out")

    @tracer.function
    def step(x):
        out.assign_add(x)
        return out.read_value() * 2

    np.testing.assert_array_equal(step(np.ones(3)).numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(step(np.ones(3)).numpy(), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0, 2.0])


def shipped(step, x, y):
    """The module of ``step``'s trace for ``x, y``, loaded, and its starting state."""
    concrete = step.get_concrete_function(x, y)
    module = codegen.load(concrete.source)
    state = {name: np.array(v.numpy()) for name, v in concrete.variables.items()}
    return module, state


def test_a_shipped_step_writes_into_the_arrays_its_caller_passes():
    """Passing back the arrays of the call before last (double buffering) gives the
    losses and state of a loop that makes new arrays, in the very arrays passed."""
    step, *_ = adam_step((4, 3))
    data = batches((4, 3), 8)
    module, start = shipped(step, *data[0])
    assert set(module.OUT_NAMES) >= {"W", "b"}
    plain, buffered = dict(start), dict(start)
    spare = {name: np.empty_like(start[name]) for name in module.OUT_NAMES}
    for x, y in data:
        loss, new = module.step(**plain, x=x, y=y)
        plain.update(new)
        buffered_loss, new = module.step(**buffered, x=x, y=y, out=spare)
        assert all(new[name] is spare[name] for name in module.OUT_NAMES)
        spare = {name: buffered[name] for name in module.OUT_NAMES}
        buffered.update(new)
        assert buffered_loss == loss
    for name in plain:
        np.testing.assert_array_equal(buffered[name], plain[name])


def test_a_shipped_step_refuses_buffers_it_cannot_write_into():
    step, *_ = adam_step((4, 3))
    x, y = batches((4, 3), 1)[0]
    module, state = shipped(step, x, y)
    fresh = np.zeros((3, 3))
    cases = {
        "not a dict": ([fresh], TypeError, "expected a dict of arrays by name"),
        "no such new value": ({"V": fresh}, ValueError, "no new value 'V'"),
        "wrong shape": ({"W": np.zeros((3, 4))}, ValueError,
                        r"out\['W'\]: expected a writable float64\[4, 3\]"),
        "wrong dtype": ({"W": np.zeros((4, 3), np.float32)}, ValueError,
                        r"got float32\[4, 3\]"),
        "read-only": ({"W": np.zeros((4, 3))[:]}, None, None),
        "an argument": ({"W": state["W"]}, ValueError, "shares memory with an argument"),
        "one another": ({"W": np.zeros((4, 3))}, None, None),
    }
    read_only = np.zeros((4, 3))
    read_only.flags.writeable = False
    cases["read-only"] = ({"W": read_only}, ValueError, "expected a writable")
    shared = np.zeros((2, 4, 3))
    momentum = next(name for name in module.OUT_NAMES if name.startswith("W_m"))
    cases["one another"] = ({"W": shared[0], momentum: shared[0]}, ValueError,
                            "shares memory with an argument or another buffer")
    for name, (out, error, message) in cases.items():
        before = {k: v.copy() for k, v in state.items()}
        with pytest.raises(error, match=message):
            module.step(**state, x=x, y=y, out=out)
        for k in state:
            np.testing.assert_array_equal(state[k], before[k], err_msg=name)


def test_without_buffers_a_shipped_step_writes_into_its_own_last_read_temporaries():
    """Adam's new moments and weights go into arrays the step made and reads there for
    the last time, never into an argument: the state arrays passed in stay unchanged and
    writable or not alike, and the new values share no memory with them or one another."""
    step, *_ = adam_step((4, 3))
    data = batches((4, 3), 3)
    module, state = shipped(step, *data[0])
    source = step.get_concrete_function(*data[0]).source
    for name in ("W", "W_momentum", "W_velocity"):
        assert f"out=out.get('{name}', " in source
    for x, y in data:
        given = {name: np.array(value) for name, value in state.items()}
        for value in given.values():
            value.flags.writeable = False
        loss, new = module.step(**given, x=x, y=y)
        for name in state:
            np.testing.assert_array_equal(given[name], state[name])
        arrays = list(new.values()) + list(given.values())
        assert not any(np.shares_memory(a, b) for k, a in enumerate(arrays)
                       for b in arrays[k + 1:] if a.ndim and b.ndim)
        state.update(new)
