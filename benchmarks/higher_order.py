"""Second derivatives of the Rosenbrock function: tapegen next to hand-written numpy and autograd.

Two measurements, each printed as ratios to the hand-written analytic
version, measured side by side in one run:

1. Hessian-vector product at n = 1000: the analytic product; the module
   ``codegen.hvp_source`` generates; tapegen's eager forward-over-reverse
   ``tracer.hvp`` (an accumulator around a tape) and reverse-over-reverse
   (nested tapes); autograd's ``hessian_vector_product`` when autograd is
   installed.
2. Dense Hessian at n = 20: the analytic (tridiagonal) matrix; the module
   ``codegen.hessian_source`` generates; tapegen's eager ``tracer.hessian``
   (forward over reverse with a batch of one-hot tangents) and one
   forward-over-reverse product per column; autograd's ``hessian``.

Every variant's result is checked against the analytic one before timing.
Takes well under a minute:

    python benchmarks/higher_order.py
"""

import numpy as np

import codegen
import tracer
from timing import interleaved_min, verdict
from tracer import functional

try:
    import autograd
except ImportError:
    autograd = None

HVP_SIZE = 1000
HESSIAN_SIZE = 20


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hvp(x, v):
    """The analytic Hessian-vector product, as one would write it by hand."""
    hv = np.zeros_like(x)
    hv[:-1] = (1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0) * v[:-1] - 400.0 * x[:-1] * v[1:]
    hv[1:] += 200.0 * v[1:] - 400.0 * x[:-1] * v[:-1]
    return hv


def rosenbrock_hessian(x):
    """The analytic Hessian: tridiagonal."""
    n = len(x)
    H = np.zeros((n, n))
    i = np.arange(n - 1)
    H[i, i] = 1200.0 * x[:-1] ** 2 - 400.0 * x[1:] + 2.0
    H[i + 1, i + 1] += 200.0
    H[i, i + 1] = H[i + 1, i] = -400.0 * x[:-1]
    return H


def reverse_over_reverse_hvp(x, v):
    x = tracer.constant(x)
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = rosenbrock(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x, output_gradients=tracer.constant(v))


def forward_over_reverse_hessian(x):
    product = functional.hvp(rosenbrock)
    return np.stack([product(x, e) for e in np.eye(len(x))], axis=-1)


def generated(source_function, x):
    """The module ``source_function`` (``codegen.hvp_source``, ``hessian_source``) writes
    for Rosenbrock at ``x``'s shape; its function is called ``derivative``."""
    traced = tracer.constant(x, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(traced)
        y = rosenbrock(traced)
    return codegen.load(source_function(tape, y, traced, name="derivative")).derivative


def hvp_variants(x, v):
    generated_product = generated(codegen.hvp_source, x)
    variants = {
        "hand-written numpy": lambda: rosenbrock_hvp(x, v),
        "tapegen generated hvp_source": lambda: generated_product(x, v),
        "tapegen eager, forward-over-reverse": lambda: functional.hvp(rosenbrock)(x, v),
        "tapegen eager, reverse-over-reverse": lambda: reverse_over_reverse_hvp(x, v),
    }
    if autograd is not None:
        product = autograd.hessian_vector_product(rosenbrock)
        variants["autograd hessian_vector_product"] = lambda: product(x, v)
    return variants


def hessian_variants(x):
    generated_hessian = generated(codegen.hessian_source, x)
    variants = {
        "hand-written numpy": lambda: rosenbrock_hessian(x),
        "tapegen generated hessian_source": lambda: generated_hessian(x),
        "tapegen eager, hessian": lambda: functional.hessian(rosenbrock)(x),
        "tapegen eager, one hvp per column": lambda: forward_over_reverse_hessian(x),
    }
    if autograd is not None:
        hessian = autograd.hessian(rosenbrock)
        variants["autograd hessian"] = lambda: hessian(x)
    return variants


def check(variants, expected):
    for name, run in variants.items():
        np.testing.assert_allclose(np.asarray(run()), expected, rtol=1e-10, atol=1e-8,
                                   err_msg=name)


def report(title, variants, repeats, number, targets):
    times = interleaved_min(variants, repeats=repeats, number=number)
    base = times["hand-written numpy"]
    print(title)
    for name, seconds in times.items():
        ratio = seconds / base
        target = targets.get(name)
        text = verdict(ratio <= target[0], target[1]) if target else ""
        print(f"   {name:40} {seconds * 1e6:10.1f} us {ratio:8.1f}x    {text}")
    return times


def main():
    rng = np.random.default_rng(0)
    x, v = rng.uniform(-1.0, 1.0, HVP_SIZE), rng.standard_normal(HVP_SIZE)
    variants = hvp_variants(x, v)
    check(variants, rosenbrock_hvp(x, v))
    times = report(f"1. Hessian-vector product, Rosenbrock, n = {HVP_SIZE}", variants,
                   repeats=7, number=20,
                   targets={"tapegen generated hvp_source": (2.0, "<= 2x hand-written")})
    if autograd is not None:
        eager = times["tapegen eager, forward-over-reverse"]
        theirs = times["autograd hessian_vector_product"]
        print(f"   eager forward-over-reverse vs autograd: {theirs / eager:.2f}x faster    "
              f"{verdict(eager < theirs, 'faster than autograd')}")
    print()
    x = rng.uniform(-1.0, 1.0, HESSIAN_SIZE)
    variants = hessian_variants(x)
    check(variants, rosenbrock_hessian(x))
    report(f"2. Dense Hessian, Rosenbrock, n = {HESSIAN_SIZE}", variants, repeats=7, number=20,
           targets={"tapegen generated hessian_source": (3.0, "<= 3x hand-written")})


if __name__ == "__main__":
    main()
