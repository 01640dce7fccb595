"""Generated code calls values what the user's code calls them.

Each rule has a model in ``naming_models.py``; each test reads the names the
generated function assigns, and checks that the module still computes the
eager tape's value and gradients, and gradients that agree with central
differences of its own value.
"""

import ast
import inspect

import numpy as np
import pytest

import codegen
import naming_models
from codegen.statements import function_value_name
from codegen_support import assert_gradients_equal, function_def


def _generated(record, *args):
    """The module generated for a recorded model (value and gradients), checked; its
    source."""
    tape, target, sources, _ = record(*args)
    source = codegen.gradient_source(tape, target, sources, with_value=True)
    module = codegen.load(source)
    leaves = {data["name"]: data["value"] for _, data in tape.graph.nx.nodes(data=True)
              if data["kind"] != "op"}
    arguments = [leaves[name] for name, _, _ in module.INPUTS]
    value, gradients = module.gradient(*arguments)
    assert_gradients_equal((value, gradients), (target, tape.gradient(target, sources)))
    _assert_differences_agree(module.gradient, arguments, gradients)
    return source


def _assert_differences_agree(function, arguments, gradients, eps=1e-6):
    """Each gradient, along a random direction, equals the central difference of the
    function's value."""
    rng = np.random.default_rng(0)
    for k, gradient in enumerate(gradients):
        direction = rng.standard_normal(np.shape(arguments[k]))
        moved = [[a + s * eps * direction if j == k else a for j, a in enumerate(arguments)]
                 for s in (1, -1)]
        difference = (function(*moved[0])[0] - function(*moved[1])[0]) / (2 * eps)
        np.testing.assert_allclose(np.sum(gradient * direction), difference, rtol=1e-6,
                                   atol=1e-8)


def _assigned(source, function="gradient"):
    """What the generated function assigns, by name, as source text, in order."""
    statements = [s for s in function_def(source, function).body if isinstance(s, ast.Assign)]
    names = [t.id for s in statements for t in s.targets if isinstance(t, ast.Name)]
    assert len(names) == len(set(names)), f"a name is assigned twice: {names}"
    return {s.targets[0].id: ast.unparse(s.value) for s in statements
            if isinstance(s.targets[0], ast.Name)}


def _returned(source, function="gradient"):
    return ast.unparse(function_def(source, function).body[-1].value)


def test_an_assignment_names_the_value_its_line_leaves():
    assigned = _assigned(_generated(naming_models.record_assignments))
    assert assigned["logits"] == "x @ W + b"
    assert assigned["probabilities"] == "exp / total"
    assert assigned["loss"] == "(item ** 2).sum()"
    assert {"d_probabilities", "d_logits"} <= set(assigned)
    assert not {"add", "matmul", "div"} & set(assigned)


def test_a_statement_wrapped_over_lines_names_its_value_once():
    source = _generated(naming_models.record_wrapped_statement)
    assigned = _assigned(source)
    assert assigned["product"] == "sin * cos"
    assert assigned["total"] == "(product ** 2).sum()"
    assert "d_product" in assigned and "mul" not in assigned
    assert "  product = np.sin(x) * np.cos(x)\n" in source  # the comment: one line


def test_a_call_assigned_to_a_name_names_the_functions_result():
    source = _generated(naming_models.record_calls_assigned_to_names)
    assigned = _assigned(source)
    assert assigned["logits"] == "hidden @ transpose"
    assert assigned["loss"] == "(sub ** 2).mean()"  # through return mean_squared_error(...)
    assert _returned(source) == "(loss, [d_W, d_x, d_y])"
    line = inspect.getsourcelines(naming_models.mean_squared_error)[1] + 1
    assert source.startswith(f'"""Gradient of loss (naming_models.py:{line})')


def test_a_return_line_no_call_names_is_named_after_its_function():
    assigned = _assigned(_generated(naming_models.record_returns))
    assert assigned["energy"] == "(cos * q).sum()"      # compute_energy
    assert assigned["potential"] == "(sin ** 2).sum()"  # potential_fn
    assert assigned["penalty"] == "(q ** 4).sum()"      # called as small = ... and large = ...
    assert assigned["penalty_1"] == "(mul ** 4).sum()"
    assert assigned["mul"] == "q * 2"  # the argument of large = penalty(q * 2), not large
    assert assigned["loss"] == "energy * potential + penalty + penalty_1"


