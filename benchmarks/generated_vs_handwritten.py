"""Generated gradient modules next to the gradients a skilled person writes by hand in numpy.

Four first-order workloads, float64, on one thread:

1. logistic regression: softmax cross-entropy of ``X @ W + b``, 1797 x 64
   inputs, 10 classes; the gradient for ``W`` (64 x 10) and ``b``;
2. an MLP 64-128-128-10 with tanh and the same loss, batch 256; the gradient
   for all six weights (and at batch 4096, the peak memory of the gradient);
3. the Rosenbrock function at n = 1000; the gradient for ``x``;
4. a tanh RNN (hidden size 8, input size 4, 50 steps) unrolled by a Python
   loop over a plain array of inputs, so the tape records it op by op (252
   small ops; not ``tracer.scan``) and the generated module holds each
   step's input as a literal; the gradient of the last state's sum of
   squares for its three weights.

For each: the hand-written gradient (in this file, written as one would
write it for speed: the softmax's gradient as ``p - Y``, the RNN's input
products before its loop and its weight gradients gathered into one product
each after the reverse loop); the module ``codegen.gradient_source`` writes
for a recording, called with its arguments in ``module.INPUTS`` order; the
eager tape (record the loss, then ``tape.gradient``); autograd when it is
installed.  The generated forward alone is timed too: the module
``gradient_source(tape, loss, [], with_value=True)`` writes computes the
value and no gradient.  For logistic regression, the module of the same
model recorded without ``stop_gradient`` around the softmax's shift is timed
as well (its gradient then flows through ``max``).  Every gradient is
checked against the hand-written one before timing; the variants are timed
interleaved, and the figures are minima over rounds.  Peak memory is
``tracemalloc``'s, which sees numpy's array data.  Last, the MLP's module
generated once with a symbolic batch (``dims=("batch", None)`` on ``X`` and
``Y``, traced at 256) runs at batch 256 and 4096 beside the module
specialised to each batch: symbolic code should cost nothing.  Prints which BLAS kernel
ran, a table per workload, a summary, and each target met or missed.  Takes
about 20 seconds:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/generated_vs_handwritten.py
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy loads its BLAS: one thread, as promised


import numpy as np

import codegen
import tracer
from timing import interleaved_min, peak_bytes, verdict

try:
    import autograd
    import autograd.numpy as anp
    from autograd.tracer import getval
except ImportError:
    autograd = None

try:
    import threadpoolctl
except ImportError:
    threadpoolctl = None

CLASSES = 10
HIDDEN, RNN_INPUTS, STEPS = 8, 4, 50
RESULT_RTOL, RESULT_ATOL = 1e-9, 1e-12
UNSTOPPED = "generated, shift not stopped"


# --- the models, written once for tensors (numpy) and for autograd ----------------

def cross_entropy(xnp, stop, z, Y):
    """Mean softmax cross-entropy of logits ``z`` against one-hot rows ``Y``; the row
    maxima are a shift the loss does not depend on, so no gradient flows through them."""
    z = z - stop(xnp.max(z, axis=1, keepdims=True))
    logp = z - xnp.log(xnp.sum(xnp.exp(z), axis=1, keepdims=True))
    return -xnp.sum(Y * logp) / Y.shape[0]


def logistic_regression(xnp, stop, W, b, X, Y):
    return cross_entropy(xnp, stop, X @ W + b, Y)


def mlp(xnp, stop, W1, b1, W2, b2, W3, b3, X, Y):
    h1 = xnp.tanh(X @ W1 + b1)
    h2 = xnp.tanh(h1 @ W2 + b2)
    return cross_entropy(xnp, stop, h2 @ W3 + b3, Y)


def rosenbrock(xnp, stop, x):
    return xnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rnn(xnp, stop, W, U, b, xs):
    """The last state's sum of squares; ``xs`` is iterated as a plain array, so the tape
    sees each step's input as data (5 ops a step, 2 at the end)."""
    h = np.zeros(HIDDEN)
    for x in xs:
        h = xnp.tanh(h @ W + x @ U + b)
    return xnp.sum(h * h)


# --- the hand-written gradients ------------------------------------------------------

