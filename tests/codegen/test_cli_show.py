"""``tapegen show``: the graph a user's function records, as text, DOT or JSON.

Most runs call ``codegen.cli.main`` in this process, which is the code path
the console script takes; one run goes through the installed ``tapegen``
script, to show the command exists for users.  The JSON runs are read back
with ``ir.Graph.from_json`` and evaluated, so what ``show`` writes is checked
against the tape's own numbers, not only by its look.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ir
import tracer
from codegen_support import cli_runner, succeeded

MODEL = '''\
import numpy as np
import tracer

W = tracer.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3), name="W")


def loss(x, y):
    h = np.tanh(x @ W)
    return np.mean((h - y) ** 2)


def failing(x):
    raise ValueError("bad input")


def constant(x):
    return 3.0


def unsupported(x):
    return np.fft.fft(x)


@tracer.custom_gradient
def sine(x):
    return np.sin(x), lambda upstream: upstream * np.cos(x)


def custom(x):
    return np.sum(sine(x))
'''

LOSS = ["show", "model.py:loss", "--arg", "x=5,4", "--arg", "y=5x3"]

LISTING = """\
x: f64[5,4] = input
y: f64[5,3] = input
W: f64[4,3] = variable
t1: f64[5,3] = matmul x W                         # model.py:8
t2: f64[5,3] = tanh t1                            # model.py:8
t3: f64[5,3] = subtract t2 y                      # model.py:9
t4: f64[5,3] = power t3 2                         # model.py:9
t5: f64[] = mean t4 axis=None keepdims=False      # model.py:9
return t5
"""

ERRORS = {
    "no_function": (["show"], 2, "required: FILE.py:FUNCTION"),
    "svg_is_not_offered": (LOSS + ["--format", "svg"], 2, "invalid choice: 'svg'"),
    "missing_file": (["show", "nowhere.py:loss", "--arg", "x=3"], 2, "no such file"),
    "missing_function": (["show", "model.py:nope"], 2, "defines no function 'nope'"),
    "bad_shape": (["show", "model.py:loss", "--arg", "x=3,a", "--arg", "y=3"], 2,
                  "bad shape '3,a'"),
    "missing_parameter": (["show", "model.py:loss", "--arg", "x=5,4"], 2,
                          "loss() needs --arg for y"),
    "repeated_arg": (LOSS + ["--arg", "x=2"], 2, "--arg x is given twice"),
    "overwrite_model": (LOSS + ["-o", "model.py"], 2, "is the traced file itself"),
    "function_raises": (["show", "model.py:failing", "--arg", "x=3"], 1,
                        "failing() raised ValueError: bad input at model.py:13"),
    "not_a_tensor": (["show", "model.py:constant", "--arg", "x=3"], 1,
                     "constant() returned a float, not a tensor"),
    "unsupported": (["show", "model.py:unsupported", "--arg", "x=3"], 1,
                    "np.fft.fft has no derivative rule"),
    "custom_gradient_json": (["show", "model.py:custom", "--arg", "x=3", "--format", "json"],
                             1, "cannot be written as JSON"),
    "unwritable": (LOSS + ["-o", "no/such/directory/graph.txt"], 1, "cannot write"),
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("show")
    (directory / "model.py").write_text(MODEL)
    return directory


@pytest.fixture
def cli(workdir, capsys, monkeypatch):
    return cli_runner(workdir, capsys, monkeypatch)


def eager_gradients(workdir, graph):
    """The loss's gradients by x, y and W from a tape, at the inputs ``graph`` recorded."""
    namespace = {}
    exec(compile(MODEL, str(workdir / "model.py"), "exec"), namespace)
    x, y = (tracer.constant(n.value) for n in graph if n.kind == "input")
    with tracer.GradientTape() as tape:
        tape.watch([x, y])
        loss = namespace["loss"](x, y)
    return [g.numpy() for g in tape.gradient(loss, [x, y, namespace["W"]])]


def test_text_is_the_listing_then_the_summary(cli):
    listing, summary = succeeded(cli(LOSS)).split("\n\n")
    assert listing + "\n" == LISTING
    assert summary.splitlines()[0] == "9 nodes: 1 constant, 2 input, 5 op, 1 variable"
    assert "outputs: 1" in summary
    assert "optimisation" not in summary


def test_dot_is_a_graphviz_digraph(cli):
    out = succeeded(cli(LOSS + ["--format", "dot"]))
    assert out.startswith("digraph tapegen {\n")
    assert out.rstrip().endswith("}")
    assert '"t2" [label="t2 = tanh' in out


def test_json_reads_back_as_the_recorded_graph(cli):
    graph = ir.Graph.from_json(succeeded(cli(LOSS + ["--format", "json"])))
    assert str(graph) + "\n" == LISTING
    x, y, W = (n.value for n in graph if n.kind != "op" and n.name)
    expected = np.mean((np.tanh(x @ W) - y) ** 2)
    np.testing.assert_allclose(ir.evaluate(graph)[0], expected, rtol=1e-14)


def test_adjoint_is_optimised_and_computes_the_tapes_gradients(cli, workdir):
    out = succeeded(cli(LOSS + ["--adjoint"]))
    assert "# adjoint of t2" in out
    assert "optimisation: " in out
    assert "outputs: 3" in out
    graph = ir.Graph.from_json(succeeded(cli(LOSS + ["--adjoint", "--format", "json"])))
    assert graph.to_text().splitlines()[-1].startswith("return ")
    for got, want in zip(ir.evaluate(graph), eager_gradients(workdir, graph), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_output_goes_to_the_file_and_stdout_says_so(cli, workdir):
    out = succeeded(cli(LOSS + ["--adjoint", "--format", "dot", "-o", "loss.dot"]))
    assert out == "wrote loss.dot: the adjoint graph of loss() (18 nodes)\n"
    written = (workdir / "loss.dot").read_text()
    assert written == succeeded(cli(LOSS + ["--adjoint", "--format", "dot"]))


def test_help_describes_the_formats(cli):
    out = succeeded(cli(["show", "--help"]))
    assert out.startswith("usage: tapegen show ")
    assert "{text,dot,json}" in out
    assert "svg" not in out


@pytest.mark.parametrize("key", ERRORS)
def test_errors_are_one_line_with_an_exit_status(cli, key):
    args, status, reason = ERRORS[key]
    result = cli(args)
    assert result.returncode == status, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("tapegen"), lines[0]
    assert reason in lines[0]


def test_console_script_shows_the_graph(workdir):
    script = shutil.which("tapegen", path=os.path.dirname(sys.executable))
    assert script is not None, "installing the project (pip install -e .) makes a tapegen script"
    result = subprocess.run([script, *LOSS], cwd=workdir, capture_output=True, text=True,
                            timeout=120)
    assert succeeded(result).startswith(LISTING)
