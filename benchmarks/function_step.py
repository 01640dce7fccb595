"""Graph mode: training steps under ``@tracer.function`` against eager tapes, hand-written
numpy and JAX.

One run prints, side by side:

1. An MLP 784-64-64-10 (relu, softmax cross-entropy, Adam 1e-3, batch 64,
   float64): one training step written as TensorFlow users write it (a tape,
   ``tape.gradient``, ``optimizer.apply_gradients``), run eagerly and under
   ``@tracer.function``, against the same step written by hand in numpy
   (forward, backward and Adam, in place), each stepping through the same
   ``BATCHES`` batches.  Target: the function at most 1.15x the
   hand-written step.
2. A tanh RNN (hidden 16, 40 steps written as a Python ``for`` loop), SGD with
   momentum and ``clipnorm``: the function against the eager step (target: at
   least 4x faster), and with ``jit_compile=True`` against the same step
   written in ``jax.numpy`` under ``jax.jit`` (target: at most 1.10x; needs the
   ``[jax]`` extra, else skipped).
3. An epoch of 1000 rows in batches of 64 (the last one 40): how many traces
   with ``reduce_retracing=True`` and without (target: 1 and 2).
4. The first call of the MLP step: trace, generate and load (target: under 1 s).
5. 20 steps compiled against 20 eager steps, for every optimizer configuration
   of ``CONFIGURATIONS``: the largest difference in losses and variables
   (target: equal to 1e-12, relative).

Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/function_step.py
"""

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tracer  # noqa: E402
from tracer import optimizers  # noqa: E402
from blas import blas_in_use  # noqa: E402
from timing import interleaved_min, verdict  # noqa: E402

SCHEDULES = optimizers.schedules


def mlp_data(rng, batch=64):
    x = rng.normal(size=(batch, 784))
    y = np.eye(10)[rng.integers(0, 10, size=batch)]
    return x, y


def mlp_initial(rng):
    sizes = [784, 64, 64, 10]
    weights = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        limit = np.sqrt(6 / (n_in + n_out))
        weights += [rng.uniform(-limit, limit, size=(n_in, n_out)), np.zeros(n_out)]
    return weights


def mlp_loss(weights, x, y):
    """Softmax cross-entropy of the MLP, written as a user writes it with tapegen."""
    W1, b1, W2, b2, W3, b3 = weights
    h = np.maximum(x @ W1 + b1, 0)
    h = np.maximum(h @ W2 + b2, 0)
    logits = h @ W3 + b3
    log_p = logits - tracer.logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.sum(y * log_p, axis=1))


def mlp_step(weights, optimizer):
    """The training step: a tape, its gradient, the optimizer's update."""
    def step(x, y):
        with tracer.GradientTape() as tape:
            loss = mlp_loss(weights, x, y)
        gradients = tape.gradient(loss, weights)
        optimizer.apply_gradients(zip(gradients, weights))
        return loss
    return step


