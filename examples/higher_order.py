"""Higher-order derivatives from nested gradient tapes.

A tape records whatever runs while it is active, including another tape's
gradient computation, so nesting tapes differentiates derivatives:

(a) Newton's method for a minimum of f(x) = x**4 - 3*x**2 + x, using f'
    and f'' from two nested tapes;
(b) a Hessian as ``outer.jacobian(inner.gradient(f, x), x)``, compared with
    the closed form;
(c) the first three derivatives of x**3 at x = 3, from three nested tapes.

Run it with:

    python examples/higher_order.py
"""

import numpy as np

import tracer


def f(x):
    return x**4 - 3 * x**2 + x


def first_and_second_derivative(fn, x0):
    """f'(x0) and f''(x0) from two nested tapes."""
    x = tracer.constant(x0)
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        dy_dx = inner.gradient(y, x)  # recorded by `outer`, which is still active
    d2y_dx2 = outer.gradient(dy_dx, x)
    return float(dy_dx), float(d2y_dx2)


def newton_minimum(x0=2.0, tol=1e-10, max_iter=20):
    """Newton's method on f'(x) = 0: x <- x - f'(x) / f''(x)."""
    print("(a) Newton's method for a minimum of f(x) = x**4 - 3*x**2 + x")
    x = x0
    for i in range(max_iter):
        d1, d2 = first_and_second_derivative(f, x)
        print(f"    iter {i}: x = {x:.12f}  f'(x) = {d1:+.3e}  f''(x) = {d2:.6f}")
        if abs(d1) < tol:
            kind = "minimum" if d2 > 0 else "maximum"
            print(f"    converged after {i} steps: x = {x:.12f}, f(x) = {float(f(x)):.12f}, "
                  f"a {kind} since f''(x) = {d2:.6f}")
            return x
        x -= d1 / d2
    print(f"    did not converge in {max_iter} steps")
    return x


def g(x):
    """A scalar function of a 3-vector."""
    return x[0] ** 2 * x[1] + np.sin(x[1]) * x[2] + np.exp(x[0] * x[2])


def g_hessian(x):
    """The closed-form Hessian of ``g``."""
    x0, x1, x2 = x
    e = np.exp(x0 * x2)
    return np.array([
        [2 * x1 + x2**2 * e, 2 * x0, (1 + x0 * x2) * e],
        [2 * x0, -np.sin(x1) * x2, np.cos(x1)],
        [(1 + x0 * x2) * e, np.cos(x1), x0**2 * e],
    ])


def hessian_demo():
    print("(b) Hessian of g(x) = x0**2 * x1 + sin(x1) * x2 + exp(x0 * x2)")
    point = np.array([0.5, -1.0, 2.0])
    x = tracer.constant(point)
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = g(x)
        grad = inner.gradient(y, x)
    hessian = outer.jacobian(grad, x).numpy()
    expected = g_hessian(point)
    print("    from the tapes:\n" + _indent(hessian))
    print("    closed form:\n" + _indent(expected))
    max_diff = float(np.max(np.abs(hessian - expected)))
    print(f"    Hessian max difference: {max_diff:.3e}")
    return max_diff


def third_derivative_demo():
    print("(c) derivatives of x**3 at x = 3 from three nested tapes")
    x = tracer.constant(3.0)
    with tracer.GradientTape() as t3:
        t3.watch(x)
        with tracer.GradientTape() as t2:
            t2.watch(x)
            with tracer.GradientTape() as t1:
                t1.watch(x)
                y = x**3
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    print(f"    dy/dx = {float(dy):g}, d2y/dx2 = {float(d2y):g}, d3y/dx3 = {float(d3y):g}")


def _indent(array):
    text = np.array2string(array, precision=6, suppress_small=True)
    return "\n".join("      " + line for line in text.splitlines())


def main():
    newton_minimum()
    print()
    hessian_demo()
    print()
    third_derivative_demo()


if __name__ == "__main__":
    main()
