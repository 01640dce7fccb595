"""Fit a parameter of an ODE through a 10,000-step simulation, recorded as one loop.

A damped pendulum, ``theta'' = -(g / L) sin(theta) - c theta'``, is integrated
with 10,000 explicit steps by ``tracer.scan``: the loop is one node of the
recording, not 10,000 copies of its body.  Its damping ``c`` is unknown; we
observe the angle at every step of a run with the true damping and recover
``c`` by gradient descent on the squared error, with the loop's gradient
computed as a loop in reverse.  Then ``codegen.gradient_source`` writes the
gradient as a module of plain numpy that keeps the loop a ``for`` loop: it is
printed, written to a file, loaded, and checked against the eager gradient.

Run it with:

    python examples/simulation.py
"""

import os
import tempfile

import numpy as np

import codegen
import tracer

STEPS = 10_000
DT = 1e-3
G_OVER_L = 9.81


def simulate(damping, start):
    """Angles of the pendulum at every step, from ``start`` = (angle, velocity)."""
    def step(state, _):
        theta, omega = state
        alpha = -G_OVER_L * np.sin(theta) - damping * omega
        return (theta + DT * omega, omega + DT * alpha), theta

    _, angles = tracer.scan(step, start, length=STEPS, checkpoint=100)
    return angles


def loss_of(damping, start, observed):
    return np.mean((simulate(damping, start) - observed) ** 2)


def main():
    start = (np.array(1.0), np.array(0.0))
    observed = np.asarray(simulate(np.array(0.8), start))  # the true damping is 0.8

    damping = tracer.Variable(np.array(0.2), name="damping")
    for step in range(60):
        with tracer.GradientTape() as tape:
            loss = loss_of(damping, start, observed)
        (gradient,) = tape.gradient(loss, [damping])
        damping.assign_sub(2.0 * gradient)
        if step % 10 == 0 or step == 59:
            print(f"step {step:3d}  loss {float(loss):.3e}  damping {float(damping.numpy()):.5f}")

    with tracer.GradientTape(persistent=True) as tape:
        loss = loss_of(damping, start, tracer.constant(observed, name="observed"))
    source = codegen.gradient_source(tape, loss, [damping], name="loss_and_grad",
                                     with_value=True)
    print(source)
    with tempfile.TemporaryDirectory() as directory:
        module = codegen.load(codegen.write(os.path.join(directory, "pendulum_grad.py"), source))
    value, (generated,) = module.loss_and_grad(damping.numpy(), observed)
    (eager,) = tape.gradient(loss, [damping])
    print(f"generated module: {source.count(chr(10))} lines for {STEPS} steps")
    print(f"generated vs eager gradient: max difference {abs(generated - eager.numpy()):.1e}")


if __name__ == "__main__":
    main()
