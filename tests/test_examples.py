"""Run each script in examples/ as a user would, and check what it prints."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ["training_loop", "higher_order", "inspect_graph", "generate_gradient", "simulation",
            "dask_gradient", "fit_mnist_like", "custom_fit"]
NUMBER = r"[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"


def run_example(name):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, f"examples/{name}.py"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    assert "Warning" not in result.stderr, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def output():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run_example(name)
        return cache[name]

    return get


def find_float(pattern, text):
    match = re.search(pattern, text, re.M)
    assert match, f"no match for {pattern!r} in:\n{text}"
    return float(match.group(1))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_is_a_runnable_script(name):
    source = (ROOT / "examples" / f"{name}.py").read_text()
    tree = ast.parse(source)
    docstring = ast.get_docstring(tree)
    assert docstring and f"python examples/{name}.py" in docstring
    assert any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)
    assert 'if __name__ == "__main__":' in source


def test_training_loop_loss_decreases(output):
    text = output("training_loop")
    losses = [float(v) for v in re.findall(rf"^step\s+\d+\s+loss ({NUMBER})$", text, re.M)]
    assert len(losses) >= 5, text
    assert all(b < a for a, b in zip(losses, losses[1:])), losses
    assert losses[-1] < losses[0] / 10, losses
    final = find_float(rf"^final loss ({NUMBER})$", text)
    assert final <= losses[-1]


def test_higher_order_newton_converges(output):
    text = output("higher_order")
    assert "converged after" in text, text
    x = find_float(rf"converged after \d+ steps: x = ({NUMBER})", text)
    assert abs(4 * x**3 - 6 * x + 1) < 1e-8  # f'(x) = 0 for f(x) = x**4 - 3x**2 + x
    assert 12 * x**2 - 6 > 0  # ... and f''(x) > 0: a minimum
    assert "a minimum" in text


def test_higher_order_hessian_matches_closed_form(output):
    text = output("higher_order")
    assert find_float(rf"Hessian max difference: ({NUMBER})", text) < 1e-9


def test_higher_order_third_derivative(output):
    text = output("higher_order")
    assert "dy/dx = 27, d2y/dx2 = 18, d3y/dx3 = 6" in text, text


def test_inspect_graph(output):
    text = output("inspect_graph")
    for op in ("matmul", "add", "tanh", "subtract", "power", "mean"):
        assert re.search(rf"^t\d+: \S+ = {op} ", text, re.M), f"no {op} line in:\n{text}"
    assert re.search(r"^W: f64\[3,2\] = variable$", text, re.M)
    nodes = int(find_float(r"^nodes: (\d+)", text))
    assert nodes >= 10
    assert "it depends on the leaves W (variable), b (variable)" in text
    assert "dloss/dW" in text and "dloss/db" in text
    assert find_float(rf"finite-difference max error: ({NUMBER})", text) < 1e-6


def test_generate_gradient(output):
    text = output("generate_gradient")
    assert re.search(r"^def loss_and_grad\(W1, b1, W2, x, y\):$", text, re.M), text
    assert find_float(rf"generated vs eager gradients: max difference ({NUMBER})", text) < 1e-12
    losses = [float(v) for v in re.findall(rf"^step\s+\d+\s+loss ({NUMBER})$", text, re.M)]
    assert len(losses) >= 5 and losses[-1] < losses[0] / 10, losses


def test_simulation_recovers_the_damping_through_a_loop(output):
    text = output("simulation")
    losses = [float(v) for v in re.findall(rf"^step\s+\d+\s+loss ({NUMBER})", text, re.M)]
    assert len(losses) >= 5 and losses[-1] < losses[0] * 1e-6, losses
    dampings = [float(v) for v in re.findall(rf"damping ({NUMBER})$", text, re.M)]
    assert abs(dampings[-1] - 0.8) < 1e-3, dampings
    assert find_float(rf"generated module: (\d+) lines for 10000 steps", text) < 200
    assert "for step in range(100):" in text
    assert find_float(rf"generated vs eager gradient: max difference ({NUMBER})", text) < 1e-12


def test_fit_stops_early_keeps_the_best_weights_and_traces_once(output):
    text = output("fit_mnist_like")
    assert 'Model: "sequential' in text and "Total params: 50,890" in text
    assert "Epoch 1/60" in text
    assert int(find_float(r"^epochs run: (\d+)$", text)) < 60
    assert find_float(rf"^test accuracy: ({NUMBER})$", text) > 0.7
    assert find_float(r"^traces of the training step: (\d+)$", text) == 1


def test_custom_fit_runs_the_guides_step_compiled(output):
    text = output("custom_fit")
    first = find_float(rf"^loss: first epoch ({NUMBER})", text)
    last = find_float(rf"last epoch ({NUMBER})$", text)
    assert last < first / 5
    assert find_float(r"^traces of the custom train_step: (\d+)$", text) == 1
    assert "tape.gradient(loss, self.trainable_variables)" in text
    assert re.search(r"^10/10$|^Epoch 10/10$", text, re.M)


def test_the_readme_lists_exactly_the_supported_functions():
    """The README's list of supported functions is ``python -m tracer.diagnostics.coverage``."""
    import tracer.diagnostics.coverage

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    begin = readme.index("checks it. -->\n") + len("checks it. -->\n")
    end = readme.index("<!-- end of the generated list -->")
    assert readme[begin:end] == tracer.diagnostics.coverage.markdown(), (
        "README.md's list of supported functions is out of date: paste the output of "
        "`python -m tracer.diagnostics.coverage` between its markers")


