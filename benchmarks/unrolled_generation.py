"""Generating the gradient module of a long unrolled loop: time by phase, per op.

The loop is an explicit Euler integrator of ``dy/dt = k sin(y)`` for a state
``y`` of four elements and a ``tracer.Variable`` ``k``, three ops a step, one
a line, so that every op is a statement of the generated forward code and
its cotangent one of the adjoint code:

    rate = dt * k
    for _ in range(steps):
        slope = np.sin(y)
        step = rate * slope
        y = y + step
    loss = np.sum(y * y)

For each number of steps (100, 1,000 and 5,000 unless given on the command
line) it records the loop on a ``GradientTape``, generates the module of
d loss / d (y0, k) with ``codegen.gradient_source``, checks that module's
gradient against the tape's, and prints the recorded ops, the lines of the
module, and the seconds spent in each phase:

    trace     running the loop on the tape
    graph     the tape's records as an ``ir.Graph``, its parameters and names
    adjoint   ``ir.adjoint``: the adjoint graph, and the names of its values
    optimise  ``ir.optimize``: the passes, to a fixed point
    emit      ``codegen.emit.lay_out`` without astor: statements, names, ``del``
    astor     expressions written as text by astor
    module    the rest: docstring, ``INPUTS``, the module's text

Phases are timed by wrapping the functions named above; a phase called from
inside another counts for itself only.  The last column is the whole
generation (trace excluded) in microseconds per recorded op: flat when
generation time is linear in the number of ops.  The target is a 5,000-step
loop generated in under 10 s.  Takes about half a minute:

    python benchmarks/unrolled_generation.py [steps ...]
"""

import functools
import sys
import time

import numpy as np

import codegen
import codegen.emit
import codegen.module
import ir
import tracer
from timing import verdict

STEPS = (100, 1_000, 5_000)
DT = 0.01
TARGET_STEPS, TARGET_SECONDS = 5_000, 10.0

PHASES = ("trace", "graph", "adjoint", "optimise", "emit", "astor", "module")
WRAPPED = ((codegen.module, "read_request", "graph"),
           (codegen.module, "_prepared_forward", "graph"),
           (ir, "adjoint", "adjoint"),
           (codegen.module, "name_adjoint_values", "adjoint"),
           (codegen.module, "optimize_to_run", "optimise"),
           (codegen.module, "lay_out", "emit"),
           (codegen.emit, "expression_text", "astor"))
"""``(module, function, phase)``: what each phase's time is measured on."""


def integrate(y, k, steps):
    rate = DT * k
    for _ in range(steps):
        slope = np.sin(y)
        step = rate * slope
        y = y + step
    return np.sum(y * y)


class PhaseClock:
    """Seconds spent in each phase; a phase entered inside another pauses the outer one."""

    def __init__(self):
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self._running = []  # [phase, started] of the phases entered, innermost last

    def wrap(self, function, phase):
        @functools.wraps(function)
        def timed(*args, **kwargs):
            self._enter(phase)
            try:
                return function(*args, **kwargs)
            finally:
                self._leave()
        return timed

    def _enter(self, phase):
        now = time.perf_counter()
        if self._running:
            outer = self._running[-1]
            self.seconds[outer[0]] += now - outer[1]
        self._running.append([phase, now])

    def _leave(self):
        now = time.perf_counter()
        phase, started = self._running.pop()
        self.seconds[phase] += now - started
        if self._running:
            self._running[-1][1] = now


def install(clock):
    """Wrap the functions of ``WRAPPED`` so ``clock`` times them."""
    for module, name, phase in WRAPPED:
        setattr(module, name, clock.wrap(getattr(module, name), phase))


def measure(steps, clock):
    """``(ops, lines, seconds by phase)`` for a loop of ``steps`` steps."""
    clock.seconds = dict.fromkeys(PHASES, 0.0)
    y0 = tracer.constant(np.linspace(0.1, 1.0, 4), name="y0")
    k = tracer.Variable(np.array([0.5, 1.0, 1.5, 2.0]), name="k")
    start = time.perf_counter()
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(y0)
        loss = integrate(y0, k, steps)
    traced = time.perf_counter()
    source = codegen.gradient_source(tape, loss, [y0, k], name="gradient")
    total = time.perf_counter() - traced
    seconds = dict(clock.seconds, trace=traced - start)
    seconds["module"] = total - sum(v for p, v in seconds.items() if p != "trace")
    check(source, tape, loss, y0, k)
    ops = sum(1 for node in tape.graph if node.kind == "op")
    return ops, source.count("\n"), seconds


def check(source, tape, loss, y0, k):
    """The generated gradient is the tape's."""
    generated = codegen.load(source).gradient(y0.numpy(), k.numpy())
    for ours, eager in zip(generated, tape.gradient(loss, [y0, k])):
        np.testing.assert_allclose(ours, eager.numpy(), rtol=1e-10, atol=1e-12)


def main(argv):
    steps_list = [int(a) for a in argv] or list(STEPS)
    clock = PhaseClock()
    install(clock)
    print(f"{'steps':>6} {'ops':>7} {'lines':>8} "
          + " ".join(f"{p:>8}" for p in PHASES) + f" {'total':>8} {'us/op':>7}")
    for steps in steps_list:
        ops, lines, seconds = measure(steps, clock)
        total = sum(v for p, v in seconds.items() if p != "trace")
        print(f"{steps:>6} {ops:>7,} {lines:>8,} "
              + " ".join(f"{seconds[p]:>8.2f}" for p in PHASES)
              + f" {total:>8.2f} {total / ops * 1e6:>7.0f}"
              + (f"    {verdict(total < TARGET_SECONDS, f'< {TARGET_SECONDS:.0f} s')}"
                 if steps == TARGET_STEPS else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
