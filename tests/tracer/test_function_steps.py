"""Graph mode runs training steps as eager mode does: ``@tracer.function`` on a step with a
tape, its gradient and an optimizer update gives the same losses and variables, step
after step, for every optimizer, clipping, weight decay and schedule."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tracer
from tracer import optimizers

SCHEDULES = optimizers.schedules

CONFIGURATIONS = {
    "SGD": lambda: optimizers.SGD(0.1),
    "SGD momentum": lambda: optimizers.SGD(0.1, momentum=0.9),
    "SGD Nesterov": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "Adam": lambda: optimizers.Adam(0.01),
    "Adam amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
    "AdamW": lambda: optimizers.AdamW(0.01),
    "RMSprop": lambda: optimizers.RMSprop(0.01),
    "RMSprop centered, momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5,
                                                             centered=True),
    "Adagrad": lambda: optimizers.Adagrad(0.1),
    "Adam clipnorm": lambda: optimizers.Adam(0.01, clipnorm=0.05),
    "Adam global_clipnorm": lambda: optimizers.Adam(0.01, global_clipnorm=0.05),
    "SGD clipvalue": lambda: optimizers.SGD(0.1, clipvalue=0.01),
    "SGD weight decay": lambda: optimizers.SGD(0.1, weight_decay=0.01),
    "AdamW excluding b": lambda: _excluding_bias(optimizers.AdamW(0.01, weight_decay=0.1)),
    "SGD ExponentialDecay": lambda: optimizers.SGD(
        SCHEDULES.ExponentialDecay(0.1, 3, 0.5, staircase=True)),
    "SGD PiecewiseConstantDecay": lambda: optimizers.SGD(
        SCHEDULES.PiecewiseConstantDecay([3, 7], [0.1, 0.05, 0.01])),
    "Adam CosineDecay": lambda: optimizers.Adam(SCHEDULES.CosineDecay(0.01, 10, alpha=0.1)),
    "Adam CosineDecay, warm-up": lambda: optimizers.Adam(
        SCHEDULES.CosineDecay(0.01, 10, warmup_target=0.1, warmup_steps=5)),
    "Adam InverseTimeDecay": lambda: optimizers.Adam(SCHEDULES.InverseTimeDecay(0.01, 3, 0.5)),
    "SGD rate as a function of the step": lambda: optimizers.SGD(lambda step: 0.1 / (1 + step)),
}


def _excluding_bias(optimizer):
    optimizer.exclude_from_weight_decay(var_names=["b"])
    return optimizer


def steps(make_optimizer, compiled, count=20, shape=(4, 3), seed=0):
    """Losses, then every variable (the model's and the optimizer's), after ``count`` steps
    of a small tanh regression, eager or under ``tracer.function``."""
    rng = np.random.default_rng(seed)
    weights = [tracer.Variable(rng.normal(size=(shape[1], 2)), name="W"),
               tracer.Variable(np.zeros(2), name="b")]
    optimizer = make_optimizer()

    def step(x, y):
        with tracer.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ weights[0] + weights[1]) - y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss
    step = tracer.function(step) if compiled else step
    losses = [np.asarray(step(rng.normal(size=shape), rng.normal(size=(shape[0], 2))))
              for _ in range(count)]
    if compiled:
        assert step.experimental_get_tracing_count() == 1
    return [np.array(losses)] + [np.array(v.numpy()) for v in weights + optimizer.variables]


@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_twenty_compiled_steps_equal_twenty_eager_ones(name):
    eager = steps(CONFIGURATIONS[name], compiled=False)
    compiled = steps(CONFIGURATIONS[name], compiled=True)
    assert len(eager) == len(compiled)
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=0)


@pytest.mark.parametrize("shape", [(1, 3), (5, 1), (8, 4)])
def test_the_equality_holds_on_several_shapes(shape):
    make = CONFIGURATIONS["Adam amsgrad"]
    for a, b in zip(steps(make, False, 5, shape), steps(make, True, 5, shape)):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=0)


def test_the_step_gradient_matches_finite_differences():
    """What the compiled step computes inside is a gradient: with SGD at rate 1, the change
    of the weights is minus the gradient, which central differences confirm."""
    rng = np.random.default_rng(3)
    W0 = rng.normal(size=(3, 2))
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    W = tracer.Variable(W0, name="W")
    optimizer = optimizers.SGD(1.0)

    @tracer.function
    def step(x, y):
        with tracer.GradientTape() as tape:
            loss = np.sum(np.sin(x @ W) * y)
        optimizer.apply_gradients([(tape.gradient(loss, W), W)])
        return loss

    step(x, y)
    gradient = W0 - W.numpy()
    eps = 1e-6
    numeric = np.zeros_like(W0)
    for index in np.ndindex(W0.shape):
        step_ = np.zeros_like(W0)
        step_[index] = eps
        numeric[index] = (np.sum(np.sin(x @ (W0 + step_)) * y)
                          - np.sum(np.sin(x @ (W0 - step_)) * y)) / (2 * eps)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-7, atol=1e-9)


def test_minimize_is_part_of_the_graph():
    results = []
    for compiled in (False, True):
        rng = np.random.default_rng(1)
        W = tracer.Variable(np.ones((3, 1)), name="W")
        optimizer = optimizers.Adam(0.1)

        def step(x):
            return optimizer.minimize(lambda: np.sum((x @ W) ** 2), [W])
        step = tracer.function(step) if compiled else step
        for _ in range(5):
            step(rng.normal(size=(2, 3)))
        results.append((W.numpy(), int(optimizer.iterations.numpy())))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    assert results[0][1] == results[1][1] == 5


def test_the_written_step_module_reproduces_five_steps_with_numpy_alone(tmp_path):
    """The module ships: run in a fresh interpreter that imports numpy and nothing of
    tapegen, five steps from the same state give the Function's losses and variables."""
    rng = np.random.default_rng(2)
    W = tracer.Variable(rng.normal(size=(3, 2)), name="W")
    b = tracer.Variable(np.zeros(2), name="b")
    optimizer = optimizers.Adam(0.01)

    @tracer.function
    def train_step(x, y):
        with tracer.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ W + b) - y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, [W, b]), [W, b]))
        return loss

    batches = [(rng.normal(size=(4, 3)), rng.normal(size=(4, 2))) for _ in range(5)]
    concrete = train_step.get_concrete_function(*batches[0])
    path = concrete.write(str(tmp_path / "train_step.py"))
    np.savez(tmp_path / "state.npz", **{name: variable.numpy()
                                        for name, variable in concrete.variables.items()})
    np.savez(tmp_path / "batches.npz", *[a for batch in batches for a in batch])
    losses = [float(train_step(x, y)) for x, y in batches]
    script = textwrap.dedent(f"""
        import sys, importlib.util
        import numpy as np
        spec = importlib.util.spec_from_file_location("train_step", {path!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert not any(name.partition(".")[0] in ("tracer", "ir", "codegen", "networkx")
                       for name in sys.modules)
        data = np.load("batches.npz")
        arrays = [data[f"arr_{{k}}"] for k in range(10)]
        state = dict(np.load("state.npz"))
        losses = []
        for k in range(5):
            loss, new = module.train_step(**state, x=arrays[2 * k], y=arrays[2 * k + 1])
            state.update(new)
            losses.append(float(loss))
        np.savez("out.npz", losses=losses, **state)
        """)
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    out = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(out["losses"], losses, rtol=1e-12)
    for name, variable in concrete.variables.items():
        np.testing.assert_allclose(out[name], variable.numpy(), rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", ["SGD momentum", "Adam amsgrad", "Adam CosineDecay, warm-up"])
def test_jit_compile_takes_the_steps_the_numpy_module_takes(name):
    """``jit_compile=True`` runs the step's array-API module under ``jax.jit``."""
    pytest.importorskip("jax")
    pytest.importorskip("array_api_compat")

    def run(jit_compile):
        rng = np.random.default_rng(0)
        W = tracer.Variable(rng.normal(size=(3, 2)), name="W")
        optimizer = CONFIGURATIONS[name]()

        @tracer.function(jit_compile=jit_compile)
        def step(x):
            with tracer.GradientTape() as tape:
                loss = np.sum(np.tanh(x @ W) ** 2)
            optimizer.apply_gradients([(tape.gradient(loss, W), W)])
            return loss
        losses = [float(step(rng.normal(size=(4, 3)))) for _ in range(6)]
        return losses, W.numpy(), [v.numpy() for v in optimizer.variables]

    numpy_steps, jax_steps = run(False), run(True)
    np.testing.assert_allclose(jax_steps[0], numpy_steps[0], rtol=1e-12)
    np.testing.assert_allclose(jax_steps[1], numpy_steps[1], rtol=1e-12)
    for a, b in zip(numpy_steps[2], jax_steps[2]):
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_jit_compile_without_jax_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    f = tracer.function(lambda x: x * 2, jit_compile=True)
    with pytest.raises(ImportError, match=r"pip install 'tapegen\[jax\]'"):
        f(np.ones(2))


def test_values_a_compiled_step_leaves_on_the_device_read_as_numpy():
    pytest.importorskip("jax")
    pytest.importorskip("array_api_compat")
    v = tracer.Variable(np.ones(3), name="v")

    @tracer.function(jit_compile=True)
    def step(x):
        v.assign(v * x + 1)
        return np.sum(v)

    assert float(step(np.full(3, 2.0))) == 9.0
    assert float(step(np.full(3, 2.0))) == 21.0  # the device value, taken as it is
    assert type(v.numpy()) is np.ndarray
    np.testing.assert_allclose(v.numpy(), [7.0, 7.0, 7.0])
    v.assign(np.zeros(3))  # an eager assignment in between is what the next call reads
    assert float(step(np.ones(3))) == 3.0
    with tracer.GradientTape() as tape:
        loss = np.sum(v * v)
    np.testing.assert_allclose(tape.gradient(loss, v).numpy(), [2.0, 2.0, 2.0])


def test_a_step_that_fails_after_its_updates_assigns_nothing():
    v = tracer.Variable(np.ones(2), name="v")

    @tracer.function
    def step(x):
        v.assign(v + x)
        return np.exp(x * 1000.0)

    step(np.zeros(2))
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            step(np.ones(2))
    np.testing.assert_array_equal(v.numpy(), [1.0, 1.0])
