"""What ``tapegen demo`` runs: record a model, generate its gradient module, check it.

The model is one tanh layer and a mean squared error.  It lives in this
file, above everything else, because the generated module's comments name
the lines that computed each value: keeping the model here keeps those
comments stable.  Like the rest of the command line, this module imports
``tracer``; the code generator itself does not.
"""

import inspect
import os

import numpy as np

import codegen
import tracer


def loss_fn(W, b, x, y):
    z = x @ W + b
    h = np.tanh(z)
    err = h - y
    loss = np.mean(err ** 2)
    return loss


GRADIENT_TOLERANCE = 1e-12
"""Largest difference allowed between the generated and the eager gradients (float64)."""

FINITE_DIFFERENCE_TOLERANCE = 1e-7
"""Largest difference allowed between the gradients and central finite differences."""


class CheckFailed(Exception):
    """The generated module disagrees with the eager gradients or with finite differences."""


def run(directory):
    """Record ``loss_fn``, write ``loss_grad.py`` into ``directory``, check it; its path.

    Raises ``CheckFailed`` when a check fails and ``OSError`` when the file
    cannot be written.
    """
    values = _data()
    W, b = (tracer.Variable(values[n], name=n) for n in ("W", "b"))
    x, y = (tracer.constant(values[n], name=n) for n in ("x", "y"))
    with tracer.GradientTape(persistent=True) as tape:
        loss = loss_fn(W, b, x, y)
    print(f"The model ({os.path.basename(__file__)}), recorded on a GradientTape:\n")
    print(inspect.getsource(loss_fn))
    print(f"Its graph (print(tape.graph)):\n\n{tape.graph}\n")

    source = codegen.gradient_source(tape, loss, (W, b), name="loss_grad", with_value=True)
    os.makedirs(directory, exist_ok=True)
    path = codegen.write(os.path.join(directory, "loss_grad.py"), source)
    print(f"The generated gradient module (codegen.gradient_source):\n\n{source}")

    eager = (loss.numpy(), [g.numpy() for g in tape.gradient(loss, (W, b))])
    _check(codegen.load(path), values, eager)
    return path


def _data():
    """The variables' starting values and the data: the same arrays every run."""
    rng = np.random.default_rng(0)
    return {"W": rng.normal(size=(8, 4)) / np.sqrt(8), "b": np.zeros(4),
            "x": rng.normal(size=(32, 8)), "y": rng.uniform(-0.5, 0.5, size=(32, 4))}


def _check(module, values, eager):
    """Compare the loaded module with the tape's ``(loss, gradients)`` and with central
    differences of ``loss_fn`` on plain arrays; print both errors."""
    value, gradients = module.loss_grad(*(values[name] for name, _, _ in module.INPUTS))
    W, b, x, y = (values[n] for n in ("W", "b", "x", "y"))
    numeric = [finite_difference(lambda w: loss_fn(w, b, x, y), W),
               finite_difference(lambda v: loss_fn(W, v, x, y), b)]
    eager_error = max(abs(value - eager[0]), max_difference(gradients, eager[1]))
    numeric_error = max_difference(gradients, numeric)
    print(f"Checked loss_grad{inspect.signature(module.loss_grad)} at the recorded values:")
    print(f"  against eager tape.gradient:         max difference {eager_error:.1e}")
    print(f"  against central finite differences:  max difference {numeric_error:.1e}")
    if eager_error > GRADIENT_TOLERANCE:
        raise CheckFailed(f"{module.__file__} differs from the eager gradients by "
                          f"{eager_error:.1e}")
    if numeric_error > FINITE_DIFFERENCE_TOLERANCE:
        raise CheckFailed(f"{module.__file__} differs from finite differences by "
                          f"{numeric_error:.1e}")


def finite_difference(f, array, eps=1e-6):
    """Central differences of the scalar ``f(array)`` with respect to each entry of ``array``."""
    grad = np.zeros_like(array)
    for i in np.ndindex(array.shape):
        step = np.zeros_like(array)
        step[i] = eps
        grad[i] = (f(array + step) - f(array - step)) / (2 * eps)
    return grad


def max_difference(arrays, others):
    """The largest absolute entrywise difference between two lists of arrays."""
    return max(float(np.max(np.abs(a - b))) for a, b in zip(arrays, others))
