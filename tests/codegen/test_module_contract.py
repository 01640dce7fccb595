"""What every generated module promises, whatever it differentiates.

It imports numpy and nothing else, and runs where tapegen is not installed;
the same recording gives the same text, byte for byte; ``INPUTS`` lists the
parameters in order and the function refuses arguments that do not match
it; the gradients come back in the structure of the sources, with ``None``
for a source the target does not depend on.  Parameters are the watched
tensors, each version of a variable the tape read, and the captured arrays
that are data; small constants are written into the code (arrays once, with
the module).  Recordings that cannot
become numpy code are refused with errors that say why, and a module written
for the array API, loaded where its packages are missing, names the extra that
installs them.
"""

import ast
import os
import subprocess
import sys

import numpy as np
import pytest

import codegen
import ir
import tracer
from codegen_support import assert_gradients_equal, function_def, generate

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
Y = np.array([0.3, -0.2, 0.1])


def _record_model():
    """``sum(tanh(x * v) + x)`` by the watched ``x`` and the variable ``v``."""
    x = tracer.constant(X, name="x")
    v = tracer.Variable(Y, name="v")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = np.tanh(x * v)
        out = np.sum(h + x)
    return tape, out, x, v


# --- standalone ----------------------------------------------------------------------

def test_module_imports_numpy_and_nothing_else():
    tape, out, x, v = _record_model()
    tree = ast.parse(codegen.gradient_source(tape, out, [x, v]))
    imports = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [ast.unparse(node) for node in imports] == ["import numpy as np"]
    assert tree.body[1] is imports[0]
    called = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not called & {"__import__", "importlib.import_module", "exec", "eval"}


RUNNER = '''
import importlib.abc
import importlib.util
import sys

import numpy as np


class NotInstalled(importlib.abc.MetaPathFinder):
    """Refuse tapegen's packages and its dependencies: the module must not need them."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {"tracer", "ir", "codegen", "astor", "networkx"}:
            raise ImportError(f"{name} is not installed here")
        return None


sys.meta_path.insert(0, NotInstalled())
spec = importlib.util.spec_from_file_location("generated", "generated.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
arrays = np.load("arguments.npz")
value, (d_x, d_v) = module.gradient(arrays["x"], arrays["v"])
np.savez("results.npz", value=value, d_x=d_x, d_v=d_v)
'''


def test_module_runs_where_tapegen_is_not_installed(tmp_path):
    tape, out, x, v = _record_model()
    codegen.write(tmp_path / "generated.py",
                  codegen.gradient_source(tape, out, (x, v), with_value=True))
    np.savez(tmp_path / "arguments.npz", x=X, v=Y)
    (tmp_path / "runner.py").write_text(RUNNER)
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "runner.py"], cwd=tmp_path, env=environment, check=True)
    results = np.load(tmp_path / "results.npz")
    d_x, d_v = tape.gradient(out, [x, v])
    assert results["value"] == out.numpy()
    assert_gradients_equal([results["d_x"], results["d_v"]], [d_x, d_v])


GENERATOR = '''
import numpy as np
import codegen
import tracer

x = tracer.constant(np.linspace(-1.0, 1.0, 6).reshape(2, 3), name="x")
W = tracer.Variable(np.ones((3, 4)), name="W")
with tracer.GradientTape() as tape:
    tape.watch(x)
    h = np.tanh(x @ W)
    loss = np.mean(h * h) + np.max(x)
print(codegen.gradient_source(tape, loss, {"x": x, "W": W}, with_value=True), end="")
'''


def test_the_same_recording_gives_the_same_text_in_any_process(tmp_path):
    """Names, statement order and literals depend on the recording alone, not on hash
    seeds (set and dict orders) or on anything else that differs between runs."""
    (tmp_path / "model.py").write_text(GENERATOR)
    texts = []
    for hash_seed in ("1", "2"):
        environment = dict(os.environ, PYTHONHASHSEED=hash_seed)
        texts.append(subprocess.run([sys.executable, "model.py"], cwd=tmp_path, env=environment,
                                    check=True, capture_output=True, text=True).stdout)
    assert texts[0] == texts[1]
    assert "def gradient(x, W):" in texts[0]


def test_recording_twice_gives_the_same_text():
    sources = []
    for _ in range(2):
        tape, out, x, v = _record_model()
        sources.append(codegen.gradient_source(tape, out, [x, v], seed_argument=True))
    assert sources[0] == sources[1]