class HandWrittenMLP:
    """The MLP's step by hand: forward, backward and Keras' Adam, in numpy, in place."""

    def __init__(self, weights, rate=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
        self.weights = [w.copy() for w in weights]
        self.m = [np.zeros_like(w) for w in weights]
        self.v = [np.zeros_like(w) for w in weights]
        self.rate, self.beta_1, self.beta_2, self.epsilon = rate, beta_1, beta_2, epsilon
        self.t = 0

    def __call__(self, x, y):
        W1, b1, W2, b2, W3, b3 = self.weights
        z1 = x @ W1 + b1
        a1 = np.maximum(z1, 0)
        z2 = a1 @ W2 + b2
        a2 = np.maximum(z2, 0)
        logits = a2 @ W3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        n = x.shape[0]
        loss = -np.sum(y * (shifted - np.log(total))) / n
        d_logits = (e / total - y) / n
        d_a2 = d_logits @ W3.T
        d_z2 = d_a2 * (z2 > 0)
        d_a1 = d_z2 @ W2.T
        d_z1 = d_a1 * (z1 > 0)
        gradients = [x.T @ d_z1, d_z1.sum(axis=0), a1.T @ d_z2, d_z2.sum(axis=0),
                     a2.T @ d_logits, d_logits.sum(axis=0)]
        self.t += 1
        alpha = (self.rate * np.sqrt(1 - self.beta_2 ** self.t)
                 / (1 - self.beta_1 ** self.t))
        for w, g, m, v in zip(self.weights, gradients, self.m, self.v):
            m += (g - m) * (1 - self.beta_1)
            v += (g * g - v) * (1 - self.beta_2)
            w -= m * alpha / (np.sqrt(v) + self.epsilon)
        return loss


BATCHES = 16
"""Each variant steps through this many batches in turn, as a training loop does: on one
batch the loss would fall towards zero and the moments into subnormal numbers, whose
arithmetic is many times slower, at a pace that differs from run to run."""


def batch_cycle(batches):
    """A function giving the next of ``batches`` at each call, round and round."""
    position = [0]

    def following():
        position[0] = (position[0] + 1) % len(batches)
        return batches[position[0]]
    return following


def mlp_variants(rng):
    initial = mlp_initial(rng)
    batches = [mlp_data(rng) for _ in range(BATCHES)]
    x, y = batches[0]
    steps = {}
    for name in ("eager", "function"):
        weights = [tracer.Variable(w, name=f"w{k}") for k, w in enumerate(initial)]
        step = mlp_step(weights, optimizers.Adam(1e-3))
        steps[name] = tracer.function(step) if name == "function" else step
    hand = HandWrittenMLP(initial)
    checks = [float(steps["function"](x, y)), float(hand(x, y)), float(steps["eager"](x, y))]
    np.testing.assert_allclose(checks[0], checks[1], rtol=1e-10)
    np.testing.assert_allclose(checks[0], checks[2], rtol=1e-10)
    runs = {"hand-written numpy": hand, "eager: tape, gradient, apply_gradients": steps["eager"],
            "@tracer.function": steps["function"]}
    return {name: (lambda run=run, batch=batch_cycle(batches): run(*batch()))
            for name, run in runs.items()}


def rnn_loss(weights, xs, target):
    """A tanh RNN written as a Python loop over the steps, and its squared error."""
    W_x, W_h, b, W_out = weights
    h = np.zeros((xs.shape[1], W_h.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ W_x + h @ W_h + b)
    return np.mean((h @ W_out - target) ** 2)


def rnn_initial(rng, inputs=8, hidden=16):
    return [rng.normal(scale=0.3, size=(inputs, hidden)),
            rng.normal(scale=0.3, size=(hidden, hidden)), np.zeros(hidden),
            rng.normal(scale=0.3, size=(hidden, 1))]


def rnn_data(rng, steps=40, batch=32, inputs=8):
    return rng.normal(size=(steps, batch, inputs)), rng.normal(size=(batch, 1))


RATE, MOMENTUM, CLIPNORM = 0.05, 0.9, 1.0


def rnn_steps(rng, jax=None):
    """The RNN's step eager, under ``tracer.function``, and (given ``jax``) with
    ``jit_compile=True`` and written by hand in ``jax.numpy`` under ``jax.jit``."""
    initial = rnn_initial(rng)
    xs, target = rnn_data(rng)
    kinds = {"eager": None, "@tracer.function": {}}
    if jax is not None:
        kinds["@tracer.function(jit_compile=True)"] = {"jit_compile": True}
    steps = {}
    for name, options in kinds.items():
        weights = [tracer.Variable(w, name=f"w{k}") for k, w in enumerate(initial)]
        optimizer = optimizers.SGD(RATE, momentum=MOMENTUM, clipnorm=CLIPNORM)

        def step(xs, target, weights=weights, optimizer=optimizer):
            with tracer.GradientTape() as tape:
                loss = rnn_loss(weights, xs, target)
            gradients = tape.gradient(loss, weights)
            optimizer.apply_gradients(zip(gradients, weights))
            return loss
        steps[name] = step if options is None else tracer.function(step, **options)
    if jax is not None:
        steps["hand-written JAX step, jax.jit"] = jax_rnn_step(jax, initial)
    losses = [float(run(xs, target)) for run in steps.values()]
    np.testing.assert_allclose(losses, losses[0], rtol=1e-10)
    return {name: (lambda run=run: run(xs, target)) for name, run in steps.items()}


def jax_rnn_step(jax, initial):
    """The RNN's step as a JAX user writes it: ``jax.value_and_grad`` of the loss in
    ``jax.numpy``, Keras' clipping and SGD with momentum by hand, all under ``jax.jit``;
    the weights stay JAX arrays between steps."""
    jnp = jax.numpy

    def loss_of(weights, xs, target):
        W_x, W_h, b, W_out = weights
        h = jnp.zeros((xs.shape[1], W_h.shape[0]))
        for t in range(xs.shape[0]):
            h = jnp.tanh(xs[t] @ W_x + h @ W_h + b)
        return jnp.mean((h @ W_out - target) ** 2)

    @jax.jit
    def step(weights, momenta, xs, target):
        loss, gradients = jax.value_and_grad(loss_of)(weights, xs, target)
        gradients = [g * CLIPNORM / jnp.maximum(jnp.sqrt(jnp.sum(g * g)), CLIPNORM)
                     for g in gradients]
        momenta = [m * MOMENTUM - g * RATE for m, g in zip(momenta, gradients)]
        return loss, [w + m for w, m in zip(weights, momenta)], momenta

    state = [[jnp.asarray(w) for w in initial], [jnp.zeros_like(w) for w in initial]]

    def run(xs, target):
        loss, state[0], state[1] = step(state[0], state[1], xs, target)
        return np.asarray(loss)
    return run


def epoch_traces(rng, reduce_retracing):
    """Traces made by one epoch of 1000 rows in batches of 64."""
    weights = [tracer.Variable(w, name=f"w{k}") for k, w in enumerate(mlp_initial(rng))]
    step = tracer.function(mlp_step(weights, optimizers.Adam(1e-3)),
                           reduce_retracing=reduce_retracing)
    x, y = mlp_data(rng, 1000)
    for start in range(0, 1000, 64):
        step(x[start:start + 64], y[start:start + 64])
    return step.experimental_get_tracing_count()


def first_call_seconds(rng):
    weights = [tracer.Variable(w, name=f"w{k}") for k, w in enumerate(mlp_initial(rng))]
    step = tracer.function(mlp_step(weights, optimizers.Adam(1e-3)))
    x, y = mlp_data(rng)
    start = time.perf_counter()
    step(x, y)
    return time.perf_counter() - start


CONFIGURATIONS = {
    "SGD": lambda: optimizers.SGD(0.1),
    "SGD momentum": lambda: optimizers.SGD(0.1, momentum=0.9),
    "SGD Nesterov": lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "Adam": lambda: optimizers.Adam(0.01),
    "Adam amsgrad": lambda: optimizers.Adam(0.01, amsgrad=True),
    "AdamW": lambda: optimizers.AdamW(0.01),
    "RMSprop": lambda: optimizers.RMSprop(0.01),
    "RMSprop centered, momentum": lambda: optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "Adagrad": lambda: optimizers.Adagrad(0.1),
    "Adam clipnorm": lambda: optimizers.Adam(0.01, clipnorm=0.05),
    "Adam global_clipnorm": lambda: optimizers.Adam(0.01, global_clipnorm=0.05),
    "SGD clipvalue": lambda: optimizers.SGD(0.1, clipvalue=0.01),
    "SGD weight decay": lambda: optimizers.SGD(0.1, weight_decay=0.01),
    "SGD ExponentialDecay": lambda: optimizers.SGD(
        SCHEDULES.ExponentialDecay(0.1, 3, 0.5, staircase=True)),
    "SGD PiecewiseConstantDecay": lambda: optimizers.SGD(
        SCHEDULES.PiecewiseConstantDecay([3, 7], [0.1, 0.05, 0.01])),
    "Adam CosineDecay, warm-up": lambda: optimizers.Adam(
        SCHEDULES.CosineDecay(0.01, 10, warmup_target=0.1, warmup_steps=5)),
    "Adam InverseTimeDecay": lambda: optimizers.Adam(SCHEDULES.InverseTimeDecay(0.01, 3, 0.5)),
}
"""Every optimizer, clipping, weight decay and schedule the equality check runs."""


def twenty_steps(make_optimizer, compiled, seed=0):
    """Losses, then every variable (the model's and the optimizer's), after 20 steps of a
    small tanh regression, eager or under ``tracer.function``."""
    rng = np.random.default_rng(seed)
    weights = [tracer.Variable(rng.normal(size=(3, 2)), name="W"),
               tracer.Variable(np.zeros(2), name="b")]
    optimizer = make_optimizer()

    def step(x, y):
        with tracer.GradientTape() as tape:
            loss = np.mean((np.tanh(x @ weights[0] + weights[1]) - y) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, weights), weights))
        return loss
    step = tracer.function(step) if compiled else step
    losses = [np.asarray(step(rng.normal(size=(4, 3)), rng.normal(size=(4, 2))))
              for _ in range(20)]
    return [np.array(losses)] + [np.array(v.numpy()) for v in weights + optimizer.variables]


