"""``tracer.scipy.integrate.odeint``: scipy's values, and gradients by the adjoint method
checked against closed forms and finite differences, eagerly, at second order and in
generated code; the gradient keeps no solver step's values."""

import tracemalloc
import warnings

import numpy as np
import pytest

import codegen
import tracer

scipy_integrate = pytest.importorskip("scipy.integrate")
import scipy.linalg  # noqa: E402

from tracer.scipy.integrate import odeint  # noqa: E402

TIGHT = {"rtol": 1e-10, "atol": 1e-10}
TIMES = np.linspace(0.0, 2.0, 5)
A = np.array([[-0.5, 1.0], [-1.0, -0.3]])


def decay(y, t, k):
    return -k * y


def pendulum(y, t, b, c):
    return np.stack([y[1], -b * y[1] - c * np.sin(y[0])])


def pendulum_numpy(y, t, b, c):
    return np.array([y[1], -b * y[1] - c * np.sin(y[0])])


def gradients(loss, values):
    """``loss(*values)`` and its gradient with respect to each of ``values``, eagerly."""
    tensors = [tracer.constant(v) for v in values]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        result = loss(*tensors)
    return [g.numpy() for g in tape.gradient(result, tensors)]


def differences(loss, values, position, step=1e-6):
    """The central finite differences of ``loss`` in ``values[position]``."""
    base = [np.array(v, dtype=float) for v in values]
    found = np.zeros_like(base[position])
    for index in np.ndindex(found.shape):
        shifted = []
        for sign in (1, -1):
            moved = [v.copy() for v in base]
            moved[position][index] += sign * step
            shifted.append(loss(*moved))
        found[index] = (shifted[0] - shifted[1]) / (2 * step)
    return found


def pendulum_loss(y0, t, b, c):
    ys = odeint(pendulum, y0, t, args=(b, c), **TIGHT)
    return np.sum(np.sin(ys) * np.arange(1.0, 1.0 + ys.size).reshape(ys.shape))


PENDULUM = [np.array([np.pi - 0.1, 0.0]), np.linspace(0.0, 3.0, 4), 0.25, 5.0]


# --- values -------------------------------------------------------------------------

def test_decay_matches_its_closed_form_and_plain_arrays_stay_arrays():
    ys = odeint(decay, np.array([1.0, 2.0]), TIMES, args=(0.7,), **TIGHT)
    assert type(ys) is np.ndarray and ys.shape == (5, 2)
    np.testing.assert_allclose(ys, np.exp(-0.7 * TIMES)[:, None] * [1.0, 2.0], rtol=1e-9)


def test_linear_system_of_any_shape_matches_the_matrix_exponential():
    y0 = np.array([[1.0, 0.5], [-0.2, 2.0]])
    ys = odeint(lambda y, t: A @ y, y0, TIMES, **TIGHT)
    expected = [scipy.linalg.expm(A * t) @ y0 for t in TIMES]
    np.testing.assert_allclose(ys, expected, rtol=1e-8, atol=1e-10)


def test_pendulum_matches_scipy_and_tfirst_swaps_the_arguments():
    y0, t, b, c = PENDULUM
    expected = scipy_integrate.odeint(pendulum_numpy, y0, t, args=(b, c), rtol=1e-12,
                                      atol=1e-12)
    np.testing.assert_allclose(odeint(pendulum, y0, t, args=(b, c), **TIGHT), expected,
                               atol=1e-8)
    swapped = odeint(lambda s, y, b, c: pendulum(y, s, b, c), y0, t, args=(b, c),
                     tfirst=True, **TIGHT)
    np.testing.assert_allclose(swapped, expected, atol=1e-8)


def test_time_dependent_dynamics_and_one_time():
    ys = odeint(lambda y, t: np.cos(t) * np.ones_like(y), [0.0], TIMES, **TIGHT)
    np.testing.assert_allclose(ys[:, 0], np.sin(TIMES), atol=1e-9)
    np.testing.assert_allclose(odeint(decay, [3.0], [0.5], args=(1.0,)), [[3.0]])


def test_repeated_times_give_repeated_values():
    ys = odeint(decay, [1.0], [0.0, 1.0, 1.0, 2.0], args=(1.0,), **TIGHT)
    np.testing.assert_allclose(ys[:, 0], np.exp(-np.array([0.0, 1.0, 1.0, 2.0])), rtol=1e-9)


def test_full_output_counts_the_steps_and_hmax_bounds_them():
    _, free = odeint(decay, [1.0], TIMES, args=(1.0,), full_output=True)
    _, bounded = odeint(decay, [1.0], TIMES, args=(1.0,), full_output=True, hmax=0.01)
    assert np.all(np.diff(free["nst"]) >= 0) and bounded["nst"][-1] >= 200 > free["nst"][-1]


