"""``tracer.scipy.integrate.odeint``: scipy's ``odeint``, differentiated by the adjoint method.

The design follows ``jax.experimental.ode``.  The solver is an adaptive
Dormand–Prince 5(4) Runge–Kutta method with error control, written with
tapegen's loops: a ``scan`` over the output times whose body is a
``while_loop`` of steps, so a recording (and a generated module) holds one
loop whatever the number of steps, and the forward keeps no step's values.
A step that would pass an output time is shortened to end on it (where
``jax.experimental.ode`` interpolates), so that values, and their derivatives
in the times, are as accurate as the steps.

Its gradient is not the reverse of those loops (which would keep every step)
but the adjoint sensitivity method: the gradient function integrates the
augmented system ``[y, a, a_t, a_theta]`` backwards from each output time to
the one before, with ``a' = -a df/dy``, ``a_theta' = -a df/dtheta``, adding
the upstream cotangent at each output time, with the same solver and
tolerances.  Its memory does not grow with the number of steps.  ``func`` is
traced once into a graph; its vector-Jacobian product is that graph's adjoint
(``ir.adjoint``) evaluated inside the backward loop.

The gradient function is itself traced once, as a graph, and recorded with
the value as a ``custom_vjp`` node (``ir.primitives.custom_rules``), so:

- gradients reach ``y0``, ``t``, every tensor in ``args`` and every tensor or
  variable ``func`` closes over;
- generated code (numpy and array API targets) writes the adjoint loops out
  like any other loop;
- a second order (nested tapes, ``hvp_source``) differentiates the adjoint
  loops themselves, through their steps, so its memory does grow with them;
- forward mode differentiates the solver's loops (forward sensitivities);
- a vectorised Jacobian is refused: the backward solver's steps depend on the
  cotangent, so a batch of cotangents cannot share one loop.  Take one
  gradient per row (``tape.jacobian(..., experimental_use_pfor=False)``), or
  use forward mode.

This was chosen over a primitive calling ``scipy.integrate.odeint`` (LSODA)
whose rule would build the augmented dynamics as a body: every pass that
walks graphs (listings, JSON, batching, forward mode, code generation for
both targets) already knows loops, and would have had to learn that
primitive.  Values match scipy's within the tolerances, not to the last
digit: the methods differ.
"""

import warnings
from collections import namedtuple

import numpy as np
from numpy import trapezoid  # noqa: F401  (scipy's name; a tensor reaches tapegen's np.trapezoid)

from ir.autodiff.adjoint import adjoint
from ir.evaluate import evaluate
from ir.loops.body import Body
from ir.primitives import while_loop as while_primitive
from ir.primitives.custom_rules import custom_vjp
from ir.primitives.results import results_of
from tracer.loops.control_flow import scan
from tracer.core import Tensor, read, tracked_by_a_tape, value_of
from tracer.loops.tracing import trace_body
from tracer.state import active_recordings
from tracer.variable import Variable

MAXIMUM_STEPS = 10_000
"""Steps between two output times when ``mxstep`` is 0 (scipy's LSODA takes 500, but
its steps are longer than an explicit method's)."""

_Control = namedtuple("_Control", "rtol atol mxstep hmax h0")