# --- parameters and the check at the door ------------------------------------------------

def test_inputs_list_watched_tensors_variables_and_data_in_recording_order():
    x = tracer.constant(np.ones((2, 3)), name="x")
    W = tracer.Variable(np.full((3, 4), 0.5), name="W")
    data = np.arange(30.0).reshape(10, 3)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(np.tanh(x @ W)) + np.sum(data @ W)
    module = generate(tape, out, [x, W], seed_argument=True)
    assert module.INPUTS == (("x", (2, 3), "float64"), ("W", (3, 4), "float64"),
                             ("data", (10, 3), "float64"), ("seed", (), "float64"))
    assert "data: an array the tape captured at" in module.__doc__


def test_arguments_that_differ_from_inputs_are_refused_by_name():
    tape, out, x, v = _record_model()
    module = generate(tape, out, [x, v])
    with pytest.raises(ValueError, match=r"^x: expected float64\[2, 3\], got float64\[3, 2\]$"):
        module.gradient(X.T, Y)
    with pytest.raises(ValueError, match=r"^v: expected float64\[3\], got float32\[3\]$"):
        module.gradient(X, Y.astype(np.float32))


def test_small_constants_are_inline_and_captured_data_is_a_parameter():
    x = tracer.constant(np.ones(20), name="x")
    weights = np.linspace(0.0, 1.0, 20)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(x * weights) + np.sum(x * np.array([2.0]) * 3.0) + np.sum(x * np.ones(20))
    source = codegen.gradient_source(tape, out, x, seed_argument=True, optimize=False)
    module = codegen.load(source)
    assert [name for name, _, _ in module.INPUTS] == ["x", "data", "seed"]
    assert "np.array([2.0])" in source and "np.full((20,), 1.0)" in source
    assert_gradients_equal(module.gradient(np.ones(20), weights, 1.5),
                           tape.gradient(out, x, output_gradients=1.5))


def test_constant_arrays_are_made_once_with_the_module_and_read_only():
    """An array written into the code is made when the module loads, named as its value
    is in the listing (in capitals, after an underscore), read-only, and read by that
    name wherever the function needs it, in a loop too: it is not built again at
    each call or step.  Scalars stay inline; a returned constant is made afresh."""
    x = tracer.constant(np.array([0.5, 1.0, 2.0]), name="x")
    weights = np.array([1.0, -2.0, 3.0])
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(np.sin(x) * weights) + np.sum(x * x * weights) + np.sum(x * np.full(3, 0.5))
        final, _ = tracer.scan(lambda h, w: (np.tanh(h * w), h), x,
                               xs=np.array([[0.5, 1.0, 1.5], [2.0, 1.0, 0.5]]))
        loss = out + np.sum(final)
        linear = np.sum(x * weights)
    assert [n.name for n in tape.graph if n.kind == "constant"] == [
        "data", "data_1", "data_2", "data_3", "data_4"]
    source = codegen.gradient_source(tape, loss, x)
    lines = source.splitlines()
    for name, literal in [("_DATA", "np.array([1.0, -2.0, 3.0])"),
                          ("_DATA_3", "np.array([[0.5, 1.0, 1.5], [2.0, 1.0, 0.5]])")]:
        assert lines.index(f"{name} = {literal}") + 1 == lines.index(
            f"{name}.flags.writeable = False")
    assert lines.index("INPUTS = (") < lines.index("_DATA = np.array([1.0, -2.0, 3.0])")
    function = ast.unparse(function_def(source))
    assert "np.array(" not in function and "_DATA * np.cos(x)" in function
    assert "for step in range(len(_DATA_3)):" in function and "_DATA_3[step]" in function
    module = codegen.load(source)
    with pytest.raises(ValueError, match="read-only"):
        module._DATA[0] = 0.0
    for _ in range(2):
        assert_gradients_equal(module.gradient(x.numpy()), tape.gradient(loss, x))
    returned = codegen.load(codegen.gradient_source(tape, linear, x))
    first, second = returned.gradient(x.numpy()), returned.gradient(x.numpy())
    np.testing.assert_array_equal(first, weights)
    assert first.flags.writeable and not np.shares_memory(first, second)


