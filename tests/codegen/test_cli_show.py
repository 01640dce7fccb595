"""``tapegen show``: the graph a user's function records, as text, DOT or JSON.

Most runs call ``tracer.cli.main.main`` in this process, which is the code path
the console script takes; one run goes through the installed ``tapegen``
script, to show the command exists for users.  The JSON runs are read back
with ``ir.Graph.from_json`` and evaluated, so what ``show`` writes is checked
against the tape's own numbers, not only by its look.  The pictures are read
back as XML and their boxes and arrows counted, whichever engine drew them.
"""

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

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
    return np.histogram(x)[0]


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
t5: f64[] = mean t4                               # model.py:9
return t5
"""

ERRORS = {
    "no_function": (["show"], 2, "required: FILE.py:FUNCTION"),
    "png_needs_a_file": (LOSS + ["--format", "png"], 2, "give -o OUT.png"),
    "unknown_format": (LOSS + ["--format", "pdf"], 2, "invalid choice: 'pdf'"),
    "missing_file": (["show", "nowhere.py:loss", "--arg", "x=3"], 2, "no such file"),
    "missing_function": (["show", "model.py:nope"], 2, "defines no function 'nope'"),
    "bad_shape": (["show", "model.py:loss", "--arg", "x=3,a?", "--arg", "y=3"], 2,
                  "bad shape '3,a?'"),
    "missing_parameter": (["show", "model.py:loss", "--arg", "x=5,4"], 2,
                          "loss() needs --arg for y"),
    "repeated_arg": (LOSS + ["--arg", "x=2"], 2, "--arg x is given twice"),
    "overwrite_model": (LOSS + ["-o", "model.py"], 2, "is the traced file itself"),
    "function_raises": (["show", "model.py:failing", "--arg", "x=3"], 1,
                        "failing() raised ValueError: bad input at model.py:13"),
    "not_a_tensor": (["show", "model.py:constant", "--arg", "x=3"], 1,
                     "constant() returned a float, not a tensor"),
    "unsupported": (["show", "model.py:unsupported", "--arg", "x=3"], 1,
                    "np.histogram has no derivative rule"),
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
    assert "{text,dot,json,svg,png}" in out


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


SVG = "{http://www.w3.org/2000/svg}"
DRAWN_NODES = 8
"""x, y, W and t1 ... t5 of LISTING: the 2 of ``** 2`` is written into t4's label."""
DRAWN_EDGES = 7


def boxes_and_arrows(svg):
    """Drawn nodes and edges in an SVG from either engine: Graphviz classes its groups
    ``node`` and ``edge``, the matplotlib engine gives them ids ``node:...``, ``edge:...``."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    kinds = [g.get("class") or g.get("id", "").partition(":")[0] for g in root.iter(f"{SVG}g")]
    return kinds.count("node"), kinds.count("edge")


@pytest.fixture(params=["default", "without dot"])
def engine(request, monkeypatch):
    """The engine ``show`` picks: dot when installed, and matplotlib when it is not."""
    if request.param == "without dot":
        monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    return request.param


def test_svg_goes_to_stdout_with_a_box_per_node(cli, engine):
    svg = succeeded(cli(LOSS + ["--format", "svg"]))
    assert boxes_and_arrows(svg) == (DRAWN_NODES, DRAWN_EDGES)
    assert "t2 = tanh" in svg


def test_svg_and_png_go_to_files(cli, workdir, engine):
    out = succeeded(cli(LOSS + ["--format", "svg", "-o", "loss.svg"]))
    assert out == "wrote loss.svg: the recorded graph of loss() (9 nodes)\n"
    assert boxes_and_arrows((workdir / "loss.svg").read_text(encoding="utf-8")) == (
        DRAWN_NODES, DRAWN_EDGES)
    out = succeeded(cli(LOSS + ["--adjoint", "--format", "png", "-o", "loss.png"]))
    assert out == "wrote loss.png: the adjoint graph of loss() (18 nodes)\n"
    assert (workdir / "loss.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_without_any_engine_svg_says_what_to_install(cli, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = cli(LOSS + ["--format", "svg"])
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("tapegen show: error: cannot draw graphs here: install "
                                    "Graphviz")
    assert "pip install 'tapegen[viz]'" in result.stderr