# --- first-order gradients ----------------------------------------------------------

def test_decay_gradients_match_the_closed_form():
    def loss(y0, k, t):
        return np.sum(odeint(decay, y0, t, args=(k,), **TIGHT) ** 2)

    y0, k = np.array([1.0, 2.0]), 0.7
    d_y0, d_k, d_t = gradients(loss, [y0, k, TIMES])
    e = np.exp(-2 * k * TIMES)
    np.testing.assert_allclose(d_y0, 2 * y0 * np.sum(e), rtol=1e-8)
    np.testing.assert_allclose(d_k, np.sum(y0 ** 2) * np.sum(-2 * TIMES * e), rtol=1e-8)
    moved = np.sum(y0 ** 2) * -2 * k * e[1:]  # each y_i depends on t_i - t_0
    np.testing.assert_allclose(d_t, [-np.sum(moved), *moved], rtol=1e-7)


@pytest.mark.parametrize("position", range(4))
def test_pendulum_gradients_match_finite_differences(position):
    found = gradients(pendulum_loss, PENDULUM)[position]
    expected = differences(lambda *v: pendulum_loss(*v), PENDULUM, position)
    np.testing.assert_allclose(found, expected, rtol=1e-5, atol=1e-6)


def test_gradients_reach_what_func_closes_over_and_variables():
    w = tracer.constant(np.array([0.3, -0.2]))
    k = tracer.Variable(0.9, name="k")
    y0 = np.array([1.0, 0.5])
    with tracer.GradientTape() as tape:
        tape.watch(w)
        ys = odeint(lambda y, t: -k * y + w, y0, TIMES, **TIGHT)
        loss = np.sum(ys[-1])
    d_w, d_k = tape.gradient(loss, [w, k])

    def plain(w_value, k_value):
        return np.sum(odeint(lambda y, t: -k_value * y + w_value, y0, TIMES, **TIGHT)[-1])

    np.testing.assert_allclose(d_w.numpy(), differences(plain, [w.numpy(), 0.9], 0), rtol=1e-6)
    np.testing.assert_allclose(d_k.numpy(), differences(plain, [w.numpy(), 0.9], 1), rtol=1e-6)


def test_a_float32_state_and_dynamics_free_of_y():
    """y = y0 + sin(t) - sin(t0): the times' gradients, and y0's in its own dtype."""
    y0 = tracer.constant(np.array([1.0, 2.0], np.float32))
    t = tracer.constant(TIMES)
    with tracer.GradientTape() as tape:
        tape.watch([y0, t])
        loss = np.sum(odeint(lambda y, s: np.cos(s) * np.ones_like(y), y0, t, **TIGHT))
    d_y0, d_t = tape.gradient(loss, [y0, t])
    assert d_y0.dtype == np.float32
    np.testing.assert_allclose(d_y0.numpy(), [5.0, 5.0])
    moved = 2 * np.cos(TIMES[1:])
    np.testing.assert_allclose(d_t.numpy(), [-2 * 4 * np.cos(TIMES[0]), *moved], rtol=1e-8)


def test_one_time_gives_the_upstream_gradient_to_y0_and_none_to_t():
    d_y0, d_t = gradients(lambda y0, t: np.sum(odeint(decay, y0, t, args=(1.0,)) ** 2),
                          [np.array([1.0, 2.0]), np.array([0.5])])
    np.testing.assert_allclose(d_y0, [2.0, 4.0])
    np.testing.assert_allclose(d_t, [0.0])


def test_forward_mode_matches_the_closed_form():
    k = tracer.constant(0.7)
    with tracer.ForwardAccumulator(k, np.array(1.0)) as accumulator:
        ys = odeint(decay, np.array([1.0, 2.0]), TIMES, args=(k,), **TIGHT)
    expected = -TIMES[:, None] * np.exp(-0.7 * TIMES)[:, None] * [1.0, 2.0]
    np.testing.assert_allclose(accumulator.jvp(ys), expected, rtol=1e-7, atol=1e-12)


def test_jacobian_row_by_row_but_not_vectorised():
    """The backward solver's steps depend on the cotangent, so a batch of cotangents
    cannot share them: the vectorised ``tape.jacobian`` refuses and says what works,
    TensorFlow's ``experimental_use_pfor=False``, one gradient per row."""
    y0 = tracer.constant(np.array([1.0, 2.0]))
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(y0)
        final = odeint(lambda y, t: A @ y, y0, TIMES, **TIGHT)[-1]
    expected = scipy.linalg.expm(A * TIMES[-1])
    rows = [tape.gradient(final, y0, output_gradients=row).numpy() for row in np.eye(2)]
    np.testing.assert_allclose(rows, expected, rtol=1e-8)
    np.testing.assert_allclose(tape.jacobian(final, y0, experimental_use_pfor=False),
                               expected, rtol=1e-8)
    with pytest.raises(NotImplementedError, match="experimental_use_pfor=False"):
        tape.jacobian(final, y0)