@pytest.mark.parametrize("function, name", [
    ("loss_fn", "loss"), ("compute_loss", "loss"), ("loss_of", "loss"),
    ("get_logits", "logits"), ("energy_function", "energy"), ("_forward", "forward"),
    ("fn", "fn"), ("class_fn", "class_"), ("<lambda>", None), ("__call__", None)])
def test_a_functions_result_is_named_after_what_it_computes(function, name):
    assert function_value_name(function) == name


def test_augmented_assignments_number_up():
    assigned = _assigned(_generated(naming_models.record_augmented_assignments))
    assert assigned["acc"] == "np.sin(x)"
    assert assigned["acc_1"] == "acc + mul"
    assert assigned["acc_2"] == "acc_1 * x"
    assert assigned["loss"] == "acc_2.sum()"


def test_names_never_collide_with_parameters_builtins_or_the_modules_own():
    source = _generated(naming_models.record_collisions)
    assert [a.arg for a in function_def(source).args.args] == ["x", "seed_1"]
    assigned = _assigned(source)
    assert assigned["x_1"] == "sin * seed_1"
    assert assigned["x_2"] == "np.exp(x_1)"
    assert assigned["sum_"] == "x_2.sum()"
    assert assigned["INPUTS_1"] == "sum_ * 2"
    assert assigned["d_x_1"] == "2.0 * x_2"  # the gradient of x_1 is named after it
    assert _returned(source) == "(INPUTS_1, [d_x, d_seed_1])"


@pytest.mark.parametrize("steps", [2, 4])
def test_each_run_of_a_statement_in_a_loop_is_named(steps):
    assigned = _assigned(_generated(naming_models.record_unrolled_loop, steps))
    assert assigned["h_1"] == "np.tanh(h @ W + xs[0])"
    for t in range(1, steps):
        assert assigned[f"h_{t + 1}"] == f"np.tanh(h_{t} @ W + xs[{t}])"
    assert assigned[f"d_h_{steps}"] == f"2 * h_{steps}"  # gradients number as their values
    assert {f"d_h_{t}" for t in range(1, steps)} <= set(assigned)


def test_a_repeated_statement_that_reads_no_earlier_run_names_each_run():
    assigned = _assigned(_generated(naming_models.record_repeated_statement))
    assert [assigned[n] for n in ("y", "y_1", "y_2")] == [
        "np.sin(item)", "np.sin(item_1)", "np.sin(item_2)"]
    assert assigned["total"] == "y + y_1" and assigned["total_1"] == "total + y_2"


def test_ops_that_repeat_within_one_run_are_not_taken_for_runs():
    assigned = _assigned(_generated(naming_models.record_look_alike_runs))
    assert assigned["h_1"] == "h + a + b"
    assert assigned["h_2"] == "np.tanh(tanh)"
    assert assigned["h_3"] == "h_2 + mul"
    assert assigned["h_4"] == "h_3 + a + b"
    assert "h_7" not in assigned


def test_tuple_targets_name_each_element():
    assigned = _assigned(_generated(naming_models.record_tuple_targets))
    assert assigned["a"] == "np.sin(x)"
    assert assigned["b"] == "cos * 2"


def test_tangents_are_named_after_the_values_as_the_code_names_them():
    tape, target, (W, h, xs), values = naming_models.record_unrolled_loop(3)
    source = codegen.hvp_source(tape, target, W)
    assigned = _assigned(source, "hvp")
    assert {"h_1_dot", "h_2_dot", "h_3_dot", "d_h_1_dot", "d_h_2_dot"} <= set(assigned)
    gradient = codegen.load(codegen.gradient_source(tape, target, W)).gradient
    hvp = codegen.load(source).hvp
    v = np.random.default_rng(1).standard_normal(W.shape)
    eps = 1e-6
    difference = (gradient(values["W"] + eps * v, values["h"], values["xs"])
                  - gradient(values["W"] - eps * v, values["h"], values["xs"])) / (2 * eps)
    np.testing.assert_allclose(hvp(values["W"], values["h"], values["xs"], v), difference,
                               rtol=1e-6, atol=1e-8)


