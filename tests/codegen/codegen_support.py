"""What the code generation tests share: recording cases, calling generated
functions, comparing gradients, and reading generated source as a syntax tree.

Generated functions are called by keyword: a test names its tensors, so it
can pass each parameter without knowing the order ``INPUTS`` chose.
"""

import ast
import inspect
import subprocess
import sys
import warnings

import numpy as np

import codegen
import tracer

TOLERANCES = {np.dtype(np.float64): dict(rtol=1e-10, atol=1e-12),
              np.dtype(np.float32): dict(rtol=1e-5, atol=1e-6),
              np.dtype(np.complex128): dict(rtol=1e-10, atol=1e-12),
              np.dtype(np.complex64): dict(rtol=1e-5, atol=1e-6)}
"""Generated and eager gradients run the same operations, up to the passes'
refactoring of constant factors: they agree to rounding."""


def named_tensors(arrays, prefix="x"):
    """Tensors named ``x0, x1, ...``: the names the generated parameters take."""
    return [tracer.constant(a, name=f"{prefix}{k}") for k, a in enumerate(arrays)]


def generate(tape, target, sources, **options):
    """The module generated for ``target`` and ``sources``, loaded."""
    return codegen.load(codegen.gradient_source(tape, target, sources, **options))


def call(module, values, seed=None, name="gradient"):
    """Call the generated function with ``values`` (a dict by tensor name) for its
    parameters and ``seed``, if it takes one."""
    function = getattr(module, name)
    arguments = {p: (seed if p == "seed" else values[p])
                 for p in inspect.signature(function).parameters}
    return function(**arguments)


def assert_gradients_equal(generated, eager, rtol=None):
    """Same structure, ``None`` in the same places, same dtypes, equal to rounding (or to
    ``rtol``)."""
    generated_leaves = _leaves(generated)
    eager_leaves = _leaves(eager)
    assert len(generated_leaves) == len(eager_leaves)
    for g, e in zip(generated_leaves, eager_leaves):
        assert (g is None) == (e is None), f"generated {g!r}, eager {e!r}"
        if e is None:
            continue
        e = e.numpy() if hasattr(e, "numpy") else np.asarray(e)
        g = np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape
        tolerance = dict(TOLERANCES[e.dtype], **({} if rtol is None else {"rtol": rtol}))
        np.testing.assert_allclose(g, e, **tolerance)


def _leaves(structure):
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _leaves(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _leaves(item)]
    return [structure]


def recorded(tape, tensor):
    """Whether ``tape`` recorded the op that made ``tensor`` (a nested tape's gradient
    that does not depend on the inputs, such as that of ``x + y``, is a constant)."""
    try:
        tape.graph_of(tensor, [])
    except ValueError:
        return False
    return True


def case_derivative(case, second):
    """``(tape, targets, tensors)`` for generating ``case``'s first derivative (its output
    on the tape that recorded it) or its second (the first derivatives the outer tape
    recorded, which may be none); the tensors are named ``x0, x1, ...``."""
    tensors = named_tensors(case.arrays())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tracer.GradientTapeWarning)
        with tracer.GradientTape(persistent=True) as outer:
            outer.watch(tensors)
            with tracer.GradientTape(persistent=True) as inner:
                inner.watch(tensors)
                out = case.fn(*tensors)
            if not second:
                return inner, [out], tensors
            first = inner.gradient(out, tensors)
    return outer, [g for g in first if g is not None and recorded(outer, g)], tensors


# --- reading generated source ---------------------------------------------------

def function_def(source, name="gradient"):
    """The ``def`` of the generated function."""
    tree = ast.parse(source)
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def assert_released_after_last_use(source, name="gradient"):
    """Every value the body computes and does not return is deleted by a ``del`` right
    after the statement that reads it last, and by no other."""
    function = function_def(source, name)
    parameters = {a.arg for a in function.args.args}
    body = function.body
    returned = {n.id for n in ast.walk(body[-1]) if isinstance(n, ast.Name)}
    last_read = {}
    deleted_after = {}
    for index, statement in enumerate(body):
        if isinstance(statement, ast.Delete):
            for target in statement.targets:
                deleted_after[target.id] = index - 1
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                last_read[node.id] = index
    assigned = {t.id for s in body if isinstance(s, ast.Assign) and not _unpacks(s, parameters)
                for t in s.targets if isinstance(t, ast.Name)}
    for value in sorted(assigned - parameters - returned):
        assert value in deleted_after, f"{value} is never deleted"
        assert deleted_after[value] == last_read[value], (
            f"{value} is deleted after statement {deleted_after[value]}, last read in "
            f"statement {last_read[value]}")


def _unpacks(statement, parameters):
    """``seed_0 = seed[0]``: a name for a caller's array, which is not the function's to free."""
    value = statement.value
    if isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Name) and value.id in parameters


def calls_to(source, function, within=None):
    """The calls to ``function`` (``"np.broadcast_to"``) in the source, with their parents;
    only those inside the function named ``within`` when one is given."""
    tree = ast.parse(source)
    if within is not None:
        (tree,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == within]
    found = []
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.Call) and ast.unparse(child.func) == function:
                found.append((child, parent))
    return found


ELEMENTWISE_NODES = (ast.BinOp, ast.UnaryOp, ast.Compare)
"""Operators apply elementwise and broadcast their operands themselves."""


def assert_no_broadcast_into_elementwise(source):
    """No ``np.broadcast_to`` result is an operand of an operator or a numpy ufunc: the
    optimiser leaves broadcasting to the operation itself, so no array of repeated
    values is built only to be read once."""
    for call, parent in calls_to(source, "np.broadcast_to"):
        function = ast.unparse(parent.func) if isinstance(parent, ast.Call) else ""
        is_ufunc = isinstance(getattr(np, function[3:], None), np.ufunc)
        assert not (isinstance(parent, ELEMENTWISE_NODES) or is_ufunc), (
            f"broadcast fed into an elementwise operation: {ast.unparse(parent)}")


def cli_runner(directory, capsys, monkeypatch):
    """``tapegen ARGS`` run by calling ``main`` in this process, in ``directory``: the code
    path the console script takes, without a process per run."""
    from tracer.cli.main import main

    monkeypatch.chdir(directory)
    monkeypatch.setattr(sys, "path", list(sys.path))

    def run(args):
        try:
            status = main(args)
        except SystemExit as exit:
            status = exit.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)
    return run


def succeeded(result):
    """The output of a run that must have worked: exit status 0 and nothing on stderr."""
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr
    return result.stdout
