"""Loops that stay loops: gradients through ``tracer.scan`` beside plain numpy.

Two programs, each measured side by side in one run:

1. A 10,000-step explicit integrator of 256 damped, driven oscillators with
   stiffnesses ``k`` (a state of 2 x 256 values and the time, 11 ops a step);
   the loss reads the final state and one value per step.
2. A 50-step tanh RNN over a sequence (hidden size 64, input size 32).

For each: the plain numpy forward loop; the eager gradient with the loop
unrolled on a tape and with ``tracer.scan``; the gradient module
``codegen.gradient_source`` writes for the scan (its run time, its length in
lines and the time to generate it), each time as a ratio to the plain
forward; and the peak memory (tracemalloc) of the scan gradient under each
checkpoint setting.  Every gradient is checked against the unrolled one
before it is timed.  Takes about a minute:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/control_flow.py
"""

import time

import numpy as np

import codegen
import tracer
from timing import interleaved_min, peak_bytes, verdict

STEPS = 10_000
OSCILLATORS = 256
DT = 1e-3


def oscillator_step(k):
    """One explicit step of ``x'' = -k x - 0.1 x' + sin(t)``, ``t`` carried along; the
    step's output is the first oscillator's position."""
    def step(state, _):
        x, v, t = state
        a = -k * x - 0.1 * v + np.sin(t)
        return (x + DT * v, v + DT * a, t + DT), x[0]
    return step


def oscillator_loss(final, ys):
    return np.sum(final[0] ** 2) + np.sum(ys * ys) * DT


def rnn_step(w, u):
    def step(h, x):
        h = np.tanh(w @ h + u @ x)
        return h, h
    return step


def rnn_loss(final, ys):
    return np.sum(final ** 2) + np.mean(ys)


class Program:
    """A loop, its loss, its parameters and its data, run every way measured."""

    def __init__(self, name, make_step, loss, params, init, xs=None, length=None):
        self.name, self.make_step, self.loss = name, make_step, loss
        self.params, self.init, self.xs, self.length = params, init, xs, length

    def plain(self):
        step = self.make_step(*self.params)
        carry, ys = self.init, []
        for t in range(self.length or len(self.xs)):
            carry, y = step(carry, None if self.xs is None else self.xs[t])
            ys.append(y)
        return self.loss(carry, np.stack(ys))

    def unrolled_gradient(self):
        params = [tracer.Variable(p) for p in self.params]
        with tracer.GradientTape() as tape:
            step = self.make_step(*params)
            carry, ys = self.init, []
            for t in range(self.length or len(self.xs)):
                carry, y = step(carry, None if self.xs is None else self.xs[t])
                ys.append(y)
            loss = self.loss(carry, np.stack(ys))
        return [g.numpy() for g in tape.gradient(loss, params)]

    def scan_gradient(self, checkpoint=None):
        params = [tracer.Variable(p) for p in self.params]
        with tracer.GradientTape() as tape:
            final, ys = tracer.scan(self.make_step(*params), self.init, self.xs,
                                    length=self.length, checkpoint=checkpoint)
            loss = self.loss(final, ys)
        return [g.numpy() for g in tape.gradient(loss, params)]


    def generated(self):
        """The scan gradient's generated module: its function (called with every input by
        name), its lines and its generation time."""
        params = [tracer.Variable(p, name=f"param_{k}") for k, p in enumerate(self.params)]
        values = {f"param_{k}": p for k, p in enumerate(self.params)}
        init = [tracer.constant(v, name=f"init_{k}") for k, v in enumerate(_leaves(self.init))]
        values.update((f"init_{k}", v) for k, v in enumerate(_leaves(self.init)))
        xs = None if self.xs is None else tracer.constant(self.xs, name="xs")
        values["xs"] = self.xs
        with tracer.GradientTape(persistent=True) as tape:
            carry = tuple(init) if isinstance(self.init, tuple) else init[0]
            final, ys = tracer.scan(self.make_step(*params), carry, xs, length=self.length)
            loss = self.loss(final, ys)
        start = time.perf_counter()
        source = codegen.gradient_source(tape, loss, params)
        seconds = time.perf_counter() - start
        module = codegen.load(source)
        arguments = [values[name] for name, _, _ in module.INPUTS]
        return (lambda: module.gradient(*arguments)), source.count("\n") + 1, seconds


def _leaves(init):
    return list(init) if isinstance(init, tuple) else [init]


def measure(program, checkpoints):
    expected = program.unrolled_gradient()
    for checkpoint in checkpoints:
        for got, want in zip(program.scan_gradient(checkpoint), expected):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    module, lines, seconds = program.generated()
    for got, want in zip(module(), expected):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    times = interleaved_min({"plain": program.plain, "unrolled": program.unrolled_gradient,
                             "scan": program.scan_gradient, "generated": module},
                            repeats=3, number=1)
    print(f"\n{program.name}")
    print(f"  plain numpy forward loop      {times['plain'] * 1e3:9.1f} ms")
    for name in ("unrolled", "scan", "generated"):
        ratio = times[name] / times["plain"]
        label = "generated gradient" if name == "generated" else f"eager gradient, {name}"
        print(f"  {label:<29} {times[name] * 1e3:9.1f} ms  {ratio:5.2f}x")
    ratio = times["scan"] / times["plain"]
    print(f"  eager scan gradient / plain forward: {ratio:.2f}x   {verdict(ratio <= 4, '<= 4x')}")
    ratio = times["generated"] / times["plain"]
    print(f"  generated gradient / plain forward:  {ratio:.2f}x   "
          f"{verdict(ratio <= 2.5, '<= 2.5x')}")
    print(f"  generated module: {lines} lines   {verdict(lines < 200, '< 200 lines')}")
    print(f"  generation time: {seconds:.2f} s   {verdict(seconds < 2, '< 2 s')}")
    memory = {c: peak_bytes(lambda c=c: program.scan_gradient(c)) for c in checkpoints}
    for checkpoint, size in memory.items():
        print(f"  peak memory, checkpoint={checkpoint!r:<11} {size / 2**20:8.2f} MiB")
    return memory


def main():
    rng = np.random.default_rng(0)
    oscillator = Program("integrator, 10,000 steps", oscillator_step, oscillator_loss,
                         [rng.uniform(0.5, 2.0, OSCILLATORS)],
                         (rng.normal(size=OSCILLATORS), np.zeros(OSCILLATORS), np.array(0.0)),
                         length=STEPS)
    memory = measure(oscillator, [None, "recompute", 100])
    ratio = memory[100] / memory[None]
    print(f"  checkpoint=100 / every step: {ratio:.3f}   {verdict(ratio <= 0.1, '<= 1/10')}")
    rnn = Program("tanh RNN, 50 steps", rnn_step, rnn_loss,
                  [rng.normal(size=(64, 64)) / 8, rng.normal(size=(64, 32)) / 6],
                  np.zeros(64), xs=rng.normal(size=(50, 32)))
    measure(rnn, [None, "recompute", 10])


if __name__ == "__main__":
    main()