def _blocks(source, kind, function="gradient"):
    """The ``kind`` blocks (``ast.For``, ``ast.While``, ``ast.If``) of the generated
    function, in order, each as what its own statements assign (``orelse`` apart)."""
    def assigned(statements):
        return {s.targets[0].id: ast.unparse(s.value) for s in statements
                if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)}
    found = [node for node in ast.walk(function_def(source, function)) if isinstance(node, kind)]
    return [(assigned(node.body), assigned(node.orelse)) for node in found]


def _assert_body_names_are_their_own(source, function="gradient"):
    """A name a loop or branch assigns (other than its carries and results, which are
    also assigned outside) is assigned in no other block: bodies share the module's
    namespace."""
    places = {}
    blocks = (ast.For, ast.While, ast.If)
    outer = function_def(source, function)
    for parent in ast.walk(outer):
        if parent is not outer and not isinstance(parent, blocks):
            continue
        block = parent if parent is not outer else None
        for field in ("body", "orelse"):
            for statement in getattr(parent, field, ()):
                if isinstance(statement, ast.Assign):
                    for target in ast.walk(statement.targets[0]):
                        if isinstance(target, ast.Name):
                            places.setdefault(target.id, set()).add(block)
    shared = {name for name, blocks in places.items() if None not in blocks and len(blocks) > 1}
    assert not shared, f"names assigned in two blocks: {sorted(shared)}"


@pytest.mark.parametrize("steps, size", [(3, 2), (5, 4)])
def test_a_scan_body_names_its_values_as_the_step_function_does(steps, size):
    source = _generated(naming_models.record_scan_body, steps, size)
    (forward, _), _ = _blocks(source, ast.For)
    assert forward["z"] == "carry @ W + x"
    assert forward["h"] == "np.tanh(z)"
    assert not {"add", "tanh", "step"} & set(forward)  # nor after the step function
    _assert_body_names_are_their_own(source)


def test_a_scan_bodys_names_hold_at_second_order():
    tape, target, (W, h0, xs), values = naming_models.record_scan_body()
    source = codegen.hvp_source(tape, target, W)
    assert any("h" in body for body, _ in _blocks(source, ast.For, "hvp"))
    _assert_body_names_are_their_own(source, "hvp")
    gradient = codegen.load(codegen.gradient_source(tape, target, W)).gradient
    hvp = codegen.load(source).hvp
    v = np.random.default_rng(2).standard_normal(W.shape)
    eps = 1e-6
    others = values["h0"], values["xs"]
    difference = (gradient(values["W"] + eps * v, *others)
                  - gradient(values["W"] - eps * v, *others)) / (2 * eps)
    np.testing.assert_allclose(hvp(values["W"], *others, v), difference, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("size", [2, 5])
def test_each_branch_of_a_cond_names_its_values_apart(size):
    source = _generated(naming_models.record_cond_branches, size)
    (true, false), (true_adjoint, _) = _blocks(source, ast.If)
    assert true["y"] == "np.sin(x) * w"
    assert false["y_1"] == "np.cos(x) - w"
    assert true_adjoint["y_2"] == "sin * w"  # computed again for its gradient
    assert true_adjoint["d_y_2"].endswith("y_2 * 2")
    _assert_body_names_are_their_own(source)


@pytest.mark.parametrize("size", [1, 3])
def test_a_while_loops_test_and_body_name_their_values(size):
    source = _generated(naming_models.record_while_body, size)
    ((body, _),) = _blocks(source, ast.While)
    assert body["energy"] == "(carry_1 * carry_1).sum()"
    assert body["damped"] == "sin * w + carry_1"
    _assert_body_names_are_their_own(source)


@pytest.mark.parametrize("steps", [2, 4])
def test_a_bodys_names_stay_clear_of_the_functions(steps):
    source = _generated(naming_models.record_body_collisions, steps)
    assert _assigned(source)["h"] == "np.cos(x)"
    (forward, _), _ = _blocks(source, ast.For)
    assert forward["x_1"] == "stack[step]"  # the step's row: x is the parameter
    assert forward["h_1"] == "np.tanh(carry @ W + x_1)"
    assert forward["x_2"] == "h_1 * 2.0"
    _assert_body_names_are_their_own(source)
