"""Realistic programs, differentiated eagerly and through generated code, checked
against central differences of the same numpy program.

Each program is plain numpy, as a user would write it: a model's loss, a
simulation's energy, a statistic.  It is recorded once on a tape with its
parameters as variables; then

- *eager*: ``tape.gradient`` at the recorded point;
- *generated*: ``codegen.gradient_source`` written and loaded as a module,
  called at another point, so that a value the trace baked in (a Python
  number made from a tensor) shows as a wrong gradient there.

Each result is judged against central differences of the program itself
(run on plain arrays) at the point where it was evaluated.  A result that
differs is *silently wrong* unless tapegen refused (an error) or warned (a
``GradientTapeWarning``) while recording, differentiating or generating.

    python benchmarks/realistic_programs.py

prints one row per program and mode and the count of silently wrong results
per mode, the figure the correctness issue tracks.
"""

import math
import sys
import warnings

import numpy as np

import codegen
import tracer

RTOL = 1e-5
ATOL = 1e-7
STEP = 1e-6


def mlp_softmax_cross_entropy(p, data):
    hidden = np.maximum(data["x"] @ p["W1"] + p["b1"], 0.0)
    logits = hidden @ p["W2"] + p["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    loss = -np.mean(np.sum(data["onehot"] * log_probs, axis=1))
    return loss


def logistic_regression_l2(p, data):
    margins = data["labels"] * (data["x"] @ p["w"] + p["b"])
    loss = np.mean(np.logaddexp(0.0, -margins)) + 1e-2 * np.sum(p["w"] ** 2)
    return loss


def tanh_rnn(p, data):
    h = np.zeros(p["Wh"].shape[0])
    total = 0.0
    for t in range(data["xs"].shape[0]):
        h = np.tanh(p["Wx"] @ data["xs"][t] + p["Wh"] @ h + p["b"])
        total = total + np.sum((h - data["ys"][t]) ** 2)
    return total / data["xs"].shape[0]


def attention_layer_norm(p, data):
    q, k, v = data["x"] @ p["Wq"], data["x"] @ p["Wk"], data["x"] @ p["Wv"]
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ v
    mean = out.mean(axis=-1, keepdims=True)
    normed = (out - mean) / np.sqrt(out.var(axis=-1, keepdims=True) + 1e-5)
    return np.sum(normed * p["gamma"])


def gaussian_mixture_nll(p, data):
    diffs = data["x"][:, None, :] - p["means"][None, :, :]
    log_scales = p["log_scales"]
    log_weights = p["logits"] - np.log(np.sum(np.exp(p["logits"])))
    per_component = (-0.5 * np.sum((diffs / np.exp(log_scales)) ** 2, axis=-1)
                     - np.sum(log_scales, axis=-1) + log_weights)
    top = np.max(per_component, axis=1, keepdims=True)
    return -np.mean(top[:, 0] + np.log(np.sum(np.exp(per_component - top), axis=1)))


def spring_chain_energy(p, data):
    positions = np.cumsum(p["steps"], axis=0)
    lengths = np.linalg.norm(np.diff(positions, axis=0), axis=1)
    stretch = np.sum((lengths - data["rest"]) ** 2)
    gravity = np.sum(positions[:, 1])
    return 0.5 * stretch + 0.1 * gravity


def gaussian_process_nll(p, data):
    x = data["x"]
    sq = (x[:, None] - x[None, :]) ** 2
    kernel = np.exp(p["log_amp"]) * np.exp(-0.5 * sq / np.exp(2 * p["log_len"]))
    kernel = kernel + (np.exp(p["log_noise"]) + 1e-6) * np.eye(x.shape[0])
    chol = np.linalg.cholesky(kernel)
    alpha = np.linalg.solve(kernel, data["y"])
    return 0.5 * data["y"] @ alpha + np.sum(np.log(np.diagonal(chol)))


def embedding_bag(p, data):
    rows = p["table"][data["ids"]]
    bags = rows.reshape(4, 3, -1).sum(axis=1)
    return np.sum(np.tanh(bags @ p["proj"]))


def huber_with_clipping(p, data):
    residual = data["x"] @ p["w"] - data["y"]
    small = np.abs(residual) <= 1.0
    loss = np.where(small, 0.5 * residual ** 2, np.abs(residual) - 0.5)
    return np.mean(np.clip(loss, 0.0, 4.0))


def trimmed_mean_loss(p, data):
    errors = np.sort((data["x"] @ p["w"] - data["y"]) ** 2)
    return np.mean(errors[2:-2]) + np.median(errors)


def normalised_by_python_number(p, data):
    n = math.sqrt(np.sum(p["x"] ** 2))
    return np.sum(p["x"] * data["c"]) / n


def scaled_by_float(p, data):
    scale = float(np.sum(p["x"] ** 2)) ** 0.5
    return np.sum(np.sin(p["x"])) * scale


def spectral_loss(p, data):
    return np.sum(np.linalg.eigvalsh(p["A"]) ** 2)


def eigenvector_projection(p, data):
    values, vectors = np.linalg.eigh(p["A"], UPLO="U")
    return np.sum((vectors[:, -1] * data["c"]) ** 2) + values[-1]


def bilinear_einsum(p, data):
    scores = np.einsum("bi,ij,bj->b", data["x"], p["M"], data["z"])
    return np.sum(np.log1p(np.exp(-np.abs(scores))) + np.maximum(scores, 0))


def standardised_quantile(p, data):
    z = (p["x"] - np.mean(p["x"])) / np.std(p["x"], ddof=1)
    return np.quantile(z, 0.75) - np.percentile(z, 25.0)


def padded_smoothing(p, data):
    padded = np.pad(p["x"], 2, mode="reflect")
    smooth = np.convolve(padded, np.ones(5) / 5, mode="valid")
    return np.sum((smooth - data["y"]) ** 2)


def polynomial_matrix(p, data):
    powers = np.linalg.matrix_power(p["A"], 3) + np.linalg.matrix_power(p["A"], 0)
    return np.trace(powers @ powers.T)


def log_det_precision(p, data):
    sign, logdet = np.linalg.slogdet(p["L"] @ p["L"].T + np.eye(3))
    return logdet + np.sum(np.linalg.inv(p["L"] @ p["L"].T + np.eye(3)))


def branch_on_value(p, data):
    if np.sum(p["x"]) > 0:
        return np.sum(p["x"] ** 2)
    return np.sum(p["x"] ** 3)


def pick_the_largest(p, data):
    best = int(np.argmax(p["x"]))
    return p["x"][best] ** 2 + np.sum(p["x"])


def problems(rng):
    """(name, program, parameters, data) for every program, at fixed random values."""
    normal = rng.normal
    onehot = np.eye(3)[rng.integers(0, 3, size=8)]
    spd = normal(size=(4, 4))
    return [
        ("mlp_softmax_cross_entropy", mlp_softmax_cross_entropy,
         {"W1": normal(size=(5, 7)), "b1": normal(size=7) * 0.1,
          "W2": normal(size=(7, 3)), "b2": normal(size=3) * 0.1},
         {"x": normal(size=(8, 5)), "onehot": onehot}),
        ("logistic_regression_l2", logistic_regression_l2,
         {"w": normal(size=4), "b": np.array(0.3)},
         {"x": normal(size=(20, 4)), "labels": np.sign(normal(size=20))}),
        ("tanh_rnn", tanh_rnn,
         {"Wx": normal(size=(4, 3)) * 0.5, "Wh": normal(size=(4, 4)) * 0.5,
          "b": normal(size=4) * 0.1},
         {"xs": normal(size=(6, 3)), "ys": normal(size=(6, 4)) * 0.5}),
        ("attention_layer_norm", attention_layer_norm,
         {"Wq": normal(size=(4, 4)), "Wk": normal(size=(4, 4)), "Wv": normal(size=(4, 4)),
          "gamma": normal(size=4)},
         {"x": normal(size=(5, 4))}),
        ("gaussian_mixture_nll", gaussian_mixture_nll,
         {"means": normal(size=(3, 2)), "log_scales": normal(size=(3, 2)) * 0.2,
          "logits": normal(size=3)},
         {"x": normal(size=(10, 2))}),
        ("spring_chain_energy", spring_chain_energy,
         {"steps": normal(size=(6, 2))}, {"rest": np.ones(5)}),
        ("gaussian_process_nll", gaussian_process_nll,
         {"log_amp": np.array(0.2), "log_len": np.array(-0.3), "log_noise": np.array(-2.0)},
         {"x": np.linspace(0, 2, 6), "y": normal(size=6)}),
        ("embedding_bag", embedding_bag,
         {"table": normal(size=(7, 3)), "proj": normal(size=(3, 2))},
         {"ids": np.array([0, 2, 2, 5, 1, 0, 6, 6, 6, 3, 4, 2])}),
        ("huber_with_clipping", huber_with_clipping,
         {"w": normal(size=3)}, {"x": normal(size=(12, 3)) * 2, "y": normal(size=12)}),
        ("trimmed_mean_loss", trimmed_mean_loss,
         {"w": normal(size=3)}, {"x": normal(size=(11, 3)), "y": normal(size=11)}),
        ("normalised_by_python_number", normalised_by_python_number,
         {"x": normal(size=5)}, {"c": normal(size=5)}),
        ("scaled_by_float", scaled_by_float, {"x": normal(size=5)}, {}),
        ("spectral_loss", spectral_loss, {"A": normal(size=(4, 4))}, {}),
        ("eigenvector_projection", eigenvector_projection,
         {"A": spd + spd.T + normal(size=(4, 4)) * 0.3}, {"c": normal(size=4)}),
        ("bilinear_einsum", bilinear_einsum,
         {"M": normal(size=(3, 4))}, {"x": normal(size=(6, 3)), "z": normal(size=(6, 4))}),
        ("standardised_quantile", standardised_quantile, {"x": normal(size=9)}, {}),
        ("padded_smoothing", padded_smoothing,
         {"x": normal(size=8)}, {"y": normal(size=8)}),
        ("polynomial_matrix", polynomial_matrix, {"A": normal(size=(3, 3)) * 0.5}, {}),
        ("log_det_precision", log_det_precision, {"L": normal(size=(3, 3))}, {}),
        ("branch_on_value", branch_on_value, {"x": np.array([0.5, -0.2, 0.3])}, {}),
        ("pick_the_largest", pick_the_largest, {"x": np.array([0.5, 0.1, 0.45])}, {}),
    ]


MOVED = {"branch_on_value": {"x": np.array([-0.5, -0.2, 0.3])},
         "pick_the_largest": {"x": np.array([0.5, 0.1, 0.6])}}
"""Where a generated module is called for the programs whose Python decisions a
small move would not change: at a point where the decision goes the other way."""


def central_differences(program, params, data):
    """d program / d each parameter, by central differences on plain arrays."""
    gradients = {}
    for name, value in params.items():
        gradient = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            moved = {}
            for sign in (1, -1):
                shifted = value.copy()
                shifted[index] += sign * STEP
                moved[sign] = float(program({**params, name: shifted}, data))
            gradient[index] = (moved[1] - moved[-1]) / (2 * STEP)
        gradients[name] = gradient
    return gradients


def _agree(computed, expected):
    if computed is None:
        return not np.any(expected)
    computed = np.asarray(computed)
    return computed.shape == expected.shape and np.allclose(computed, expected, RTOL, ATOL)


def judge(run, program, params, data):
    """'ok', 'refused', 'warned' (wrong but warned) or 'SILENTLY WRONG', with a detail."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            gradients, at = run()
        except Exception as error:  # noqa: BLE001 - every refusal is reported as such
            return "refused", f"{type(error).__name__}: {str(error).splitlines()[0][:90]}"
    warned = [w for w in caught if issubclass(w.category, tracer.GradientTapeWarning)]
    expected = central_differences(program, at, data)
    wrong = [name for name in params if not _agree(gradients[name], expected[name])]
    if not wrong:
        return "ok", ""
    return ("warned" if warned else "SILENTLY WRONG"), "wrong for " + ", ".join(wrong)


def _record(program, params, data):
    """The program on a persistent tape: its parameters as variables, its data as named
    constants, the floating ones watched so that what the program derives from them is
    computed inside a generated module, which then takes the data as parameters."""
    variables = {name: tracer.Variable(value, name=name) for name, value in params.items()}
    constants = {name: tracer.constant(value, name=name) for name, value in data.items()}
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([c for c in constants.values() if c.dtype.kind == "f"])
        loss = program(variables, constants)
    return tape, loss, variables


def eager(program, params, data):
    tape, loss, variables = _record(program, params, data)
    gradients = tape.gradient(loss, variables)
    return {name: None if g is None else np.asarray(g) for name, g in gradients.items()}, params


def generated(program, params, data, rng):
    """The generated module's gradients at a point moved away from the traced one."""
    tape, loss, variables = _record(program, params, data)
    module = codegen.load(codegen.gradient_source(tape, loss, variables, name="gradient"))
    moved = MOVED.get(program.__name__) or {
        name: np.asarray(value + 0.05 * rng.normal(size=np.shape(value)))
        for name, value in params.items()}
    values = {**data, **moved}
    captured = _captured_arrays(tape)
    arguments = [values[name] if name in values else captured.pop(tuple(shape))
                 for name, shape, _ in module.INPUTS]
    return module.gradient(*arguments), moved


def _captured_arrays(tape):
    """The unnamed arrays the tape captured, by shape: a module takes them as parameters
    of their own, which its caller passes again."""
    return {tuple(node.shape): node.value for node in tape.graph
            if node.kind == "constant" and node.meta.get("default_name")}


def main():
    rng = np.random.default_rng(0)
    silent = {"eager": 0, "generated": 0}
    print(f"{'program':32} {'mode':10} result")
    for name, program, params, data in problems(rng):
        modes = {"eager": lambda: eager(program, params, data),
                 "generated": lambda: generated(program, params, data, rng)}
        for mode, run in modes.items():
            verdict, detail = judge(run, program, params, data)
            silent[mode] += verdict == "SILENTLY WRONG"
            print(f"{name:32} {mode:10} {verdict} {detail}".rstrip())
    print()
    for mode, count in silent.items():
        print(f"silently wrong results, {mode}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