def test_named_constants_are_parameters_whatever_their_size():
    x = tracer.constant(np.ones(3), name="x")
    scale = tracer.constant(2.0, name="scale")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(x * scale)
    module = generate(tape, out, x)
    assert module.INPUTS == (("x", (3,), "float64"), ("scale", (), "float64"))
    np.testing.assert_array_equal(module.gradient(np.ones(3), 5.0), np.full(3, 5.0))


def test_the_recorded_graph_names_each_leaf_as_the_parameter_it_becomes():
    W = tracer.Variable(np.full((3, 4), 0.5), name="W")
    x = tracer.constant(np.linspace(-1.0, 1.0, 18).reshape(6, 3))
    noise = tracer.constant(np.linspace(0.0, 0.3, 24).reshape(6, 4))
    with tracer.GradientTape(persistent=True) as tape:
        out = np.sum(np.tanh(x @ W) * noise)
    graph = tape.graph.nx
    leaves = {data["name"]: data["value"] for _, data in graph.nodes(data=True)
              if data["kind"] != "op" and data["name"]}
    module = generate(tape, out, W)
    arguments = [leaves[name] for name, _, _ in module.INPUTS]
    assert [name for name, _, _ in module.INPUTS] == ["W", "data", "data_1"]
    np.testing.assert_allclose(module.gradient(*arguments), tape.gradient(out, W).numpy())


def test_a_named_index_tensor_is_a_parameter_not_recorded_positions():
    scores = tracer.constant(np.arange(12.0).reshape(4, 3), name="scores")
    labels = tracer.constant([2, 0, 1, 2], name="labels")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(scores)
        picked = np.sum(scores[np.arange(4), labels])
    module = generate(tape, picked, scores)
    assert [name for name, _, _ in module.INPUTS] == ["scores", "labels"]
    other = np.array([0, 0, 0, 1])
    expected = np.zeros((4, 3))
    expected[np.arange(4), other] = 1.0
    np.testing.assert_array_equal(module.gradient(scores.numpy(), other), expected)


def _masked_loss(x):
    inside = (x > 0.0) & ~(x >= 1.0)
    index = np.argmax(np.where(inside, x, -1.0))
    order = np.argsort(x)
    rank = np.searchsorted(np.sort(x), 0.5)
    return (np.sum(np.where(inside, x ** 2, 0.1 * x)) + x[index] * 3.0 + x[order][-1]
            + np.sum(x[np.nonzero(inside)[0]]) + x[rank % 4] * 0.5)


