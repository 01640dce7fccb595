"""``tracer.optimizers`` against Keras 3's update formulas, written out here from their
definitions: each optimizer and option, on a fixed sequence of float64 gradients for
a few steps, on variables of several shapes, to 1e-12; and the behaviour around the
updates (missing gradients, mismatches, lazily made state, saving and restoring)."""

import math
import warnings

import numpy as np
import pytest

import tracer
from tracer.optimizers import SGD, Adagrad, Adam, AdamW, RMSprop, schedules

SHAPES = [(), (3,), (2, 3)]
STEPS = 5


def _gradients(shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) * (k + 1) for k in range(STEPS)]


# --- Keras 3's formulas, one step at a time, on plain numpy -------------------------

def _rate(lr, step):
    return lr(step) if callable(lr) else lr


def _clip(grads, clipnorm=None, global_clipnorm=None, clipvalue=None):
    if clipnorm:
        return [g * clipnorm / max(np.sqrt(np.sum(g * g)), clipnorm) for g in grads]
    if global_clipnorm:
        norm = np.sqrt(sum(np.sum(g * g) for g in grads))
        return [g * global_clipnorm * min(1 / norm, 1 / global_clipnorm) for g in grads]
    if clipvalue:
        return [np.clip(g, -clipvalue, clipvalue) for g in grads]
    return grads


def _reference(kind, values, gradient_steps, lr, weight_decay=None, clip=None, **options):
    """The variables after each step, by Keras 3's definitions."""
    values = [np.array(v, dtype=float) for v in values]
    state = [{} for _ in values]
    trajectory = []
    for step, grads in enumerate(gradient_steps):
        grads = _clip(grads, **(clip or {}))
        rate = _rate(lr, step)
        if weight_decay is not None:
            values = [v - v * weight_decay * rate for v in values]
        values = [_step(kind, v, g, s, rate, step, **options)
                  for v, g, s in zip(values, grads, state)]
        trajectory.append([v.copy() for v in values])
    return trajectory


def _step(kind, v, g, s, lr, step, **o):
    if kind == "sgd":
        momentum, nesterov = o.get("momentum", 0.0), o.get("nesterov", False)
        if momentum == 0:
            return v - lr * g
        s["m"] = momentum * s.get("m", 0.0) - lr * g
        return v + (momentum * s["m"] - lr * g if nesterov else s["m"])
    if kind == "adam":
        b1, b2, eps = o.get("beta_1", 0.9), o.get("beta_2", 0.999), o.get("epsilon", 1e-7)
        t = step + 1
        s["m"] = s.get("m", 0.0) + (g - s.get("m", 0.0)) * (1 - b1)
        s["v"] = s.get("v", 0.0) + (g * g - s.get("v", 0.0)) * (1 - b2)
        v_used = s["v"]
        if o.get("amsgrad"):
            s["vhat"] = v_used = np.maximum(s.get("vhat", 0.0), s["v"])
        alpha = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        return v - s["m"] * alpha / (np.sqrt(v_used) + eps)
    if kind == "rmsprop":
        rho, momentum = o.get("rho", 0.9), o.get("momentum", 0.0)
        eps, centered = o.get("epsilon", 1e-7), o.get("centered", False)
        s["v"] = rho * s.get("v", 0.0) + (1 - rho) * g * g
        if centered:
            s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g
            increment = lr * g / np.sqrt(s["v"] - s["a"] ** 2 + eps)
        else:
            increment = lr * g / np.sqrt(s["v"] + eps)
        if momentum > 0:
            s["m"] = momentum * s.get("m", 0.0) + increment
            return v - s["m"]
        return v - increment
    if kind == "adagrad":
        s["acc"] = s.get("acc", o.get("initial_accumulator_value", 0.1)) + g * g
        return v - lr * g / np.sqrt(s["acc"] + o.get("epsilon", 1e-7))
    raise AssertionError(kind)


CLASSES = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop, "adagrad": Adagrad}