# --- accuracy at scipy's default tolerances ---------------------------------------------

def drift(y, t, shift, offset):
    """autograd's test of its odeint: dynamics reading ``t``, ``y`` and two arguments."""
    return -np.sqrt(t) - y + shift - np.mean((y + offset) ** 2)


def drift_ivp(t, y, shift, offset):
    return drift(y, t, shift, offset)


DRIFT_RNG = np.random.default_rng(7)
DRIFT = [DRIFT_RNG.standard_normal(3), np.linspace(0.1, 0.2, 4),
         DRIFT_RNG.standard_normal(3), DRIFT_RNG.standard_normal(3)]
DRIFT_WEIGHTS = DRIFT_RNG.standard_normal((4, 3))


def drift_loss(y0, t, shift, offset, **tolerances):
    return np.sum(DRIFT_WEIGHTS * odeint(drift, y0, t, args=(shift, offset), **tolerances))


def tight_drift_loss(y0, t, shift, offset):
    """The loss from scipy's eighth-order solver at a tolerance near the rounding."""
    solved = scipy_integrate.solve_ivp(drift_ivp, (t[0], t[-1]), y0, method="DOP853", t_eval=t,
                                       args=(shift, offset), rtol=1e-13, atol=1e-13)
    return np.sum(DRIFT_WEIGHTS * solved.y.T)


def extrapolated_differences(loss, values, position, step=1e-3):
    """Central differences at ``step`` and ``2 step`` combined (Richardson) to fourth order."""
    near, far = (differences(loss, values, position, h) for h in (step, 2 * step))
    return (4 * near - far) / 3


def relative_errors(found, expected):
    return [np.max(np.abs(f - e)) / np.max(np.abs(e)) for f, e in zip(found, expected)]


def test_the_gradient_at_default_tolerances_is_as_accurate_as_the_values():
    """At scipy's default ``rtol = atol = 1.49e-8`` every gradient is within 1e-8 of the
    differences of a solve 100,000 times tighter (interpolating the output times made
    them 1e-7 off)."""
    found = gradients(drift_loss, DRIFT)
    expected = [extrapolated_differences(tight_drift_loss, DRIFT, k) for k in range(4)]
    assert max(relative_errors(found, expected)) < 1e-8


DRIFT_DIRECTION = [DRIFT_RNG.standard_normal(3), DRIFT_RNG.standard_normal(4)]
DRIFT_PROBE = [DRIFT_RNG.standard_normal(3), DRIFT_RNG.standard_normal(4)]


def along(gradient, direction):
    return sum(np.sum(g * d) for g, d in zip(gradient, direction))


def test_second_derivatives_at_default_tolerances_are_as_accurate_as_the_values():
    """The second order differentiates the backward solves, and where they end: at
    scipy's default tolerances its derivative in ``y0`` and ``t`` along a probe is within
    1e-7 (with interpolated output times it was 4e-5 off).  The reference: central
    differences along the probe of the gradient of a tight solve (itself checked
    against differences above)."""
    y0, t, shift, offset = [tracer.constant(v) for v in DRIFT]
    with tracer.GradientTape() as outer:
        outer.watch([y0, t])
        with tracer.GradientTape() as inner:
            inner.watch([y0, t])
            loss = drift_loss(y0, t, shift, offset)
        slope = along(inner.gradient(loss, [y0, t]), DRIFT_DIRECTION)
    found = along([g.numpy() for g in outer.gradient(slope, [y0, t])], DRIFT_PROBE)

    def tight_slope(step):
        moved = [v + step * p for v, p in zip(DRIFT[:2], DRIFT_PROBE)] + DRIFT[2:]
        tight = gradients(lambda *v: drift_loss(*v, rtol=1e-12, atol=1e-12), moved)
        return along(tight[:2], DRIFT_DIRECTION)

    near, far = [(tight_slope(h) - tight_slope(-h)) / (2 * h) for h in (1e-3, 2e-3)]
    expected = (4 * near - far) / 3
    assert abs(found - expected) < 1e-7 * abs(expected)


# --- second order --------------------------------------------------------------------

def test_second_derivative_through_nested_tapes():
    k = tracer.constant(0.7)
    y0 = np.array([1.0, 2.0])
    with tracer.GradientTape() as outer:
        outer.watch(k)
        with tracer.GradientTape() as inner:
            inner.watch(k)
            loss = np.sum(odeint(decay, y0, TIMES, args=(k,), **TIGHT) ** 2)
        d_k = inner.gradient(loss, k)
    d2_k = outer.gradient(d_k, k)
    expected = np.sum(y0 ** 2) * np.sum(4 * TIMES ** 2 * np.exp(-1.4 * TIMES))
    np.testing.assert_allclose(d2_k.numpy(), expected, rtol=1e-6)