def softmax_rows(z):
    """Each row's softmax, shifted by the row's maximum so ``exp`` cannot overflow."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    e /= e.sum(axis=1, keepdims=True)
    return e


def logistic_regression_gradient(W, b, X, Y):
    g = softmax_rows(X @ W + b)
    g -= Y
    g /= len(X)
    return X.T @ g, g.sum(axis=0)


def mlp_gradient(W1, b1, W2, b2, W3, b3, X, Y):
    h1 = np.tanh(X @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    g3 = softmax_rows(h2 @ W3 + b3)
    g3 -= Y
    g3 /= len(X)
    g2 = (g3 @ W3.T) * (1.0 - h2 * h2)
    g1 = (g2 @ W2.T) * (1.0 - h1 * h1)
    return X.T @ g1, g1.sum(axis=0), h1.T @ g2, g2.sum(axis=0), h2.T @ g3, g3.sum(axis=0)


def rosenbrock_gradient(x):
    head, tail = x[:-1], x[1:]
    r = tail - head * head
    g = np.zeros_like(x)
    g[:-1] = -400.0 * head * r - 2.0 * (1.0 - head)
    g[1:] += 200.0 * r
    return g


def rnn_gradient(W, U, b, xs):
    """Backpropagation through time: the inputs' part of every step in one product
    before the loop, each weight's gradient in one product after the reverse loop."""
    steps = len(xs)
    inputs = xs @ U + b
    hs = np.zeros((steps + 1, HIDDEN))
    for t in range(steps):
        hs[t + 1] = np.tanh(hs[t] @ W + inputs[t])
    dzs = np.empty((steps, HIDDEN))
    dh = 2.0 * hs[steps]
    for t in range(steps - 1, -1, -1):
        dz = dzs[t] = dh * (1.0 - hs[t + 1] * hs[t + 1])
        dh = W @ dz
    return hs[:-1].T @ dzs, xs.T @ dzs, dzs.sum(axis=0)


# --- the workloads -------------------------------------------------------------------

class Workload:
    """A model, its hand-written gradient, and its values: ``params`` (differentiated,
    recorded as variables) then ``data`` (named constants, except those named in
    ``plain``, which the model reads as plain numpy arrays)."""

    def __init__(self, name, model, handwritten, params, data, target, plain=(),
                 unstopped=False, dims=None):
        self.name, self.model, self.handwritten = name, model, handwritten
        self.params, self.data, self.target = params, data, target
        self.values = {**params, **data}
        self.plain = set(plain)
        self.unstopped = unstopped  # also time the module of the model recorded unstopped
        self.dims = dims or {}  # symbolic axes of the data, by name

    def tensors(self):
        """Fresh variables for the params, and the data as the model reads it."""
        variables = [tracer.Variable(v, name=k) for k, v in self.params.items()]
        data = [v if k in self.plain else tracer.constant(v, name=k, dims=self.dims.get(k))
                for k, v in self.data.items()]
        return variables, data

    def gradient_module(self):
        """The generated gradient module, loaded."""
        tape, loss, variables = self.record()
        return codegen.load(codegen.gradient_source(tape, loss, variables))

    def record(self, stop=tracer.stop_gradient):
        """A persistent tape holding one recording, its loss, and its variables."""
        variables, data = self.tensors()
        with tracer.GradientTape(persistent=True) as tape:
            loss = self.model(np, stop, *variables, *data)
        return tape, loss, variables

    def generated(self, stop=tracer.stop_gradient):
        """The generated gradient and the generated forward, each ready to call.
        ``stop=no_stop`` records the model with gradients flowing through what it would
        stop."""
        tape, loss, variables = self.record(stop)
        gradient_text = codegen.gradient_source(tape, loss, variables)
        forward_text = codegen.gradient_source(tape, loss, [], with_value=True, name="forward")
        gradient = codegen.load(gradient_text)
        forward = codegen.load(forward_text)
        grad_args = [self.values[name] for name, _, _ in gradient.INPUTS]
        forward_args = [self.values[name] for name, _, _ in forward.INPUTS]
        return (lambda: gradient.gradient(*grad_args)), (lambda: forward.forward(*forward_args)[0])

    def eager(self):
        variables, data = self.tensors()

        def run():
            with tracer.GradientTape() as tape:
                loss = self.model(np, tracer.stop_gradient, *variables, *data)
            return [g.numpy() for g in tape.gradient(loss, variables)]
        return run

    def autograd(self):
        data = list(self.data.values())
        gradient = autograd.grad(lambda params: self.model(anp, getval, *params, *data))
        params = list(self.params.values())
        return lambda: gradient(params)

    def expected(self):
        return self.handwritten(*self.values.values())

    def forward_value(self):
        return self.model(np, no_stop, *self.values.values())


def no_stop(value):
    """What the models call instead of ``stop_gradient`` to let gradients through."""
    return value


def digits_like(rng, rows, features=64):
    """Inputs shaped and scaled like scikit-learn's digits (pixels 0..16), one-hot labels."""
    X = rng.integers(0, 17, (rows, features)).astype(np.float64)
    Y = np.eye(CLASSES)[rng.integers(0, CLASSES, rows)]
    return X, Y


