"""Keras-style training: an epoch of ``model.fit`` against a hand-written numpy loop and
against Keras' own ``fit``, and what ``fit`` spends around its compiled step.

Everything runs on one thread: the script sets ``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` (and TensorFlow's and XLA's thread
counts) to 1 before numpy is imported, and prints which BLAS numpy calls, with
its kernel where it can be asked.  One run prints, side by side:

1. One epoch of an MLP 784-128-10 (relu, logits, ``SparseCategoricalCrossentropy
   (from_logits=True)``, Adam 1e-3, ``metrics=["accuracy"]``) on 60,000
   synthetic float64 rows, batch 128, ``shuffle=True`` (``fit``'s default) for
   every variant, ``verbose=0``: tapegen's ``fit`` against the same model
   trained by hand in numpy (forward, backward, Keras' Adam in place, the same
   batches and the same per-epoch shuffling), target at most 1.2x; and against
   Keras' ``fit`` with TensorFlow, target at most 1.0x, where TensorFlow is
   installed (else skipped, saying why; Keras with the JAX backend, where it is
   installed and TensorFlow is not, is shown for information, with how far its
   weights end from the hand loop's after an epoch without shuffling).  The first
   epoch (which traces the step) is reported apart; the ratios compare later
   epochs, interleaved, the least of several.  Then, without shuffling, one
   epoch of ``fit`` and one of the hand loop from the same weights: the final
   weights and the epoch's loss and accuracy must agree to 1e-10, relative.
2. ``fit``'s bookkeeping (batching, callbacks, the progress bar at
   ``verbose=1`` written to ``os.devnull``, the logs made Python floats) over
   the compiled step alone (``model._steps["train"]`` called on the same
   batches, cut beforehand, in a tight loop), both without shuffling.
   Target: at most 10 % at batch 128.

Beside each time: the minor page faults per step (fresh memory pages the process
touched) and the cores kept busy (processor time over wall time: above 1 where a
variant works on other threads too, BLAS's one thread notwithstanding), the median
over the timed epochs.  A step that makes new arrays for the variables it updates,
as a compiled step does, frees blocks that the memory allocator may give back to
the system and fault in again at the next step; how often depends on where the
blocks lie, so it differs from run to run, and it is part of what an epoch costs.

Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/fit.py
"""

import os

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1",
              "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
os.environ.update(ONE_THREAD)  # before numpy (and any TensorFlow or JAX) is imported

import contextlib  # noqa: E402
import importlib.util  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tracer  # noqa: E402
from blas import blas_in_use  # noqa: E402
from timing import interleaved_min, verdict  # noqa: E402

ROWS, FEATURES, HIDDEN, CLASSES, BATCH = 60_000, 784, 128, 10, 128
RATE, BETA_1, BETA_2, EPSILON = 1e-3, 0.9, 0.999, 1e-7


def synthetic_data(rng):
    """Rows around one centre per class, the classes overlapping: the model learns, yet the
    loss stays far from zero over every epoch run here (near zero, Adam's moments would
    fall into subnormal numbers, whose arithmetic is slow at a pace that varies)."""
    labels = rng.integers(0, CLASSES, size=ROWS)
    centres = rng.normal(scale=0.03, size=(CLASSES, FEATURES))
    return centres[labels] + rng.normal(size=(ROWS, FEATURES)), labels


def glorot_weights(rng):
    """Kernels drawn as Keras' ``glorot_uniform`` draws them, biases zero."""
    weights = []
    for n_in, n_out in ((FEATURES, HIDDEN), (HIDDEN, CLASSES)):
        limit = np.sqrt(6 / (n_in + n_out))
        weights += [rng.uniform(-limit, limit, size=(n_in, n_out)), np.zeros(n_out)]
    return weights