# --- generated code -------------------------------------------------------------------

def _recorded_pendulum():
    y0, c = tracer.constant(PENDULUM[0], name="y0"), tracer.constant(5.0, name="c")
    b = tracer.Variable(0.25, name="b")
    tape = tracer.GradientTape(persistent=True)
    with tape:
        tape.watch([y0, c])
        ys = odeint(lambda y, t, c: pendulum(y, t, b, c), y0, PENDULUM[1], args=(c,), **TIGHT)
        loss = np.sum(ys[1:] ** 2)
    return tape, loss, [y0, c, b]


@pytest.mark.parametrize("target", ["numpy", "array_api"])
def test_generated_gradient_matches_eager(target):
    tape, loss, sources = _recorded_pendulum()
    eager = [g.numpy() for g in tape.gradient(loss, sources)]
    source = codegen.gradient_source(tape, loss, sources, target=target)
    if target == "numpy":
        imports = [line for line in source.splitlines() if line.startswith(("import", "from"))]
        assert imports == ["import numpy as np"] and "while True:" in source
    found = codegen.load(source).gradient(*[s.numpy() for s in sources])
    for f, e in zip(found, eager):
        np.testing.assert_allclose(f, e, rtol=1e-12)


# --- memory -----------------------------------------------------------------------------

def test_recorded_loops_keep_no_step_values():
    tape, loss, _ = _recorded_pendulum()
    loops = [node for node in _all_nodes(tape.graph) if node.op == "while_loop"]
    assert loops and not any(node.params["keep"] for node in loops)


def _all_nodes(graph):
    for node in graph:
        yield node
        for value in node.params.values():
            if hasattr(value, "graph") and hasattr(value, "carries"):
                yield from _all_nodes(value.graph)


def oscillators(y, t, frequencies):
    return np.stack([y[1], -frequencies ** 2 * y[0] - 0.1 * y[1]])


def _gradient_peak(span, size=1000):
    """The peak memory of recording ``odeint`` and taking a gradient through it (after a
    first run, which fills caches), and the solver's steps."""
    frequencies = np.linspace(1.0, 2.0, size)

    def run():
        y0 = tracer.constant(np.ones((2, size)))
        with tracer.GradientTape() as tape:
            tape.watch(y0)
            ys, info = odeint(oscillators, y0, [0.0, span], args=(frequencies,),
                              full_output=True)
            loss = np.sum(ys[-1])
        tape.gradient(loss, y0)
        return info["nst"][-1]

    run()
    tracemalloc.start()
    steps = run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, steps


def test_gradient_memory_does_not_grow_with_the_steps():
    (short, few), (long, many) = _gradient_peak(1.0), _gradient_peak(10.0)
    assert many > 5 * few and long < 1.2 * short


# --- errors -------------------------------------------------------------------------------

def test_refusals_say_what_is_wrong():
    with pytest.raises(ValueError, match="non-decreasing"):
        odeint(decay, [1.0], [1.0, 0.0], args=(1.0,))
    with pytest.raises(ValueError, match="1-D"):
        odeint(decay, [1.0], [[0.0, 1.0]], args=(1.0,))
    with pytest.raises(ValueError, match="y's shape"):
        odeint(lambda y, t: np.sum(y), [1.0, 2.0], TIMES)
    with pytest.raises(TypeError, match="real and imaginary parts"):
        odeint(decay, [1.0j], TIMES, args=(1.0,))


def test_too_few_steps_give_nan_and_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ys = odeint(decay, [1.0], TIMES, args=(1.0,), mxstep=2, **TIGHT)
    assert np.isnan(ys[-1]).all() and any("mxstep" in str(w.message) for w in caught)


def test_a_while_loop_in_a_recomputed_scan_differentiates_at_every_trip_count():
    """A scan's reverse loop over a while loop's steps runs as many steps as that run
    took, which differ from step to step (what a second order through odeint meets)."""
    times = np.array([0.0, 0.3, 1.0])

    def loss(k):
        def interval(carry, target):
            carry = tracer.while_loop(lambda y, t: t < target,
                                      lambda y, t: (y - 0.01 * k * y, t + 0.01), carry)
            return carry, carry[0]

        start = (np.array([1.0, 2.0]), np.asarray(0.0))
        _, ys = tracer.scan(interval, start, tracer.constant(times[1:]), checkpoint="recompute")
        return np.sum(ys ** 2)

    (found,) = gradients(loss, [0.7])
    np.testing.assert_allclose(found, differences(loss, [0.7], 0), rtol=1e-6)