def mlp_values(rng, batch):
    X, Y = digits_like(rng, batch)
    sizes = (64, 128, 128, CLASSES)
    params = {}
    for k, (m, n) in enumerate(zip(sizes, sizes[1:]), 1):
        params[f"W{k}"] = rng.standard_normal((m, n)) / np.sqrt(m)
        params[f"b{k}"] = 0.1 * rng.standard_normal(n)
    return params, {"X": X / 16.0, "Y": Y}


def workloads(rng):
    X, Y = digits_like(rng, 1797)
    yield Workload("logistic regression, 1797 x 64, 10 classes", logistic_regression,
                   logistic_regression_gradient,
                   {"W": 0.01 * rng.standard_normal((64, CLASSES)),
                    "b": 0.01 * rng.standard_normal(CLASSES)},
                   {"X": X, "Y": Y}, 1.10, unstopped=True)
    yield Workload("MLP 64-128-128-10, tanh, batch 256", mlp, mlp_gradient,
                   *mlp_values(rng, 256), 1.10)
    yield Workload("Rosenbrock, n = 1000", rosenbrock, rosenbrock_gradient,
                   {"x": rng.uniform(-1.0, 1.0, 1000)}, {}, 1.25)
    xs = rng.standard_normal((STEPS, RNN_INPUTS))
    yield Workload(f"tanh RNN unrolled, hidden {HIDDEN}, {STEPS} steps", rnn, rnn_gradient,
                   {"W": rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
                    "U": rng.standard_normal((RNN_INPUTS, HIDDEN)) / np.sqrt(RNN_INPUTS),
                    "b": 0.1 * rng.standard_normal(HIDDEN)},
                   {"xs": xs}, 1.25, plain=("xs",))


# --- measuring ---------------------------------------------------------------------

def check(name, got, expected):
    got = got if isinstance(got, (list, tuple)) else [got]
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    assert len(got) == len(expected), name
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=RESULT_RTOL, atol=RESULT_ATOL,
                                   err_msg=name)


def calls_per_round(run, seconds=0.01):
    """How many calls of ``run`` take about ``seconds``."""
    probe = interleaved_min({"run": run}, repeats=3, number=1)["run"]
    return max(1, int(seconds / probe))


def measure(workload):
    """Seconds per call of every variant, each checked first."""
    generated, forward = workload.generated()
    expected = workload.expected()
    variants = {"hand-written numpy": lambda: workload.handwritten(*workload.values.values()),
                "generated gradient": generated,
                "generated forward (value only)": forward,
                "eager tape gradient": workload.eager()}
    if workload.unstopped:
        variants[UNSTOPPED], _ = workload.generated(stop=no_stop)
    if autograd is not None:
        variants["autograd"] = workload.autograd()
    for name, run in variants.items():
        if name == "generated forward (value only)":
            np.testing.assert_allclose(run(), workload.forward_value(), rtol=1e-12,
                                       err_msg=name)
        else:
            check(name, run(), expected)
    number = calls_per_round(variants["hand-written numpy"])
    return interleaved_min(variants, repeats=15, number=number)


def mlp_memory(rng, batch):
    params, data = mlp_values(rng, batch)
    workload = Workload(f"MLP batch {batch}", mlp, mlp_gradient, params, data, None)
    generated, forward = workload.generated()
    check("generated gradient", generated(), workload.expected())
    handwritten = lambda: workload.handwritten(*workload.values.values())  # noqa: E731
    return {"hand-written numpy": peak_bytes(handwritten),
            "generated gradient": peak_bytes(generated),
            "generated forward (value only)": peak_bytes(forward)}


def symbolic_batch(rng, traced=256, batches=(256, 4096)):
    """Seconds per call of the MLP's gradient module generated once with a symbolic batch
    (traced at ``traced``) and of the module specialised to each batch, side by side."""
    params, data = mlp_values(rng, traced)
    dims = {"X": ("batch", None), "Y": ("batch", None)}
    symbolic = Workload("MLP, symbolic batch", mlp, mlp_gradient, params, data, None,
                        dims=dims).gradient_module()
    results = {}
    for batch in batches:
        params, data = mlp_values(rng, batch)
        workload = Workload(f"MLP batch {batch}", mlp, mlp_gradient, params, data, None)
        specialised = workload.gradient_module()
        values = workload.values
        runs = {name: (lambda m=module: m.gradient(*(values[n] for n, _, _ in m.INPUTS)))
                for name, module in (("specialised", specialised), ("symbolic", symbolic))}
        for name, run in runs.items():
            check(f"{name} batch {batch}", run(), workload.expected())
        number = calls_per_round(runs["specialised"])
        results[batch] = interleaved_min(runs, repeats=15, number=number)
    return results