CASES = [
    ("sgd", {}, {}), ("sgd", {"momentum": 0.9}, {}),
    ("sgd", {"momentum": 0.8, "nesterov": True}, {}),
    ("sgd", {"momentum": 0.5}, {"clipnorm": 0.7}),
    ("adam", {}, {}), ("adam", {"amsgrad": True}, {}),
    ("adam", {"beta_1": 0.8, "beta_2": 0.99, "epsilon": 1e-5}, {"global_clipnorm": 1.5}),
    ("adam", {}, {"weight_decay": 0.05}),
    ("rmsprop", {}, {}), ("rmsprop", {"centered": True}, {}),
    ("rmsprop", {"momentum": 0.9}, {"clipvalue": 0.5}),
    ("rmsprop", {"momentum": 0.5, "centered": True, "rho": 0.8}, {"weight_decay": 0.01}),
    ("adagrad", {}, {}), ("adagrad", {"initial_accumulator_value": 0.5}, {"clipnorm": 2.0}),
    ("sgd", {}, {"weight_decay": 0.02}), ("sgd", {"momentum": 0.9}, {"global_clipnorm": 2.0}),
    ("adagrad", {}, {"weight_decay": 0.01}), ("adagrad", {}, {"clipvalue": 0.3}),
    ("adamw", {}, {}), ("adamw", {"amsgrad": True}, {"weight_decay": 0.1, "clipnorm": 1.0}),
]
LEARNING_RATES = {
    "float": 0.05,
    "exponential": schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5),
    "piecewise": schedules.PiecewiseConstantDecay([1, 3], [0.1, 0.05, 0.01]),
    "cosine": schedules.CosineDecay(0.1, decay_steps=3, alpha=0.1, warmup_target=0.2,
                                    warmup_steps=2),
    "inverse-time": schedules.InverseTimeDecay(0.1, decay_steps=1, decay_rate=0.5,
                                               staircase=True),
    "callable": lambda step: 0.1 / (1 + step),
}


def _run(optimizer, variables, gradient_steps):
    trajectory = []
    for grads in gradient_steps:
        optimizer.apply_gradients(zip(grads, variables))
        trajectory.append([v.numpy().copy() for v in variables])
    return trajectory


@pytest.mark.parametrize("rate", LEARNING_RATES)
@pytest.mark.parametrize("kind, options, common", CASES,
                         ids=[f"{k}-{o}-{c}" for k, o, c in CASES])
def test_trajectories_follow_keras_formulas(kind, options, common, rate):
    lr = LEARNING_RATES[rate]
    starts = [np.random.default_rng(len(s)).standard_normal(s) for s in SHAPES]
    variables = [tracer.Variable(v, name=f"v{k}") for k, v in enumerate(starts)]
    gradient_steps = list(zip(*[_gradients(s, k) for k, s in enumerate(SHAPES)]))
    optimizer = CLASSES[kind](learning_rate=lr, **options, **common)
    got = _run(optimizer, variables, gradient_steps)
    clip = {k: common[k] for k in ("clipnorm", "global_clipnorm", "clipvalue") if k in common}
    decay = common.get("weight_decay", 0.004 if kind == "adamw" else None)
    want = _reference(kind.replace("adamw", "adam"), starts, gradient_steps, lr, decay, clip,
                      **options)
    for got_step, want_step in zip(got, want):
        for g, w in zip(got_step, want_step):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    assert int(optimizer.iterations.numpy()) == STEPS


def test_adamw_is_adam_with_decoupled_weight_decay_by_default():
    start = np.array([1.0, -2.0, 3.0])
    v = tracer.Variable(start)
    grads = _gradients((3,), 7)
    _run(AdamW(learning_rate=0.01), [v], [[g] for g in grads])
    want = _reference("adam", [start], [[g] for g in grads], 0.01, weight_decay=0.004)
    np.testing.assert_allclose(v.numpy(), want[-1][0], rtol=1e-12)
    with pytest.raises(ValueError, match="weight_decay"):
        AdamW(weight_decay=None)


def test_keras_defaults():
    assert (SGD().learning_rate, Adam().learning_rate, RMSprop().learning_rate,
            Adagrad().learning_rate) == (0.01, 0.001, 0.001, 0.001)
    adam = Adam()
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    assert AdamW().weight_decay == 0.004
    rms = RMSprop()
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
    assert Adagrad().initial_accumulator_value == 0.1
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and "):
        SGD(clipnorm=1.0, clipvalue=1.0)