def tapegen_model(weights):
    model = tracer.Sequential([tracer.Input((FEATURES,)),
                               tracer.layers.Dense(HIDDEN, activation="relu"),
                               tracer.layers.Dense(CLASSES)])
    model.set_weights(weights)
    model.compile(optimizer=tracer.optimizers.Adam(RATE),
                  loss=tracer.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


class HandWrittenMLP:
    """The MLP trained by hand in numpy: forward, backward, Keras' Adam in place, and the
    epoch's mean loss and accuracy, as ``fit`` reports them."""

    def __init__(self, weights, seed=0):
        self.weights = [w.copy() for w in weights]
        self.m = [np.zeros_like(w) for w in weights]
        self.v = [np.zeros_like(w) for w in weights]
        self.t = 0
        self.random = np.random.default_rng(seed)

    def epoch(self, x, labels, shuffle):
        """One pass over the rows in batches of ``BATCH``, in a new random order if
        ``shuffle`` (as ``fit`` draws and applies it); the mean loss and accuracy."""
        order = self.random.permutation(len(x)) if shuffle else None
        loss_sum = hits = 0.0
        for start in range(0, len(x), BATCH):
            part = slice(start, start + BATCH)
            if order is not None:
                part = order[part]
            batch_loss, batch_hits = self.step(x[part], labels[part])
            loss_sum += batch_loss * len(batch_hits)
            hits += np.count_nonzero(batch_hits)
        return loss_sum / len(x), hits / len(x)

    def step(self, x, labels):
        W1, b1, W2, b2 = self.weights
        z1 = x @ W1 + b1
        a1 = np.maximum(z1, 0)
        logits = a1 @ W2 + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        n, rows = x.shape[0], np.arange(x.shape[0])
        loss = (np.log(total).sum() - shifted[rows, labels].sum()) / n
        d_logits = e / total
        d_logits[rows, labels] -= 1
        d_logits /= n
        d_z1 = (d_logits @ W2.T) * (z1 > 0)
        gradients = [x.T @ d_z1, d_z1.sum(axis=0), a1.T @ d_logits, d_logits.sum(axis=0)]
        self.t += 1
        alpha = RATE * np.sqrt(1 - BETA_2 ** self.t) / (1 - BETA_1 ** self.t)
        for w, g, m, v in zip(self.weights, gradients, self.m, self.v):
            m += (g - m) * (1 - BETA_1)
            v += (g * g - v) * (1 - BETA_2)
            w -= m * alpha / (np.sqrt(v) + EPSILON)
        return loss, logits.argmax(axis=1) == labels


def keras_or_reason():
    """``(keras, backend)`` for Keras with TensorFlow, else with JAX; ``(None, why)``
    when neither can be imported.  The backend is chosen before Keras is imported."""
    try:
        import tensorflow as tf
    except ImportError as error:
        tensorflow_missing = f"TensorFlow is not installed ({error})"
        backend = "jax"
        if importlib.util.find_spec("keras") is None or importlib.util.find_spec("jax") is None:
            return None, tensorflow_missing
        import jax
        jax.config.update("jax_enable_x64", True)  # else Keras' float64 runs as float32
    else:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        backend = "tensorflow"
    os.environ["KERAS_BACKEND"] = backend
    try:
        import keras
    except ImportError as error:
        return None, f"Keras cannot be imported with the {backend} backend ({error})"
    keras.config.set_floatx("float64")
    return keras, backend


def keras_model(keras, weights):
    model = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(HIDDEN, activation="relu"),
                              keras.layers.Dense(CLASSES)])
    model.set_weights(weights)
    model.compile(optimizer=keras.optimizers.Adam(RATE),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def timed(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def page_faults():
    """Minor page faults of this process so far, or ``None`` where it cannot be read."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def observed(variants):
    """The variants, each noting for every call its page faults (``None`` where they
    cannot be read) and its processor time over its wall time, the cores it kept busy;
    and the dict of those notes by name."""
    notes = {name: [] for name in variants}

    def observing(run, into):
        def run_observed():
            faults, cpu, wall = page_faults(), time.process_time(), time.perf_counter()
            run()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            into.append((None if faults is None else page_faults() - faults, cpu / wall))
        return run_observed
    return {name: observing(run, notes[name]) for name, run in variants.items()}, notes


def described(notes, steps):
    """Median page faults per step and cores busy, as two columns."""
    faults = [f for f, _ in notes if f is not None]
    faults = f"{statistics.median(faults) / steps:.0f}" if faults else "-"
    return f"{faults:>11} {statistics.median(c for _, c in notes):6.2f}"


def largest_relative_difference(ours, theirs):
    """The largest difference of two lists of arrays, relative to each array's largest
    magnitude."""
    return max(float(np.max(np.abs(a - b)) / np.max(np.abs(b))) for a, b in zip(ours, theirs))


def agreement(x, labels, initial):
    """One epoch without shuffling, by ``fit`` and by hand, from the same weights: the
    largest relative difference of the final weights, and of the loss and accuracy."""
    model = tapegen_model(initial)
    logs = model.fit(x, labels, batch_size=BATCH, epochs=1, shuffle=False, verbose=0).history
    hand = HandWrittenMLP(initial)
    loss, accuracy = hand.epoch(x, labels, shuffle=False)
    metrics = largest_relative_difference(
        [np.array([logs["loss"][0], logs["accuracy"][0]])], [np.array([loss, accuracy])])
    return largest_relative_difference(model.get_weights(), hand.weights), metrics, loss, accuracy


def keras_agreement(keras, x, labels, initial):
    """One epoch without shuffling by Keras' ``fit`` and by hand, from the same weights:
    the largest relative difference of the final weights."""
    model = keras_model(keras, initial)
    model.fit(x, labels, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    hand = HandWrittenMLP(initial)
    hand.epoch(x, labels, shuffle=False)
    return largest_relative_difference([np.asarray(w) for w in model.get_weights()],
                                       hand.weights)


def epochs(x, labels, initial, steps):
    """Part 1: an epoch of each variant, first and later, and the agreement check; the
    targets, and the tapegen model (its step compiled)."""
    model = tapegen_model(initial)
    hand = HandWrittenMLP(initial)
    variants = {
        "tapegen fit": lambda: model.fit(x, labels, batch_size=BATCH, epochs=1, verbose=0),
        "hand-written numpy loop": lambda: hand.epoch(x, labels, shuffle=True)}
    keras, backend = keras_or_reason()
    if keras is not None:
        keras_name = f"Keras {keras.__version__} fit ({backend})"
        theirs = keras_model(keras, initial)
        variants[keras_name] = lambda: theirs.fit(x, labels, batch_size=BATCH, epochs=1,
                                                  shuffle=True, verbose=0)
    first = {name: timed(run) for name, run in variants.items()}
    traces = model._steps["train"].experimental_get_tracing_count()
    variants, notes = observed(variants)
    times = interleaved_min(variants, repeats=7, number=1)
    hand_time = times["hand-written numpy loop"]
    print(f"\n1. One epoch: MLP 784-128-10, {ROWS} rows, batch {BATCH} ({steps} steps), Adam, "
          "float64, shuffle=True, verbose=0")
    print(f"   {'':34} {'first epoch':>11} {'later epochs':>12} {'per step':>10} "
          f"{'/ hand':>7} {'faults/step':>11} {'cores':>6}")
    for name, seconds in times.items():
        print(f"   {name:34} {first[name]:9.3f} s {seconds:10.3f} s "
              f"{seconds / steps * 1e6:7.0f} us {seconds / hand_time:6.2f}x "
              f"{described(notes[name], steps)}")
    print(f"   (tapegen's first epoch traced the step {traces} time(s))")
    ratio = times["tapegen fit"] / hand_time
    targets = [("epoch", "tapegen fit / hand-written numpy", f"{ratio:.3f}x",
                verdict(ratio <= 1.2, "<= 1.2x"))]
    if backend == "tensorflow":
        ratio = times["tapegen fit"] / times[keras_name]
        targets.append(("epoch", "tapegen fit / Keras fit (TensorFlow)", f"{ratio:.3f}x",
                        verdict(ratio <= 1.0, "<= 1.0x")))
    else:
        reason = backend if keras is None else "TensorFlow is not installed"
        print(f"   Keras fit with TensorFlow skipped: {reason}"
              + (f"; {keras_name} shown for information, not a target" if keras else ""))
        targets.append(("epoch", "tapegen fit / Keras fit (TensorFlow)", "-",
                        "skip <= 1.0x (no TensorFlow)"))

    weights, metrics, loss, accuracy = agreement(x, labels, initial)
    print(f"   Without shuffling, one epoch from the same weights, fit against the hand loop: "
          f"final weights {weights:.1e}, loss and accuracy {metrics:.1e} apart, relative "
          f"(loss {loss:.4f}, accuracy {accuracy:.4f})")
    if keras is not None:
        print(f"   The same for {keras_name} against the hand loop: final weights "
              f"{keras_agreement(keras, x, labels, initial):.1e} apart, relative")
    worst = max(weights, metrics)
    targets.append(("epoch", "fit vs hand loop, weights and metrics", f"{worst:.1e}",
                    verdict(worst <= 1e-10, "<= 1e-10")))
    return targets, model


def bookkeeping(model, x, labels, steps):
    """Part 2: ``fit`` at ``verbose=0`` and ``1`` against its compiled step called alone on
    the same batches, cut beforehand; the target."""
    step = model._steps["train"]
    batches = [(x[start:start + BATCH], labels[start:start + BATCH], None)
               for start in range(0, ROWS, BATCH)]

    def steps_alone():
        for batch in batches:
            step(batch)

    def fit_quiet():
        model.fit(x, labels, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)

    def fit_with_progress():
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            model.fit(x, labels, batch_size=BATCH, epochs=1, shuffle=False, verbose=1)

    variants, notes = observed({
        "compiled step alone, tight loop": steps_alone, "fit, verbose=0": fit_quiet,
        "fit, verbose=1 (to os.devnull)": fit_with_progress})
    times = interleaved_min(variants, repeats=7, number=1)
    alone = times["compiled step alone, tight loop"]
    print(f"\n2. fit's bookkeeping over the compiled step: one epoch of {steps} steps, "
          "shuffle=False")
    print(f"   {'':34} {'epoch':>8} {'per step':>10} {'over step':>10} {'faults/step':>11} "
          f"{'cores':>6}")
    for name, seconds in times.items():
        print(f"   {name:34} {seconds:6.3f} s {seconds / steps * 1e6:7.0f} us "
              f"{(seconds / alone - 1) * 100:+8.1f} % {described(notes[name], steps)}")
    overhead = times["fit, verbose=1 (to os.devnull)"] / alone - 1
    return ("fit step", "bookkeeping over the step, verbose=1", f"{overhead * 100:.1f} %",
            verdict(overhead <= 0.10, "<= 10 %"))


def main():
    print("One thread: " + ", ".join(f"{k}={v}" for k, v in ONE_THREAD.items())
          + ", set before numpy is imported")
    print(f"BLAS: {blas_in_use()}")
    rng = np.random.default_rng(0)
    x, labels = synthetic_data(rng)
    initial = glorot_weights(rng)
    steps = -(-ROWS // BATCH)
    targets, model = epochs(x, labels, initial, steps)
    targets.append(bookkeeping(model, x, labels, steps))
    print("\nTargets")
    for what, measure, figure, met in targets:
        print(f"   {what:10} {measure:38} {figure:>10}   {met}")


if __name__ == "__main__":
    main()