def blas_kernel():
    """Which BLAS library and kernel numpy runs, on how many threads (and any other BLAS
    loaded, such as scipy's)."""
    if threadpoolctl is not None:
        found = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
        found.sort(key=lambda i: _shipped_with(i) != "numpy.libs")
        if found:
            return "; also loaded: ".join(
                f"{i.get('internal_api')} {i.get('version')} ({_shipped_with(i)}), kernel "
                f"{i.get('architecture')}, {i.get('num_threads')} thread(s)" for i in found)
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return (f"{blas.get('name')} {blas.get('version')} (built for: "
                f"{' '.join(str(blas.get('openblas configuration', '')).split())}; "
                "install threadpoolctl to see the kernel that runs)")
    except Exception:  # show_config's layout is not an API
        return "unknown (install threadpoolctl to see it)"


def _shipped_with(info):
    """The package directory a BLAS library was loaded from (``numpy.libs``), not its path."""
    return os.path.basename(os.path.dirname(info.get("filepath", ""))) or "?"


def fmt_time(seconds):
    return f"{seconds * 1e6:9.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:9.2f} ms"


def main():
    if threadpoolctl is not None:  # in case numpy was loaded before this module set the variables
        threadpoolctl.threadpool_limits(limits=1, user_api="blas")
    print(f"numpy {np.__version__}, BLAS: {blas_kernel()}")
    if autograd is None:
        print("autograd: not installed (the 'bench' extra); its column is skipped")
    rng = np.random.default_rng(0)
    targets = []  # (workload, what, figure, met, target)
    summary = []
    for number, workload in enumerate(workloads(rng), 1):
        times = measure(workload)
        short = workload.name.split(",")[0]
        hand, gen = times["hand-written numpy"], times["generated gradient"]
        fwd, eager = times["generated forward (value only)"], times["eager tape gradient"]
        print(f"\n{number}. {workload.name}")
        print(f"   {'':34} {'time':>12} {'vs hand-written':>16}")
        for name, seconds in times.items():
            print(f"   {name:34} {fmt_time(seconds)} {seconds / hand:15.2f}x")
        if UNSTOPPED in times:
            print(f"   ('{UNSTOPPED}': the same model recorded without stop_gradient "
                  "around the row maxima)")
        targets.append((short, "generated / hand-written", f"{gen / hand:.3f}x",
                        gen / hand <= workload.target, f"<= {workload.target:.2f}x"))
        targets.append((short, "generated gradient / generated forward", f"{gen / fwd:.3f}x",
                        gen / fwd <= 2.5, "<= 2.5x"))
        if workload.name.startswith("tanh RNN"):
            targets.append((short, "eager tape / generated", f"{eager / gen:.1f}x",
                            eager / gen >= 10, ">= 10x"))
        summary.append((short, hand, gen, fwd, eager, times.get("autograd")))
    batch = 4096
    memory = mlp_memory(rng, batch)
    hand = memory["hand-written numpy"]
    print(f"\n5. Peak memory of the MLP gradient, batch {batch} (tracemalloc)")
    for name, size in memory.items():
        print(f"   {name:34} {size / 2**20:8.2f} MiB {size / hand:15.2f}x")
    targets.append((f"MLP, batch {batch}", "peak memory, generated / hand-written",
                    f"{memory['generated gradient'] / hand:.3f}x",
                    memory["generated gradient"] <= hand, "<= 1x"))

    print(f"\n6. The MLP's module generated once with a symbolic batch (traced at 256), "
          "against the module specialised to each batch")
    for batch, times in symbolic_batch(rng).items():
        ratio = times["symbolic"] / times["specialised"]
        print(f"   batch {batch:5}: specialised {fmt_time(times['specialised'])}, "
              f"symbolic {fmt_time(times['symbolic'])}, symbolic / specialised {ratio:.3f}x")
        targets.append((f"MLP, batch {batch}", "symbolic batch / specialised module",
                        f"{ratio:.3f}x", ratio <= 1.05, "<= 1.05x"))

    print("\nSummary: times as ratios to hand-written numpy")
    header = (f"   {'':20} {'hand-written':>12} {'generated':>10} {'gen. forward':>13} "
              f"{'grad / fwd':>11} {'eager tape':>11}")
    print(header + (f" {'autograd':>9}" if autograd is not None else ""))
    for short, hand, gen, fwd, eager, theirs in summary:
        row = (f"   {short:20} {fmt_time(hand):>12} {gen / hand:9.2f}x {fwd / hand:12.2f}x "
               f"{gen / fwd:10.2f}x {eager / hand:10.1f}x")
        print(row + (f" {theirs / hand:8.1f}x" if theirs is not None else ""))
    print("\nTargets")
    for short, what, figure, met, target in targets:
        print(f"   {short:20} {what:39} {figure:>7}   {verdict(met, target)}")


if __name__ == "__main__":
    main()
