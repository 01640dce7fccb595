"""Generated array-API modules compiled by JAX, against JAX's own derivatives.

For logistic regression, the MLP, Rosenbrock, the tanh RNN (the models of
``generated_vs_handwritten``) and Rosenbrock's Hessian-vector product, one run
prints, side by side: ``jax.jit`` of the module tapegen generates with
``target="array_api"``, called on JAX arrays, and ``jax.jit(jax.value_and_grad(f))``
(or of JAX's forward-over-reverse Hessian-vector product) on the same function
written with ``jax.numpy``; with compile times (the first call) next to run times.
Each side is compiled five times and the medians compared.
Target: the generated module at most 1.10x JAX's own.

Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/backends.py
(needs ``pip install -e '.[jax]'``).
"""

import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import codegen  # noqa: E402
import tracer  # noqa: E402
from generated_vs_handwritten import rosenbrock, workloads  # noqa: E402
from timing import interleaved_min, verdict  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    sys.exit("benchmarks/backends.py needs JAX: pip install -e '.[jax]'")

jax.config.update("jax_enable_x64", True)
TARGET = 1.10
HVP_SIZE = 1000
COMPILATIONS = 5
"""Each function is compiled this many times and the median of their run times taken:
two compilations of one of these small functions can run 1.4x apart (the tanh RNN
took 72 to 109 us in one process), more than the differences measured."""


def compiled(function, arguments):
    """``COMPILATIONS`` compilations of ``function`` (a fresh ``jax.jit`` each), the median
    seconds their first calls took (tracing and compiling), and for each a call on
    ``arguments`` that waits for the result."""
    firsts, calls = [], []
    for _ in range(COMPILATIONS):
        jitted = jax.jit(lambda *args: function(*args))
        start = time.perf_counter()
        jax.block_until_ready(jitted(*arguments))
        firsts.append(time.perf_counter() - start)
        calls.append(lambda jitted=jitted: jax.block_until_ready(jitted(*arguments)))
    return statistics.median(firsts), calls


def _calls_per_round(call, seconds=0.05):
    """How many calls make a timed round last about ``seconds``: the functions here take
    20 us to 1 ms, and rounds much shorter than that measure the timer and the machine."""
    start = time.perf_counter()
    for _ in range(5):
        call()
    each = (time.perf_counter() - start) / 5
    return max(20, min(5000, int(seconds / each)))


def gradient_pair(workload):
    """The generated module's and JAX's own value-and-gradient of ``workload``, compiled."""
    tape, loss, variables = workload.record()
    module = codegen.load(codegen.gradient_source(tape, loss, variables, with_value=True,
                                                  target="array_api"))
    arguments = [jnp.asarray(workload.values[name]) for name, _, _ in module.INPUTS]
    params = [jnp.asarray(v) for v in workload.params.values()]
    data = [v if k in workload.plain else jnp.asarray(v) for k, v in workload.data.items()]

    def own(*params):
        return workload.model(jnp, jax.lax.stop_gradient, *params, *data)
    ours = compiled(module.gradient, arguments)
    theirs = compiled(jax.value_and_grad(own, argnums=tuple(range(len(params)))), params)
    value, gradients = ours[1][0]()
    their_value, their_gradients = theirs[1][0]()
    check(workload.name, [value, *gradients], [their_value, *their_gradients])
    return ours, theirs


def hvp_pair(rng):
    """Rosenbrock's Hessian-vector product: the generated module and JAX's jvp of grad."""
    x = tracer.Variable(rng.uniform(-1.0, 1.0, HVP_SIZE), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        loss = rosenbrock(np, tracer.stop_gradient, x)
    module = codegen.load(codegen.hvp_source(tape, loss, x, target="array_api"))
    point, direction = jnp.asarray(x.numpy()), jnp.asarray(rng.standard_normal(HVP_SIZE))
    gradient = jax.grad(lambda x: rosenbrock(jnp, jax.lax.stop_gradient, x))
    ours = compiled(module.hvp, [point, direction])
    theirs = compiled(lambda x, v: jax.jvp(gradient, (x,), (v,))[1], [point, direction])
    check("Rosenbrock Hessian-vector product", [ours[1][0]()], [theirs[1][0]()])
    return ours, theirs


def check(name, got, expected):
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: the generated module disagrees with JAX")


def main():
    rng = np.random.default_rng(0)
    pairs = {w.name: gradient_pair(w) for w in workloads(rng)}
    pairs[f"Rosenbrock Hessian-vector product, n = {HVP_SIZE}"] = hvp_pair(rng)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, float64\n")
    print(f"{'':46}{'compile':>10}{'run':>12}{'vs JAX':>9}")
    rows = []
    for name, ((our_compile, ours), (their_compile, theirs)) in pairs.items():
        variants = {(side, k): call for side, calls in (("ours", ours), ("theirs", theirs))
                    for k, call in enumerate(calls)}
        best = interleaved_min(variants, repeats=7, number=_calls_per_round(ours[0]))
        times = {side: statistics.median(best[side, k] for k in range(COMPILATIONS))
                 for side in ("ours", "theirs")}
        ratio = times["ours"] / times["theirs"]
        rows.append((name, ratio))
        print(name)
        print(f"   {'generated array-API module, jax.jit':43}{our_compile * 1e3:8.0f} ms"
              f"{times['ours'] * 1e6:9.1f} us{ratio:8.2f}x")
        print(f"   {'JAX own, jax.jit':43}{their_compile * 1e3:8.0f} ms"
              f"{times['theirs'] * 1e6:9.1f} us{1.0:8.2f}x")
    print("\nTargets")
    for name, ratio in rows:
        print(f"   {name[:44]:46} generated / JAX {ratio:6.3f}x   "
              f"{verdict(ratio <= TARGET, f'<= {TARGET:.2f}x')}")


if __name__ == "__main__":
    main()