def test_a_missing_gradient_skips_its_variable_and_warns_once():
    a, b = tracer.Variable([1.0, 2.0], name="a"), tracer.Variable([3.0], name="b")
    optimizer = SGD(0.1)
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['b'\]"):
        optimizer.apply_gradients([(np.ones(2), a), (None, b)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.apply_gradients([(np.ones(2), a), (None, b)])
    np.testing.assert_allclose(a.numpy(), [0.8, 1.8])
    np.testing.assert_allclose(b.numpy(), [3.0])
    assert int(optimizer.iterations.numpy()) == 2


@pytest.mark.parametrize("gradient, what", [(np.ones(3), r"float64\[3\]"),
                                            (np.ones(2, np.float32), r"float32\[2\]")])
def test_a_mismatched_gradient_names_its_variable(gradient, what):
    w = tracer.Variable(np.zeros(2), name="w")
    optimizer = Adam()
    with pytest.raises(ValueError, match=rf"the gradient for variable w is {what}, but the "
                                         r"variable is float64\[2\]"):
        optimizer.apply_gradients([(gradient, w)])
    assert int(optimizer.iterations.numpy()) == 0 and optimizer.variables[2:] == []


def test_state_is_made_lazily_in_each_variables_dtype():
    w32 = tracer.Variable(np.ones((2, 2), np.float32), name="w32")
    w64 = tracer.Variable(np.ones(3), name="w64")
    optimizer = Adam(amsgrad=True)
    assert [v.name for v in optimizer.variables] == ["iteration", "learning_rate"]
    optimizer.apply_gradients([(np.full((2, 2), 0.5, np.float32), w32)])
    optimizer.apply_gradients([(np.ones(3), w64)])
    names = [v.name for v in optimizer.variables[2:]]
    assert names == ["w32_momentum", "w32_velocity", "w32_velocity_hat",
                     "w64_momentum", "w64_velocity", "w64_velocity_hat"]
    assert [v.dtype for v in optimizer.variables[2:]] == [np.float32] * 3 + [np.float64] * 3
    assert w32.dtype == np.float32


@pytest.mark.parametrize("make", [lambda: Adam(0.01, amsgrad=True, clipnorm=1.0),
                                  lambda: RMSprop(schedules.ExponentialDecay(0.1, 2, 0.5),
                                                  momentum=0.9, centered=True),
                                  lambda: SGD(0.1, momentum=0.9, nesterov=True,
                                              weight_decay=0.01),
                                  lambda: Adagrad(0.1)])
def test_saving_and_restoring_continues_the_trajectory_exactly(make, tmp_path):
    starts = [np.linspace(-1, 1, 6).reshape(2, 3), np.array([0.5, -0.5])]
    steps = list(zip(_gradients((2, 3), 1), _gradients((2,), 2)))
    variables = [tracer.Variable(v, name=f"p{k}") for k, v in enumerate(starts)]
    optimizer = make()
    _run(optimizer, variables, steps[:3])
    store = {}
    optimizer.save_own_variables(store)
    np.savez(tmp_path / "state.npz", **store)
    config = optimizer.get_config()
    saved_values = [v.numpy().copy() for v in variables]
    uninterrupted = _run(optimizer, variables, steps[3:])

    restored = [tracer.Variable(v, name=f"p{k}") for k, v in enumerate(saved_values)]
    again = type(optimizer).from_config(config)
    again.build(restored)
    with np.load(tmp_path / "state.npz", allow_pickle=False) as loaded:
        again.load_own_variables(dict(loaded))
    continued = _run(again, restored, steps[3:])
    for u, c in zip(uninterrupted, continued):
        for a, b in zip(u, c):
            np.testing.assert_array_equal(a, b)


def test_restoring_before_building_says_what_to_do():
    w = tracer.Variable(np.ones(2))
    optimizer = Adam()
    optimizer.apply_gradients([(np.ones(2), w)])
    store = {}
    optimizer.save_own_variables(store)
    with pytest.raises(ValueError, match=r"call build\(var_list\)"):
        Adam().load_own_variables(store)


def test_a_callable_learning_rate_cannot_be_written_into_a_config():
    with pytest.raises(ValueError, match="LearningRateSchedule"):
        SGD(lambda: 0.1).get_config()
    assert SGD(lambda: 0.25).learning_rate == 0.25


def test_updates_record_on_no_tape_and_keep_no_tensors():
    w = tracer.Variable(np.array([1.0, 2.0]), name="w")
    optimizer = Adam(0.1)
    with tracer.GradientTape(persistent=True) as outer:
        with tracer.GradientTape() as tape:
            loss = np.sum(w ** 2)
        grads = tape.gradient(loss, [w])  # (recorded on the outer tape)
        before = len(outer.graph)
        optimizer.apply_gradients(zip(grads, [w]))
        assert len(outer.graph) == before
    for variable in optimizer.variables:
        assert isinstance(variable, tracer.Variable)
        assert type(variable._value._value) is np.ndarray
    np.testing.assert_allclose(w.numpy(), [0.9, 1.9], rtol=1e-6)


def test_minimize_takes_a_callable_or_a_value_and_its_tape():
    w = tracer.Variable(np.array([1.0, -1.0]), name="w")
    optimizer = SGD(0.25)
    optimizer.minimize(lambda: np.sum(w ** 2), [w])
    np.testing.assert_allclose(w.numpy(), [0.5, -0.5])
    with tracer.GradientTape() as tape:
        loss = np.sum(w ** 2)
    optimizer.minimize(loss, lambda: [w], tape=tape)
    np.testing.assert_allclose(w.numpy(), [0.25, -0.25])
    with pytest.raises(ValueError, match="`tape` is required"):
        optimizer.minimize(np.sum(w ** 2), [w])


def test_only_variables_are_updated():
    with pytest.raises(TypeError, match="optimizers update tracer.Variable objects; got Tensor"):
        SGD().apply_gradients([(np.ones(2), tracer.constant(np.ones(2)))])


@pytest.mark.parametrize("schedule, expected", [
    (schedules.ExponentialDecay(1.0, 10, 0.5), [1.0, 0.5 ** 0.5, 0.5, 0.25]),
    (schedules.ExponentialDecay(1.0, 10, 0.5, staircase=True), [1.0, 1.0, 0.5, 0.25]),
    (schedules.PiecewiseConstantDecay([5, 10], [1.0, 0.5, 0.1]), [1.0, 1.0, 0.5, 0.1]),
    (schedules.InverseTimeDecay(1.0, 10, 1.0), [1.0, 1 / 1.5, 0.5, 1 / 3]),
    (schedules.CosineDecay(1.0, 20, alpha=0.0), [1.0, 0.5 * (1 + math.cos(math.pi / 4)),
                                                 0.5, 0.0]),
])
def test_schedules_at_steps_0_5_10_20(schedule, expected):
    np.testing.assert_allclose([schedule(s) for s in (0, 5, 10, 20)], expected, rtol=1e-12)
    again = schedules.deserialize(schedules.serialize(schedule))
    assert [again(s) for s in (0, 5, 10, 20)] == [schedule(s) for s in (0, 5, 10, 20)]


def test_weight_decay_leaves_out_the_excluded_variables():
    w, bias = tracer.Variable(np.ones(2), name="w"), tracer.Variable(np.ones(2), name="bias")
    kept = tracer.Variable(np.ones(2), name="kept")
    optimizer = SGD(0.5, weight_decay=0.1)
    optimizer.exclude_from_weight_decay(var_list=[kept], var_names=["bias"])
    optimizer.apply_gradients([(np.zeros(2), v) for v in (w, bias, kept)])
    np.testing.assert_allclose([w.numpy()[0], bias.numpy()[0], kept.numpy()[0]],
                               [1 - 0.1 * 0.5, 1.0, 1.0])


def test_a_learning_rate_can_be_set_unless_it_is_a_schedule():
    optimizer = SGD(0.1)
    optimizer.learning_rate = 0.3
    assert optimizer.learning_rate == 0.3 and optimizer.get_config()["learning_rate"] == 0.3
    with pytest.raises(TypeError, match="LearningRateSchedule"):
        SGD(schedules.ExponentialDecay(0.1, 2, 0.5)).learning_rate = 0.3
