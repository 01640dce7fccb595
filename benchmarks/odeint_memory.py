"""The adjoint method's memory: ``tracer.scipy.integrate.odeint``'s gradient beside
backpropagation through a solver's steps.

A system of 2 x 200 damped oscillators (the state of ``y'' = -w^2 y - 0.01 y'``) is
integrated over spans growing 1000-fold, so the solver's steps grow about as
much; the loss reads the final state.  For each span it prints the steps the
adaptive Dormand–Prince solver took, then the peak memory (tracemalloc, after a
first call) and the time of one recording and gradient through ``odeint``
(adjoint method), and the same for a naive gradient through a ``tracer.scan`` of
twice as many fixed RK4 steps (8 evaluations of the dynamics where a
Dormand–Prince step makes 6; reverse mode through the loop keeps every step's
values).  The two gradients are checked against each other first; their
relative difference is printed.  Takes about four minutes, most of them under
tracemalloc, which slows the longest span's runs:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/odeint_memory.py
"""

import time

import numpy as np

import tracer
from timing import peak_bytes
from tracer.scipy.integrate import odeint

SIZE = 200
FREQUENCIES = np.linspace(1.0, 2.0, SIZE)
Y0 = np.stack([np.linspace(0.5, 1.5, SIZE), np.zeros(SIZE)])
SPANS = (1.0, 10.0, 100.0, 1000.0)
TOLERANCE = {"rtol": 1e-6, "atol": 1e-8}


def oscillators(y, t, w):
    return np.stack([y[1], -w ** 2 * y[0] - 0.01 * y[1]])


def adjoint_gradient(span):
    """d loss / d w through ``odeint``, and the number of solver steps."""
    w = tracer.constant(FREQUENCIES)
    with tracer.GradientTape() as tape:
        tape.watch(w)
        ys, info = odeint(oscillators, Y0, [0.0, span], args=(w,), full_output=True,
                          **TOLERANCE)
        loss = np.sum(ys[-1] ** 2)
    return tape.gradient(loss, w).numpy(), int(info["nst"][-1])


def backprop_gradient(span, steps):
    """d loss / d w through a scan of ``steps`` RK4 steps, differentiated step by step."""
    w = tracer.constant(FREQUENCIES)
    dt = span / steps

    def step(y, _):
        k1 = oscillators(y, None, w)
        k2 = oscillators(y + dt / 2 * k1, None, w)
        k3 = oscillators(y + dt / 2 * k2, None, w)
        k4 = oscillators(y + dt * k3, None, w)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), None

    with tracer.GradientTape() as tape:
        tape.watch(w)
        final, _ = tracer.scan(step, Y0, length=steps)
        loss = np.sum(final ** 2)
    return tape.gradient(loss, w).numpy()


def seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main():
    print(f"{SIZE * 2} state values, rtol={TOLERANCE['rtol']}, atol={TOLERANCE['atol']}")
    print(f"{'span':>6} {'steps':>7} | {'adjoint peak':>12} {'time':>7} | "
          f"{'backprop peak':>13} {'time':>7} | difference")
    for span in SPANS:
        adjoint, steps = adjoint_gradient(span)
        naive = backprop_gradient(span, 2 * steps)
        error = np.max(np.abs(adjoint - naive)) / np.max(np.abs(naive))
        assert error < 5e-2, f"the gradients differ by {error:.1e}"
        peaks = [peak_bytes(lambda: adjoint_gradient(span)),
                 peak_bytes(lambda: backprop_gradient(span, 2 * steps))]
        times = [seconds(lambda: adjoint_gradient(span)),
                 seconds(lambda: backprop_gradient(span, 2 * steps))]
        print(f"{span:6.0f} {steps:7d} | {peaks[0] / 1e6:9.2f} MB {times[0]:6.2f}s | "
              f"{peaks[1] / 1e6:10.2f} MB {times[1]:6.2f}s | {error:.1e}")


if __name__ == "__main__":
    main()
