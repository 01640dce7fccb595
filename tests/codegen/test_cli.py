"""The ``tapegen`` command, run on a user's file as the user runs it.

Each command costs a fresh Python process about 0.3 s of start-up, so the
end-to-end runs (the main paths, the demo, help, one failure of each exit
status) are separate processes, started side by side in a module fixture;
the variants and the table of errors call ``tracer.cli.main.main`` in this
process, which is the same code path.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import codegen
import tracer
from codegen_support import cli_runner, succeeded

ROOT = Path(__file__).resolve().parents[2]
NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"

MODEL = '''\
import numpy as np
import tracer

W = tracer.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3), name="W")


def loss(x, y):
    h = np.tanh(x @ W)
    return np.mean((h - y) ** 2)


def scaled(x, s):
    return np.sin(x) * s


def unsupported(x):
    return np.histogram(x)[0]


def failing(x):
    raise ValueError("bad input")


def constant(x):
    return 3.0


def converted(x, w):
    r = np.exp(float(np.sum(x))) * 3.0
    return np.sum(w * r)


def normalised(x):
    n = float(np.sum(x ** 2)) ** 0.5
    return np.sum(x) / n


def ignores(x, w):
    return np.sum(np.sin(w))


if __name__ == "__main__":
    raise SystemExit("tapegen ran the __main__ block")
'''

LOSS = ["grad", "model.py:loss", "--arg", "x=5,4", "--arg", "y=5x3"]

ERRORS = {
    "no_command": ([], 2, "required: COMMAND"),
    "unknown_command": (["bogus"], 2, "invalid choice"),
    "no_colon": (["grad", "model.py"], 2, "expected FILE.py:FUNCTION"),
    "missing_file": (["grad", "nowhere.py:loss", "--arg", "x=3"], 2, "no such file: nowhere.py"),
    "missing_function": (["grad", "model.py:nope", "--arg", "x=3"], 2,
                         "defines no function 'nope'"),
    "bad_shape": (["grad", "model.py:loss", "--arg", "x=3,a?", "--arg", "y=3"], 2,
                  "bad shape '3,a?'"),
    "keyword_size": (["grad", "model.py:loss", "--arg", "x=for,4", "--arg", "y=3"], 2,
                     "bad shape 'for,4'"),
    "unknown_trace_size": (LOSS + ["--trace-size", "n=4"], 2,
                           "--trace-size n: no --arg shape has a size of that name"),
    "small_trace_size": (["grad", "model.py:loss", "--arg", "x=n,4", "--arg", "y=n,3",
                          "--trace-size", "n=1"], 2, "expected NAME=N with N at least 2"),
    "negative_shape": (["grad", "model.py:loss", "--arg", "x=-3", "--arg", "y=3"], 2,
                       "bad shape '-3'"),
    "bad_arg": (["grad", "model.py:loss", "--arg", "x"], 2, "expected NAME=SHAPE[:DTYPE]"),
    "unknown_dtype": (["grad", "model.py:loss", "--arg", "x=3:int8", "--arg", "y=3"], 2,
                      "unknown dtype 'int8'"),
    "missing_parameter": (["grad", "model.py:loss", "--arg", "x=5,4"], 2,
                          "loss() needs --arg for y"),
    "extra_parameter": (LOSS + ["--arg", "z=2"], 2, "loss() has no parameter z"),
    "repeated_arg": (LOSS + ["--arg", "x=2"], 2, "--arg x is given twice"),
    "unknown_wrt": (LOSS + ["--wrt", "x,q"], 2, "unknown --wrt name q: choose from x, y, W"),
    "function_raises": (["grad", "model.py:failing", "--arg", "x=3"], 1,
                        "failing() raised ValueError: bad input at model.py:21"),
    "shape_mismatch": (["grad", "model.py:loss", "--arg", "x=5,2", "--arg", "y=5,3"], 1,
                       "loss() raised ValueError"),
    "unsupported": (["grad", "model.py:unsupported", "--arg", "x=3"], 1,
                    "UnsupportedOperation: np.histogram has no derivative rule"),
    "not_a_tensor": (["grad", "model.py:constant", "--arg", "x=3"], 1,
                     "constant() returned a float, not a tensor"),
    "unwritable": (LOSS + ["-o", "no/such/directory/out.py"], 1, "cannot write"),
    "syntax_error": (["grad", "broken.py:f", "--arg", "x=3"], 1,
                     "importing broken.py failed: SyntaxError"),
    "exits_on_import": (["grad", "exits.py:f", "--arg", "x=3"], 1,
                        "importing exits.py failed: SystemExit: 3"),
    "too_large": (["grad", "model.py:scaled", "--arg", "x=100000000,100000000",
                   "--arg", "s=1"], 2, "not enough memory for random inputs"),
    "overwrite_model": (LOSS + ["-o", "model.py"], 2, "is the traced file itself"),
    "custom_gradient": (["grad", "custom.py:f", "--arg", "x=3"], 1,
                        "cannot generate code for custom_gradient"),
}

PROCESSES = {
    "default": LOSS,
    "demo": ["demo", "-o", "demo_out"],
    "missing_parameter": ERRORS["missing_parameter"][0],
    "function_raises": ERRORS["function_raises"][0],
    "tapegen": ["--help"],
    "tapegen grad": ["grad", "--help"],
    "tapegen demo": ["demo", "--help"],
}

CUSTOM = '''\
import numpy as np
import tracer


@tracer.custom_gradient
def sine(x):
    return np.sin(x), lambda upstream: upstream * np.cos(x)


def f(x):
    return np.sum(sine(x))
'''


def tapegen(args, cwd):
    """Run ``python -m tracer ARGS`` in ``cwd`` as a user's shell would."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "tracer", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cli")
    (directory / "model.py").write_text(MODEL)
    (directory / "broken.py").write_text("def f(x:\n")
    (directory / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (directory / "custom.py").write_text(CUSTOM)
    return directory


@pytest.fixture(scope="module")
def results(workdir):
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        done = pool.map(lambda args: tapegen(args, workdir), PROCESSES.values())
        return dict(zip(PROCESSES, done))


@pytest.fixture
def cli(workdir, capsys, monkeypatch):
    return cli_runner(workdir, capsys, monkeypatch)


@pytest.fixture(scope="module")
def model(workdir):
    """The user's file, imported as the command imports it, for eager gradients."""
    spec = importlib.util.spec_from_file_location("model", workdir / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def eager_loss(model, x, y):
    """The loss and its gradients with respect to x, y and W, from a tape."""
    x, y = tracer.constant(x), tracer.constant(y)
    with tracer.GradientTape() as tape:
        tape.watch([x, y])
        loss = model.loss(x, y)
    return loss.numpy(), [g.numpy() for g in tape.gradient(loss, [x, y, model.W])]


def call_loss_grad(module, x, y, W):
    """Call the generated function, its arguments picked by the names INPUTS gives."""
    arrays = {"x": x, "y": y, "W": W}
    return module.loss_grad(*(arrays[name] for name, _, _ in module.INPUTS))


@pytest.fixture(scope="module")
def point(model):
    rng = np.random.default_rng(7)
    return rng.normal(size=(5, 4)), rng.normal(size=(5, 3)), model.W.numpy()


def test_grad_writes_a_module_whose_gradients_match_the_tape(results, workdir, model, point):
    out = succeeded(results["default"])
    assert "traced loss(x: float64[5, 4], y: float64[5, 3]) -> float64[]" in out
    assert "wrote loss_grad.py: loss_grad(x, y, W) -> (d_x, d_y, d_W)" in out
    assert float(re.search(rf"max difference ({NUMBER})", out).group(1)) < 1e-12
    module = codegen.load(str(workdir / "loss_grad.py"))
    assert [name for name, _, _ in module.INPUTS] == ["x", "y", "W"]
    _, expected = eager_loss(model, *point[:2])
    for got, want in zip(call_loss_grad(module, *point), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_grad_value_returns_the_loss_too(cli, workdir, model, point):
    assert "-> (value, (d_x, d_y, d_W))" in succeeded(cli(LOSS + ["--value", "-o", "value.py"]))
    value, gradients = call_loss_grad(codegen.load(str(workdir / "value.py")), *point)
    expected_value, expected = eager_loss(model, *point[:2])
    np.testing.assert_allclose(value, expected_value, rtol=1e-13)
    np.testing.assert_allclose(gradients[2], expected[2], rtol=1e-12)


def test_grad_wrt_one_name_returns_that_gradient(cli, workdir, model, point):
    assert "-> d_W" in succeeded(cli(LOSS + ["--wrt", "W", "-o", "wrt.py"]))
    d_W = call_loss_grad(codegen.load(str(workdir / "wrt.py")), *point)
    np.testing.assert_allclose(d_W, eager_loss(model, *point[:2])[1][2], rtol=1e-12)


def test_grad_wrt_gives_gradients_in_its_order(cli, workdir, model, point):
    assert "-> (d_y, d_x)" in succeeded(cli(LOSS + ["--wrt", "y,x", "-o", "wrt_order.py"]))
    d_y, d_x = call_loss_grad(codegen.load(str(workdir / "wrt_order.py")), *point)
    _, (want_x, want_y, _) = eager_loss(model, *point[:2])
    np.testing.assert_allclose(d_x, want_x, rtol=1e-12)
    np.testing.assert_allclose(d_y, want_y, rtol=1e-12)


def test_grad_output_directory_gets_the_default_name(cli, workdir):
    (workdir / "out").mkdir()
    assert "wrote out/loss_grad.py" in succeeded(cli(LOSS + ["-o", "out"]))
    assert (workdir / "out" / "loss_grad.py").is_file()


def test_grad_float32_and_a_non_scalar_result(cli, workdir):
    out = succeeded(cli(["grad", "model.py:scaled", "--arg", "x=3:float32",
                         "--arg", "s=():float32"]))
    assert "traced scaled(x: float32[3], s: float32[]) -> float32[3]" in out
    assert "differentiates the sum of its entries" in out
    module = codegen.load(str(workdir / "scaled_grad.py"))
    assert module.INPUTS == (("x", (3,), "float32"), ("s", (), "float32"))
    x, s = np.array([0.1, 0.2, 0.3], np.float32), np.float32(2.0)
    d_x, d_s = module.scaled_grad(x, s)
    assert d_x.dtype == np.float32
    np.testing.assert_allclose(d_x, np.cos(x) * s, rtol=1e-6)
    np.testing.assert_allclose(d_s, np.sum(np.sin(x)), rtol=1e-6)


def test_grad_with_a_symbolic_size_checks_the_module_at_other_sizes(cli, workdir, model):
    out = succeeded(cli(["grad", "model.py:loss", "--arg", "x=batch,4", "--arg", "y=batch,3",
                         "-o", "symbolic.py"]))
    assert "traced loss(x: float64[batch, 4], y: float64[batch, 3]) -> float64[] at batch = 7" in out
    for at in ("at the traced inputs", "at batch=1", "at batch=10"):
        difference = re.search(rf"checked against eager gradients {at}: max difference ({NUMBER})",
                               out)
        assert difference and float(difference.group(1)) < 1e-12, out
    module = codegen.load(str(workdir / "symbolic.py"))
    assert module.INPUTS[:2] == (("x", ("batch", 4), "float64"), ("y", ("batch", 3), "float64"))
    rng = np.random.default_rng(3)
    for batch in (1, 2, 33):
        x, y = rng.normal(size=(batch, 4)), rng.normal(size=(batch, 3))
        _, expected = eager_loss(model, x, y)
        for got, want in zip(call_loss_grad(module, x, y, model.W.numpy()), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_grad_prints_what_generation_warns_of_once(cli, workdir):
    """A gradient cut by a conversion to a Python number: one warning line among the
    notes, naming the line, and no second warning from the check against the tape."""
    out = succeeded(cli(["grad", "model.py:converted", "--arg", "x=3", "--arg", "w=3",
                         "-o", "converted.py"]))
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, out
    assert warnings[0].startswith("warning: the module gradient_source writes gives None for "
                                  "the tensor 'x'")
    assert "float(t)" in warnings[0] and "model.py:29" in warnings[0]
    assert "does not reach" not in out and "max difference 0.0e+00" in out
    module = codegen.load(str(workdir / "converted.py"))
    assert [name for name, _, _ in module.INPUTS] == ["w"]
    assert module.converted_grad(np.ones(3))[0] is None
    out = succeeded(cli(["grad", "model.py:normalised", "--arg", "x=4", "-o", "normalised.py"]))
    (warning,) = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert "may miss part of the gradient for the tensor 'x'" in warning
    assert "model.py:34" in warning and "model.py:35" in warning
    out = succeeded(cli(["grad", "model.py:ignores", "--arg", "x=3", "--arg", "w=3",
                         "-o", "ignores.py"]))
    assert "note: x does not reach the result of ignores()" in out and "warning" not in out


def test_trace_size_chooses_the_size_traced(cli):
    out = succeeded(cli(["grad", "model.py:loss", "--arg", "x=batch,4", "--arg", "y=batch,3",
                         "--trace-size", "batch=32", "-o", "traced_at.py"]))
    assert "at batch = 32" in out and "at batch=35" in out


@pytest.mark.parametrize("key", ERRORS)
def test_errors_are_one_line_with_an_exit_status(cli, key):
    args, status, reason = ERRORS[key]
    assert_error(cli(args), status, reason)


@pytest.mark.parametrize("key", ["missing_parameter", "function_raises"])
def test_a_process_exits_with_the_status_and_one_line(results, key):
    _, status, reason = ERRORS[key]
    assert_error(results[key], status, reason)


def assert_error(result, status, reason):
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tapegen"), lines[0]
    assert reason in lines[0]


@pytest.mark.parametrize("prog", ["tapegen", "tapegen grad", "tapegen demo"])
def test_every_command_has_help(results, prog):
    result = results[prog]
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: {prog} ")


def test_demo_writes_and_checks_the_gradient_module(results, workdir):
    out = succeeded(results["demo"])
    path = workdir / "demo_out" / "loss_grad.py"
    assert path.is_file()
    assert "The gradient module is demo_out/loss_grad.py" in out
    assert re.search(r"^t\d+: f64\[32,4\] = tanh t\d+ +# demo\.py:\d+$", out, re.M), out
    assert path.read_text() in out
    eager, numeric = (float(v) for v in re.findall(rf"max difference ({NUMBER})", out))
    assert eager < 1e-12
    assert numeric < 1e-7


def test_readme_shows_the_function_the_demo_writes(results, workdir):
    readme = (ROOT / "README.md").read_text()
    excerpt = re.search(r"```python\n(def loss_grad\(.*?)```", readme, re.S)
    assert excerpt, "README.md shows no generated loss_grad function"
    assert excerpt.group(1) in (workdir / "demo_out" / "loss_grad.py").read_text()


def test_console_script_is_installed(tmp_path):
    script = shutil.which("tapegen", path=os.path.dirname(sys.executable))
    assert script is not None, "installing the project (pip install -e .) makes a tapegen script"
    result = subprocess.run([script, "demo", "--help"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: tapegen demo")