# Dormand–Prince 5(4): the nodes, the stages' weights, the solution's and the error's.
_ALPHA = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_BETA = ((1 / 5,),
         (3 / 40, 9 / 40),
         (44 / 45, -56 / 15, 32 / 9),
         (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
         (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
         (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
_ERROR = (35 / 384 - 1951 / 21600, 0.0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
          -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1 / 60)


def odeint(func, y0, t, args=(), full_output=False, rtol=1.49012e-8, atol=1.49012e-8, mxstep=0,
           hmax=0.0, h0=0.0, tfirst=False):
    """``y`` at each time of ``t`` where ``dy/dt = func(y, t, *args)`` and ``y(t[0]) = y0``:
    an array of shape ``(len(t), *y0.shape)``, as ``scipy.integrate.odeint`` gives.

    ``y0`` may have any shape; ``t`` is a 1-D non-decreasing sequence.  ``mxstep``
    bounds the steps between two output times (0: ``MAXIMUM_STEPS``); results
    past a time it could not reach are NaN.  ``hmax`` bounds a step (0: none),
    ``h0`` sets the first (0: chosen from ``func``).  Gradients (adjoint method)
    reach ``y0``, ``t``, the tensors in ``args`` and what ``func`` closes over.
    With ``full_output``, returns ``(y, {"nst": ...})``: as scipy's, the cumulative
    number of steps (here those tried, rejected ones included) to each time after
    the first.
    """
    control = _Control(float(rtol), float(atol), int(mxstep) or MAXIMUM_STEPS,
                       float(hmax) or np.inf, float(h0))
    y0, t = _checked_state(y0), _checked_times(t)
    dynamics = _Dynamics(func, y0, t[0], tuple(args), tfirst)
    ys, steps = _forward(dynamics.value, y0, t, control)
    _warn_if_unreached(ys, y0)
    targets = [y0, t, *dynamics.invariants]
    if tracked_by_a_tape(targets) or active_recordings() and dynamics.reads_variables:
        ys = _with_adjoint(dynamics, ys, targets, control)
    return (ys, {"nst": np.cumsum(value_of(steps))}) if full_output else ys


def _checked_state(y0):
    """``y0`` in float64, as scipy computes (a tensor cast, so its gradient comes back in
    its own dtype); refused if complex."""
    y0 = read(y0)
    if np.iscomplexobj(value_of(y0)):
        raise TypeError("odeint integrates real states: write a complex one as its real and "
                        "imaginary parts")
    if isinstance(y0, Tensor) and np.issubdtype(y0.dtype, np.floating):
        return y0 if y0.dtype == np.float64 else y0.astype(np.float64)
    return np.asarray(value_of(y0), dtype=np.float64)


def _checked_times(t):
    """``t`` as a tensor or float array, refused unless it is 1-D, non-empty and ordered."""
    t = read(t)
    values = np.asarray(value_of(t))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"odeint's t is a non-empty 1-D sequence of times, got shape "
                         f"{values.shape}")
    if np.any(np.diff(values) < 0):
        raise ValueError("odeint integrates forwards: its times t must be non-decreasing "
                         "(reverse them, and func's sign, to integrate backwards)")
    if isinstance(t, Tensor) and np.issubdtype(t.dtype, np.floating):
        return t if t.dtype == np.float64 else t.astype(np.float64)
    return np.asarray(values, dtype=np.float64)


def _warn_if_unreached(ys, y0):
    if np.isnan(value_of(ys)).any() and not np.isnan(value_of(y0)).any():
        warnings.warn("odeint's result holds NaN: func gave NaN, or the solver took mxstep "
                      "steps without reaching an output time (raise mxstep, or loosen rtol "
                      "and atol)", RuntimeWarning, stacklevel=3)


class _Dynamics:
    """``func`` traced once into a graph, evaluated for its value or, through the graph's
    adjoint, for its vector-Jacobian product; ``invariants`` are the tensors and
    variables it reads besides ``y`` and ``t``."""

    def __init__(self, func, y0, t0, args, tfirst):
        def traced(placeholders):
            y, t = placeholders
            f = func(t, y, *args) if tfirst else func(y, t, *args)
            if np.shape(value_of(f)) != np.shape(value_of(y)):
                raise ValueError(f"odeint's func returned shape {np.shape(value_of(f))} for "
                                 f"y of shape {np.shape(value_of(y))}: dy/dt has y's shape")
            return [f if isinstance(f, Tensor) else np.asarray(f, value_of(y).dtype)], None

        body, self.invariants, _ = trace_body(
            traced, [value_of(y0)], [np.asarray(value_of(t0), np.float64)], names=("y", "t"))
        self.graph, self.inputs = body.graph, body.inputs
        self.reads_variables = any(isinstance(v, Variable) for v in self.invariants)
        self.vjp_graph, self.seed = self._vjp_graph()

    def _vjp_graph(self):
        """The graph of ``(f, a df/dy, a df/dt, a df/dtheta...)`` and its seed ``a``'s id."""
        value = self.graph.outputs[0]
        graph = adjoint(self.graph.copy(), [value], list(self.inputs), seed_inputs=True)
        seed = next(n.id for n in graph if n.meta.get("seed_of") == value)
        graph.outputs = [value, *graph.outputs]
        return graph, seed

    def _bound(self, y, t):
        return dict(zip(self.inputs, [y, t, *self.invariants]))

    def value(self, state, t):
        """``[dy/dt]`` for ``state = [y]``."""
        return evaluate(self.graph, self._bound(state[0], t))

    def augmented(self, state, s):
        """The adjoint system in reversed time ``s = -t``: ``state`` is ``[y, a, a_t,
        *a_theta]``, its derivative ``[-f, a df/dy, a df/dt, *a df/dtheta]``."""
        y, a = state[0], state[1]
        found = evaluate(self.vjp_graph, {**self._bound(y, -s), self.seed: a})
        zeros = [np.zeros_like(value_of(v)) for v in state[1:]]
        return [-found[0], *[z if g is None else g for g, z in zip(found[1:], zeros)]]


def _forward(dynamics, y0, t, control):
    """``y`` at each time of ``t``: one run of the solver, output time after output time."""
    first = _start(dynamics, [y0], t[0], control)

    def interval(carry, target):
        carry, (y,), steps = _advance(dynamics, carry, target, control)
        return carry, (y, steps)

    _, (ys, steps) = scan(interval, first, t[1:], checkpoint="recompute")
    return np.concatenate([np.expand_dims(y0, 0), ys]), steps


def _with_adjoint(dynamics, ys, targets, control):
    """``ys`` passed on by a ``custom_vjp`` node whose rule, traced once, is the adjoint
    method's backward run; only targets that are tensors or variables get a gradient.

    The rule is traced on stand-ins for ``ys`` and ``t``, the times all equal: tracing
    runs what it records, and so runs no step."""
    given = [k for k, v in enumerate(targets) if isinstance(v, (Tensor, Variable))]

    def traced(placeholders):
        g, values, times = placeholders
        grads = _backward(dynamics, values, times, g, control)
        return [grads[k] for k in given], None

    t = value_of(targets[1])
    rule, residuals, _ = trace_body(
        traced, [], [value_of(ys), value_of(ys), np.full_like(t, t[0])],
        names=("upstream", "upstream"))
    rule = Body.interned(rule.graph, rule.inputs, carries=0, xs=0)
    gradients = [None] * len(targets)
    for output, k in enumerate(given):
        gradients[k] = output
    return custom_vjp(ys, *targets, ys, targets[1], *residuals, rule=rule,
                      gradients=tuple(gradients), function="odeint")


def _backward(dynamics, ys, t, g, control):
    """The cotangents of ``y0``, ``t`` and each invariant given those ``g`` of ``ys``: the
    augmented system integrated back over each interval, in reversed time."""
    def interval(carry, x):
        y_bar, t0_bar, *theta_bar = carry
        y, time, before, g_here, g_before = x
        t_bar = np.sum(dynamics.value([y], time)[0] * g_here)
        state = [y, y_bar, t0_bar - t_bar, *theta_bar]
        state = _solve(dynamics.augmented, state, -time, -before, control)
        return [state[1] + g_before, *state[2:]], t_bar

    zeros = [np.zeros_like(value_of(v)) for v in dynamics.invariants]
    init = [g[-1], np.zeros((), np.result_type(value_of(t))), *zeros]
    xs = (ys[1:], t[1:], t[:-1], g[1:], g[:-1])
    (y_bar, t0_bar, *theta_bar), t_bars = scan(interval, init, xs, reverse=True,
                                                checkpoint="recompute")
    return [y_bar, np.concatenate([np.expand_dims(t0_bar, 0), t_bars]), *theta_bar]


def _solve(dynamics, state, start, end, control):
    """``state`` integrated from ``start`` to ``end``."""
    _, state, _ = _advance(dynamics, _start(dynamics, state, start, control), end, control)
    return state


# --- the solver: a carry is [t, dt, *y, *f] ---------------------------------------------

def _start(dynamics, state, t0, control):
    """The solver's carry at ``t0``: its state, slope and first step."""
    f0 = dynamics(state, t0)
    dt = control.h0 if control.h0 else _initial_step(dynamics, state, t0, f0, control)
    return [t0, np.minimum(dt, control.hmax), *state, *f0]


def _split(carry):
    """``(t, dt, y, f)`` of a carry (``y`` and ``f`` lists of arrays)."""
    count = (len(carry) - 2) // 2
    return carry[0], carry[1], carry[2:2 + count], carry[2 + count:]


def _advance(dynamics, carry, target, control):
    """Steps until the carry's time reaches ``target``, the last one shortened to end
    there: the new carry, the state at ``target`` (NaN where ``mxstep`` steps did not
    reach it) and the number of steps tried.

    Dormand–Prince's interpolating quartic is an order less accurate than its steps,
    and its slope less still: read at the output times, at scipy's default
    tolerances it made first derivatives ten times, and second ones (which
    differentiate the backward solves where they end, in ``y0`` and ``t``) a
    thousand times less accurate than the values."""
    def unfinished(step, t, dt, *_):
        return (t < target) & (step < control.mxstep) & (dt > 0)

    def step(step, *carry):
        return [step + 1, *_step(dynamics, list(carry), target, control)]

    steps, *carry = _unkept_while(unfinished, step, [np.asarray(0), *carry])
    t, _, y, _ = _split(carry)
    reached = t >= target
    return carry, [np.where(reached, y_m, np.nan) for y_m in y], steps


def _step(dynamics, carry, target, control):
    """One Dormand–Prince step tried, shortened to end on ``target`` if it would pass
    it: taken where its error is within tolerance; the next step's size chosen from
    that error either way (a shortened step taken keeps the size it replaced)."""
    t, proposed, y, f = _split(carry)
    shortened = target - t <= proposed
    dt = np.where(shortened, target - t, proposed)
    ks = [f]
    for alpha, beta in zip(_ALPHA, _BETA):
        stage = [y_m + dt * _weighted(beta, [k[m] for k in ks]) for m, y_m in enumerate(y)]
        ks.append(dynamics(stage, t + alpha * dt))
    y1, f1 = stage, ks[-1]
    errors = [dt * _weighted(_ERROR, [k[m] for k in ks]) for m in range(len(y))]
    ratio = _error_ratio(errors, y, y1, control)
    accept = ratio <= 1.0
    next_dt = np.minimum(_next_step(dt, ratio), control.hmax)
    next_dt = np.where(shortened & accept, np.maximum(next_dt, proposed), next_dt)
    new = [np.where(shortened, target, t + dt), next_dt, *y1, *f1]
    old = [t, next_dt, *y, *f]
    return [np.where(accept, a, b) for a, b in zip(new, old)]


def _weighted(weights, values):
    """``sum(w * v)`` over the non-zero weights."""
    terms = [w * v for w, v in zip(weights, values) if w]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _rms(parts):
    """The root mean square over every element of the arrays ``parts``."""
    count = max(sum(int(np.size(value_of(p))) for p in parts), 1)
    return np.sqrt(sum(np.sum(np.square(p)) for p in parts) / count)


def _error_ratio(errors, y0, y1, control):
    """The step's error relative to the tolerances: at most 1 to take the step."""
    return _rms([e / (control.atol + control.rtol * np.maximum(np.abs(a), np.abs(b)))
                 for e, a, b in zip(errors, y0, y1)])


def _next_step(dt, ratio, safety=0.9, most=10.0, least=0.2, order=5.0):
    """The step size after one of size ``dt`` whose error ratio was ``ratio``."""
    least = np.where(ratio < 1, 1.0, least)
    factor = np.minimum(most, np.maximum(np.maximum(ratio, 1e-300) ** (-1.0 / order) * safety,
                                         least))
    return np.where(ratio == 0, dt * most, dt * factor)


def _initial_step(dynamics, y0, t0, f0, control):
    """The first step's size, from the state's and slope's scales (Hairer, Nørsett and
    Wanner, Solving ODEs I, II.4)."""
    scale = [control.atol + np.abs(y) * control.rtol for y in y0]
    d0 = _rms([y / s for y, s in zip(y0, scale)])
    d1 = _rms([f / s for f, s in zip(f0, scale)])
    h0 = np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / np.maximum(d1, 1e-300))
    f1 = dynamics([y + h0 * f for y, f in zip(y0, f0)], t0 + h0)
    d2 = _rms([(b - a) / s for a, b, s in zip(f0, f1, scale)]) / h0
    largest = np.maximum(d1, d2)
    h1 = np.where(largest <= 1e-15, np.maximum(1e-6, h0 * 1e-3),
                  (0.01 / np.maximum(largest, 1e-300)) ** (1.0 / 5.0))
    return np.minimum(100 * h0, h1)


def _unkept_while(cond, body, carries):
    """``tracer.while_loop`` over the list ``carries``, recorded keeping no step's values:
    the adjoint method never runs this loop backwards (a second order reruns it)."""
    values = [value_of(c) for c in carries]
    test, test_invariants, _ = trace_body(lambda p: ([cond(*p)], None), [], values)
    test = Body.interned(test.graph, test.inputs, carries=0, xs=0)
    loop, invariants, _ = trace_body(lambda p: (body(*p), None), values, [])
    node = while_primitive.while_loop(*carries, *test_invariants, *invariants, test=test,
                                      body=loop, maximum=None, keep=(), trips=0)
    return results_of(node, while_primitive.while_types(loop, (), 0))[:len(carries)]