def test_masks_and_indices_computed_from_inputs_are_recomputed_not_recorded():
    """Integer and boolean values carry no gradient, but they depend on the inputs:
    generated code must recompute them, so it is right at other inputs too."""
    x = tracer.constant(np.array([-0.5, 0.3, 0.7, 1.5]), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        loss = _masked_loss(x)
    module = generate(tape, loss, x)
    for other in ([0.5, -0.3, 1.7, 0.2], [2.0, 0.9, 0.1, -1.0]):
        y = tracer.constant(np.array(other))
        with tracer.GradientTape() as eager:
            eager.watch(y)
            expected = eager.gradient(_masked_loss(y), y)
        assert_gradients_equal(module.gradient(np.array(other)), expected)


def test_each_version_of_a_variable_read_on_the_tape_is_a_parameter():
    v = tracer.Variable(np.array([1.0, 2.0]), name="v")
    with tracer.GradientTape(persistent=True) as tape:
        first = np.sum(np.sin(v))
        v.assign_add(np.array([0.5, 0.5]))
        out = first * np.sum(v * v)
    module = generate(tape, out, v, with_value=True)
    assert [name for name, _, _ in module.INPUTS] == ["v", "v_1"]
    assert "v, v_1: the versions of variable v the tape read" in module.__doc__
    value, gradient = module.gradient(np.array([1.0, 2.0]), np.array([1.5, 2.5]))
    assert value == out.numpy()
    assert_gradients_equal(gradient, tape.gradient(out, v))


# --- what the function returns ---------------------------------------------------------

def _three_sources():
    a = tracer.constant(np.array([1.0, 2.0]), name="a")
    b = tracer.constant(np.array(0.5), name="b")
    unused = tracer.constant(np.array([3.0]), name="unused")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([a, b, unused])
        out = np.sum(a * b)
    return tape, out, a, b, unused


STRUCTURES = {
    "single": lambda a, b, u: a,
    "tuple": lambda a, b, u: (a, b),
    "list": lambda a, b, u: [a, u, b],
    "dict": lambda a, b, u: {"b": b, "a": a},
    "nested": lambda a, b, u: {"pair": (a, [b]), "unused": u},
}


@pytest.mark.parametrize("with_value", [False, True])
@pytest.mark.parametrize("structure", sorted(STRUCTURES))
def test_gradients_come_back_in_the_structure_of_the_sources(structure, with_value):
    tape, out, a, b, unused = _three_sources()
    sources = STRUCTURES[structure](a, b, unused)
    module = generate(tape, out, sources, with_value=with_value)
    result = module.gradient(np.array([1.0, 2.0]), np.array(0.5))
    eager = tape.gradient(out, sources)
    if with_value:
        value, result = result
        assert value == out.numpy()
    assert type(result) is (np.ndarray if isinstance(eager, tracer.Tensor) else type(eager))
    if isinstance(eager, dict):
        assert list(result) == list(eager)
    assert_gradients_equal(result, eager)


def test_a_disconnected_source_has_no_gradient_and_is_no_parameter():
    tape, out, a, b, unused = _three_sources()
    module = generate(tape, out, [a, unused, b])
    assert [name for name, _, _ in module.INPUTS] == ["a", "b"]
    assert module.gradient(np.array([1.0, 2.0]), np.array(0.5))[1] is None
    assert "No gradient (None): unused." in module.__doc__


def test_a_seed_argument_gives_vector_jacobian_products():
    tape, out, x, v = _record_model()
    seed = np.array(0.75)
    module = generate(tape, out, [x, v], seed_argument=True)
    assert module.INPUTS[-1] == ("seed", (), "float64")
    assert module.__doc__.startswith("Vector-Jacobian product of out ")
    assert_gradients_equal(module.gradient(X, Y, seed),
                           tape.gradient(out, [x, v], output_gradients=seed))


def test_a_list_of_targets_takes_a_list_of_seeds():
    x = tracer.constant(np.array([0.5, 1.0, 1.5]), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = np.sin(x)
        total = np.sum(s * x)
    module = generate(tape, [s, total], x, seed_argument=True, with_value=True)
    assert module.INPUTS == (("x", (3,), "float64"), ("seed[0]", (3,), "float64"),
                             ("seed[1]", (), "float64"))
    seeds = [np.array([1.0, -2.0, 0.5]), np.array(3.0)]
    (s_value, total_value), gradient = module.gradient(x.numpy(), seeds)
    np.testing.assert_array_equal(s_value, s.numpy())
    assert total_value == total.numpy()
    assert_gradients_equal(gradient, tape.gradient([s, total], x, output_gradients=seeds))
    with pytest.raises(ValueError, match=r"expected 3 arrays \(x, seed\[0\], seed\[1\]\), got 2"):
        module.gradient(x.numpy(), seeds[:1])
    with pytest.raises(ValueError, match=r"^seed\[1\]: expected float64\[\], got float64\[3\]"):
        module.gradient(x.numpy(), [seeds[0], seeds[0]])


# --- graphs and higher orders ------------------------------------------------------------

def test_a_graph_names_its_target_and_sources_by_id_or_by_listing_name():
    x = tracer.constant(np.array([0.5, 1.0]), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.sum(np.exp(x) * x)
    graph = tape.graph
    target = max(n.id for n in graph if n.kind == "op")
    by_id = codegen.gradient_source(graph, target, [0])
    listing_name = graph.names()[target]
    assert f"{listing_name}: " in str(graph)
    assert codegen.gradient_source(graph, listing_name, ["x"]) == by_id
    (gradient,) = codegen.load(by_id).gradient(x.numpy())
    np.testing.assert_allclose(gradient, np.exp(x.numpy()) * (1.0 + x.numpy()), rtol=1e-15)
    with pytest.raises(ValueError, match="the graph has no node 'z'"):
        codegen.gradient_source(graph, "z", ["x"])


def test_nested_tapes_generate_second_and_third_derivative_code():
    x = tracer.constant(3.0, name="x")
    with tracer.GradientTape(persistent=True) as t1:
        t1.watch(x)
        with tracer.GradientTape(persistent=True) as t2:
            t2.watch(x)
            with tracer.GradientTape() as t3:
                t3.watch(x)
                y = x ** 3
            d1 = t3.gradient(y, x)
        d2 = t2.gradient(d1, x)
    second = generate(t2, d1, x, with_value=True)
    assert second.gradient(3.0) == (27.0, 18.0)
    third = generate(t1, d2, x, with_value=True)
    assert third.gradient(3.0) == (18.0, 6.0)
    assert third.gradient(2.0) == (12.0, 6.0)


def test_a_generated_module_loads_from_the_file_it_was_written_to(tmp_path):
    tape, out, x, v = _record_model()
    path = codegen.write(tmp_path / "model_grad.py", codegen.gradient_source(tape, out, [x, v]))
    module = codegen.load(str(path))
    assert module.__name__ == "model_grad"
    assert_gradients_equal(module.gradient(X, Y), tape.gradient(out, [x, v]))


# --- what cannot be generated ------------------------------------------------------------

def test_a_custom_gradient_is_refused_with_the_reason():
    @tracer.custom_gradient
    def soft_sign(x):
        return x / (1.0 + np.abs(x)), lambda g: g / (1.0 + np.abs(x)) ** 2

    x = tracer.constant(np.array([0.5, -2.0]), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(soft_sign(x))
    message = (r"cannot generate code for custom_gradient function '.*soft_sign' recorded at "
               r"test_module_contract\.py:\d+: its gradient is Python code")
    with pytest.raises(codegen.CodegenError, match=message):
        codegen.gradient_source(tape, out, x)


def test_a_used_non_persistent_tape_is_refused():
    x = tracer.constant(np.array([0.5, -2.0]), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        out = np.sum(x * x)
    tape.gradient(out, x)
    with pytest.raises(tracer.TapeStateError,
                       match=r"create it with GradientTape\(persistent=True\)"):
        codegen.gradient_source(tape, out, x)


def test_only_tapes_and_graphs_are_accepted():
    with pytest.raises(TypeError, match="needs a tracer.GradientTape or an ir.Graph, got dict"):
        codegen.gradient_source({}, None, [])


def test_a_graph_without_nodes_for_the_target_is_refused():
    with pytest.raises(ValueError, match="the graph has no node 3"):
        codegen.gradient_source(ir.Graph(), 3, [])



@pytest.mark.parametrize("name", ["2fast", "class", "INPUTS", "_check_inputs", "np"])
def test_a_function_name_the_module_cannot_define_is_refused(name):
    tape, out, x, v = _record_model()
    with pytest.raises(ValueError, match=f"the function name '{name}' is"):
        codegen.gradient_source(tape, out, x, name=name)


def test_names_python_reads_as_one_identifier_are_one_name():
    a = tracer.constant(np.array([0.5, 1.0, 2.0]), name="ℌ")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(a)
        H = np.sin(a)
        y = np.sum(H * a)
    module = generate(tape, y, a)
    assert [name for name, _, _ in module.INPUTS] == ["H"]
    np.testing.assert_allclose(module.gradient(a.numpy()), tape.gradient(y, a).numpy())


def test_an_empty_captured_array_keeps_its_shape():
    x = tracer.constant(np.ones(3), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        stacked = np.concatenate([np.reshape(x, (1, 3)), np.zeros((0, 3))])
        out = np.sum(stacked * stacked)
    module = generate(tape, out, x)
    np.testing.assert_allclose(module.gradient(np.ones(3)), np.full(3, 2.0))


def test_arguments_that_are_not_arrays_are_refused_before_they_mislead():
    x = tracer.constant(np.array([1.0, 2.0]), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(x * x)
    module = generate(tape, out, x)
    with pytest.raises(TypeError, match="x: expected a numpy array, got list"):
        module.gradient([1.0, 2.0])
    with pytest.raises(ValueError, match=r"x: expected float64\[2\], got int64\[2\]"):
        module.gradient(np.array([1, 2]))


def test_arguments_off_the_fast_path_are_judged_as_any_other():
    """An ndarray of the declared shape and dtype is accepted at once; anything else that
    numpy reads as such an array (a subclass, a view, a numpy or Python scalar for a 0-d
    parameter) is accepted too, and the rest refused with the same messages."""
    x = tracer.constant(np.array([1.0, 2.0]), name="x")
    scale = tracer.constant(2.0, name="scale")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(x * x * scale)
    module = generate(tape, out, x)
    expected = module.gradient(np.array([1.0, 2.0]), np.array(2.0))
    view = np.array([1.0, 2.0]).view(np.recarray)  # an ndarray subclass
    for arguments in [(view, 2.0), (np.array([1.0, 2.0]), np.float64(2.0)),
                      (np.array([1.0, 9.0, 2.0])[::2], 2.0)]:
        np.testing.assert_array_equal(module.gradient(*arguments), expected)
    with pytest.raises(ValueError, match=r"^x: expected float64\[2\], got >f8\[2\]$"):
        module.gradient(np.array([1.0, 2.0], dtype=">f8"), 2.0)
    with pytest.raises(ValueError, match=r"^scale: expected float64\[\], got float32\[\]$"):
        module.gradient(np.array([1.0, 2.0]), np.float32(2.0))
    with pytest.raises(ValueError, match=r"^expected 2 arrays \(x, scale\), got 1$"):
        module._check_inputs(np.array([1.0, 2.0]))


def test_gradients_are_arrays_of_the_functions_own():
    x = tracer.constant(np.array([1.0, 2.0]), name="x")
    y = tracer.constant(np.array([3.0, 4.0]), name="y")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        out = np.sum(x * y) + 2.0 * np.sum(x[0])
    module = generate(tape, out, [x, y])
    arguments = (x.numpy().copy(), y.numpy().copy())
    d_x, d_y = module.gradient(*arguments)
    assert d_y is not arguments[0] and not np.shares_memory(d_y, arguments[0])
    d_y *= 10.0
    np.testing.assert_array_equal(arguments[0], [1.0, 2.0])


def test_the_docstring_says_which_captured_data_is_written_into_the_code():
    scores = tracer.constant(np.linspace(-1.0, 1.0, 12).reshape(4, 3), name="scores")
    labels = np.array([2, 0, 1, 2])
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(scores)
        picked = np.sum(scores[np.arange(4), labels])
    module = generate(tape, picked, scores)
    assert [name for name, _, _ in module.INPUTS] == ["scores"]
    assert "Written into the code: 2 captured arrays" in module.__doc__
    assert "test_module_contract.py:" in module.__doc__


def test_a_statement_wrapped_over_lines_is_named_and_commented_once():
    x = tracer.constant(np.linspace(0.1, 1.0, 4), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        hidden = np.tanh(
            x * 2.0
            + np.sin(x)
        )
        loss = np.sum(hidden ** 2)
    source = codegen.gradient_source(tape, loss, x)
    assert "    hidden = np.tanh(x * 2.0 + np.sin(x))\n" in source
    assert source.count("hidden = np.tanh(x * 2.0 + np.sin(x))\n") == 3  # code, two comments
    np.testing.assert_allclose(codegen.load(source).gradient(x.numpy()),
                               tape.gradient(loss, x).numpy())


def test_a_cast_of_a_zero_dimensional_parameter_accepts_a_python_number():
    """A 0-d parameter may be given as a Python float, which has no ``astype``."""
    x = tracer.constant(0.5, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sin(x.astype(np.float32)) * 2.0
    module = codegen.load(codegen.gradient_source(tape, y, [x]))
    np.testing.assert_allclose(module.gradient(0.5)[0], tape.gradient(y, x).numpy(), rtol=1e-6)


@pytest.mark.parametrize("package", ["array_api_compat", "array_api_extra"])
def test_loading_an_array_api_module_without_its_packages_names_the_extra(package,
                                                                         monkeypatch):
    x = tracer.constant(X, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(np.tanh(x[:, 1]) * x[:, 1])
    source = codegen.gradient_source(tape, out, x, target="array_api")
    assert f"import {package}" in source or f"from {package} import" in source
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(ModuleNotFoundError,
                       match=rf"imports {package}, which is not installed: "
                             r"pip install 'tapegen\[array-api\]'") as raised:
        codegen.load(source)
    assert raised.value.name == package
    monkeypatch.undo()
    module = codegen.load(source)
    expected = (1.0 - np.tanh(X[:, 1]) ** 2) * X[:, 1] + np.tanh(X[:, 1])
    np.testing.assert_allclose(module.gradient(X)[:, 1], expected, rtol=1e-14)
    np.testing.assert_array_equal(module.gradient(X)[:, [0, 2]], 0.0)


def test_a_module_missing_another_package_is_not_blamed_on_the_extra():
    source = "import numpy as np\nimport not_a_tapegen_dependency\n"
    with pytest.raises(ModuleNotFoundError, match="No module named 'not_a_tapegen_dependency'"):
        codegen.load(source)