@pytest.mark.parametrize("package", ["tracer", "ir", "codegen"])
def test_the_readme_documents_every_public_name(package):
    """Each name a package exports appears in the README's API table as ``package.name``."""
    init = ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8"))
    exported = next(ast.literal_eval(node.value) for node in init.body
                    if isinstance(node, ast.Assign) and node.targets[0].id == "__all__")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Public API"):readme.index("## Semantics")]
    listed = set(re.findall(rf"`{package}\.(\w+)`", table))
    assert listed == set(exported), (
        f"README.md's API table and {package}.__all__ differ: "
        f"missing {sorted(set(exported) - listed)}, stale {sorted(listed - set(exported))}")


def test_dask_gradient_descends_within_the_workers_memory_and_equals_numpy(output):
    text = output("dask_gradient")
    norms = [float(v) for v in re.findall(rf"\|gradient\| ({NUMBER})$", text, re.M)]
    assert len(norms) == 3 and norms[-1] < norms[0], norms
    peaks = [float(v) for v in re.findall(r"(\d+) MiB", text.split("peak memory")[1])]
    assert max(peaks[:-1]) < peaks[-1], text  # (each worker's peak, then the limit)
    assert find_float(rf"max relative difference ({NUMBER})", text) <= 1e-10


def test_the_demo_says_where_it_wrote_its_module(tmp_path, monkeypatch, capsys):
    """The README's first command runs ``tapegen demo`` in the user's directory: the module
    lands there, and the demo says so, with the absolute path and the way to write
    it elsewhere."""
    import tracer.cli.main

    monkeypatch.chdir(tmp_path)
    assert tracer.cli.main.main(["demo"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert (tmp_path / "loss_grad.py").is_file()
    assert last.startswith("The gradient module is loss_grad.py, written into the current "
                           f"directory ({os.getcwd()}; -o DIR writes it elsewhere)."), last

    assert tracer.cli.main.main(["demo", "-o", "out"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"The gradient module is {os.path.join('out', 'loss_grad.py')}, "
                           f"written into {tmp_path / 'out'}."), last


@pytest.mark.parametrize("written", ["loss_grad.py", "loss_fn_grad.py"])
def test_git_ignores_what_the_readme_walk_through_writes_into_a_clone(written):
    """``tapegen demo`` (the README's first command) and the README's ``tapegen grad``
    example, run from the repository, write these modules at its top: git leaves them
    out of ``git status``, and only there."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git clone, or no git")

    def ignored(path):
        return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0
    assert ignored(written)
    assert not ignored(f"examples/{written}")