def largest_difference(make_optimizer):
    eager, compiled = twenty_steps(make_optimizer, False), twenty_steps(make_optimizer, True)
    return max(float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-300)))
               if np.size(a) else 0.0 for a, b in zip(eager, compiled))


def jax_or_none():
    """JAX with float64 on, or ``None`` when it is not installed."""
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    return jax


def main():
    rng = np.random.default_rng(0)
    targets = []
    print(f"BLAS: {blas_in_use()}\n")
    times = interleaved_min(mlp_variants(rng), repeats=15, number=20)
    hand = times["hand-written numpy"]
    print("1. MLP 784-64-64-10, relu, softmax cross-entropy, Adam, batch 64, float64")
    for name, seconds in times.items():
        print(f"   {name:42} {seconds * 1e6:9.1f} us {seconds / hand:7.2f}x")
    ratio = times["@tracer.function"] / hand
    targets.append(("MLP step", "@tracer.function / hand-written", f"{ratio:.3f}x",
                    verdict(ratio <= 1.15, "<= 1.15x")))

    jax = jax_or_none()
    steps = rnn_steps(rng, jax)
    times = interleaved_min({k: steps[k] for k in ("eager", "@tracer.function")},
                            repeats=7, number=5)
    print("\n2. tanh RNN, hidden 16, 40 steps as a Python loop, SGD momentum, clipnorm")
    for name, seconds in times.items():
        print(f"   {name:42} {seconds * 1e6:9.1f} us")
    speedup = times["eager"] / times["@tracer.function"]
    targets.append(("RNN step", "eager / @tracer.function", f"{speedup:.1f}x",
                    verdict(speedup >= 4, ">= 4x")))
    if jax is None:
        print("   (jit_compile and JAX's own step skipped: pip install -e '.[jax]')")
    else:
        compiled = ("@tracer.function(jit_compile=True)", "hand-written JAX step, jax.jit")
        times = interleaved_min({k: steps[k] for k in compiled}, repeats=20, number=10)
        for name, seconds in times.items():
            print(f"   {name:42} {seconds * 1e6:9.1f} us")
        ratio = times[compiled[0]] / times[compiled[1]]
        targets.append(("RNN step", "jit_compile=True / JAX's own jax.jit",
                        f"{ratio:.3f}x", verdict(ratio <= 1.10, "<= 1.10x")))

    counts = {flag: epoch_traces(rng, flag) for flag in (True, False)}
    print(f"\n3. An epoch of 1000 rows in batches of 64: {counts[True]} trace(s) with "
          f"reduce_retracing=True, {counts[False]} without")
    targets.append(("epoch", "traces, reduce_retracing / without",
                    f"{counts[True]} / {counts[False]}",
                    verdict(counts == {True: 1, False: 2}, "1 / 2")))

    seconds = first_call_seconds(rng)
    print(f"\n4. First call of the MLP step (trace, generate, load): {seconds:.3f} s")
    targets.append(("MLP step", "first call", f"{seconds:.3f} s", verdict(seconds < 1, "< 1 s")))

    print("\n5. 20 steps compiled against eager: largest relative difference")
    worst = 0.0
    for name, make in CONFIGURATIONS.items():
        difference = largest_difference(make)
        worst = max(worst, difference)
        print(f"   {name:32} {difference:.1e}")
    targets.append(("20 steps", "compiled vs eager, every optimizer", f"{worst:.1e}",
                    verdict(worst <= 1e-12, "<= 1e-12")))

    print("\nTargets")
    for what, measure, figure, met in targets:
        print(f"   {what:10} {measure:38} {figure:>10}   {met}")


if __name__ == "__main__":
    main()
