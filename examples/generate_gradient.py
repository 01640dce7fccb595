"""Generate a gradient module for a small model, load it, and train with it.

A two-layer network's loss is recorded once on a persistent tape, and
``codegen.gradient_source`` turns that recording into the source of a
module computing the loss and its gradients with numpy alone.  This script
prints the module, writes it to a file and loads it back, checks it against
the tape's eager gradients, and then runs gradient descent with the loaded
function: no tape, no tracer, just numpy.

Run it with:

    python examples/generate_gradient.py
"""

import os
import tempfile

import numpy as np

import codegen
import tracer


def loss_fn(W1, b1, W2, x, y):
    hidden = np.tanh(x @ W1 + b1)
    prediction = hidden @ W2
    loss = np.mean((prediction - y) ** 2)
    return loss


def main():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(64, 2))
    y = np.sin(3 * x[:, :1]) * x[:, 1:]
    params = {"W1": rng.normal(size=(2, 16)), "b1": np.zeros(16),
              "W2": rng.normal(size=(16, 1)) / 4}

    variables = {name: tracer.Variable(value, name=name) for name, value in params.items()}
    with tracer.GradientTape(persistent=True) as tape:
        loss = loss_fn(*variables.values(), tracer.constant(x, name="x"),
                       tracer.constant(y, name="y"))
    source = codegen.gradient_source(tape, loss, variables, name="loss_and_grad",
                                     with_value=True)
    print(source)

    # The module is an ordinary file; this one goes away when the script ends.
    with tempfile.TemporaryDirectory() as directory:
        module = codegen.load(codegen.write(os.path.join(directory, "model_grad.py"), source))

    def loss_and_grad(params):
        arrays = params | {"x": x, "y": y}
        return module.loss_and_grad(*(arrays[name] for name, _, _ in module.INPUTS))

    value, grads = loss_and_grad(params)
    eager = tape.gradient(loss, variables)
    difference = max(np.max(np.abs(grads[name] - eager[name].numpy())) for name in params)
    print(f"generated loss {value:.6f}, eager loss {float(loss):.6f}")
    print(f"generated vs eager gradients: max difference {difference:.1e}")

    for step in range(301):
        value, grads = loss_and_grad(params)
        if step % 50 == 0:
            print(f"step {step:3d}  loss {value:.6f}")
        params = {name: params[name] - 0.2 * grads[name] for name in params}


if __name__ == "__main__":
    main()
