"""Array-API modules given numpy arrays beside another library's: the numpy ones are
converted into that library, on its arrays' device, and the results equal the numpy
target's, for parameters as numpy arrays beside JAX, Dask or ``array_api_strict`` data
and for numpy data beside JAX parameters, in gradients, Hessian-vector products and loop
modules.  Arrays of two other libraries are refused, naming them."""

import functools
import re

import numpy as np
import pytest

import codegen
import tracer
from test_array_api_loops import _function, _modules
from test_loop_modules import PROGRAMS

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
da = pytest.importorskip("dask.array")
xps = pytest.importorskip("array_api_strict")
FEATURES = 4


def _loss(w, x, y):
    return np.mean(np.logaddexp(0.0, x @ w) - y * (x @ w)) + 0.1 * np.sum(np.sin(w) ** 2)


@pytest.fixture(scope="module")
def modules():
    """The logistic loss's gradient and Hessian-vector product, for any number of rows,
    as ``{kind: (numpy module, array-API module, array-API source)}``."""
    rng = np.random.default_rng(0)
    w = tracer.Variable(rng.standard_normal(FEATURES), name="w")
    x = tracer.constant(rng.standard_normal((6, FEATURES)), name="x", dims=("rows", None))
    y = tracer.constant(rng.integers(0, 2, 6).astype(float), name="y", dims=("rows",))
    with tracer.GradientTape(persistent=True) as tape:
        loss = _loss(w, x, y)
    made = {"gradient": lambda target: codegen.gradient_source(tape, loss, [w], target=target),
            "hvp": lambda target: codegen.hvp_source(tape, loss, w, target=target)}
    return {kind: (codegen.load(make("numpy")), codegen.load(make("array_api")),
                   make("array_api")) for kind, make in made.items()}


def _arguments(kind, rows):
    rng = np.random.default_rng(rows)
    arguments = {"w": rng.standard_normal(FEATURES) * 0.3,
                 "x": rng.standard_normal((rows, FEATURES)),
                 "y": rng.integers(0, 2, rows).astype(float)}
    if kind == "hvp":
        arguments["v"] = rng.standard_normal(FEATURES)
    return arguments


def _results(got):
    return got if isinstance(got, list) else [got]


def _check(modules, kind, convert, back, library):
    """``convert`` turns the arguments as a caller passes them (some stay numpy arrays);
    the results are ``library``'s arrays and, through ``back``, numpy's."""
    numpy_module, module, _ = modules[kind]
    for rows in (1, 7):
        arguments = _arguments(kind, rows)
        want = _results(getattr(numpy_module, kind)(**arguments))
        got = _results(getattr(module, kind)(**convert(arguments)))
        assert all(isinstance(g, library) for g in got), [type(g) for g in got]
        for g, w in zip(got, want):
            np.testing.assert_allclose(back(g), w, rtol=1e-12, atol=1e-14)


def _data_in(convert):
    """The data ``x`` and ``y`` converted; the parameter ``w`` (and ``v``) stay numpy."""
    return lambda arguments: {n: convert(a) if n in ("x", "y") else a
                              for n, a in arguments.items()}


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
def test_numpy_parameters_beside_jax_data(modules, kind):
    _check(modules, kind, _data_in(jnp.asarray), np.asarray, jax.Array)


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
def test_numpy_parameters_beside_dask_data_stay_lazy(modules, kind):
    chunked = lambda a: da.from_array(a, chunks=(max(1, a.shape[0] // 2),) + a.shape[1:])
    _check(modules, kind, _data_in(chunked), lambda r: np.asarray(r.compute()), da.Array)


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
def test_numpy_data_beside_jax_parameters(modules, kind):
    convert = lambda arguments: {n: a if n in ("x", "y") else jnp.asarray(a)
                                 for n, a in arguments.items()}
    _check(modules, kind, convert, np.asarray, jax.Array)


def test_numpy_parameters_go_on_the_device_of_the_data(modules):
    """``array_api_strict`` has devices that refuse each other's arrays: the numpy
    parameter must be made on the data's device, not the default one."""
    device = xps.Device("device1")
    convert = _data_in(lambda a: xps.asarray(a, device=device))
    on_the_cpu = lambda r: np.asarray(r.to_device(xps.Device("CPU_DEVICE")))
    _check(modules, "gradient", convert, on_the_cpu, type(xps.asarray(0.0)))
    got = modules["gradient"][1].gradient(**convert(_arguments("gradient", 3)))[0]
    assert got.device == device


def test_numpy_parameters_beside_data_jax_jit_traces(modules):
    """A parameter closed over as a numpy array, the data traced by ``jax.jit``."""
    numpy_module, module, _ = modules["gradient"]
    arguments = _arguments("gradient", 5)
    jitted = jax.jit(functools.partial(module.gradient, arguments["w"]))
    got = jitted(jnp.asarray(arguments["x"]), jnp.asarray(arguments["y"]))[0]
    np.testing.assert_allclose(np.asarray(got), numpy_module.gradient(**arguments)[0],
                               rtol=1e-12)


def test_the_namespace_and_the_arguments_come_from_one_call(modules):
    source = modules["gradient"][2]
    body = source[source.index("def gradient"):source.index("def _check_inputs")]
    assert re.search(r"\n    xp, w, x, y = _check_inputs\(w, x, y\)\n", body), body
    assert not re.search(r"\n    [wxy] = ", body) and "_one_namespace(args)" in source
    all_numpy = modules["gradient"][1].gradient(**_arguments("gradient", 4))[0]
    assert type(all_numpy) is np.ndarray


def test_arrays_of_two_other_libraries_are_refused_naming_them(modules):
    module = modules["gradient"][1]
    arguments = _arguments("gradient", 3)
    with pytest.raises(TypeError, match=r"^w from jax\.numpy; x, y from dask\.array: "
                                        r"arguments of several array libraries, but the "
                                        r"module computes in one\. Pass arrays of one "
                                        r"library \(numpy arrays may go beside it"):
        module.gradient(jnp.asarray(arguments["w"]), da.from_array(arguments["x"]),
                        da.from_array(arguments["y"]))
    with pytest.raises(TypeError, match=r"^w from jax\.numpy; y from array_api_strict: "):
        module.gradient(jnp.asarray(arguments["w"]), arguments["x"],
                        xps.asarray(arguments["y"]))


@pytest.mark.parametrize("value, kind", [([0.5] * FEATURES, "list"), (0.5, "float")])
def test_an_argument_that_is_no_array_is_named(modules, value, kind):
    arguments = _arguments("gradient", 3)
    with pytest.raises(TypeError, match=rf"^w: expected an array, got {kind}$"):
        modules["gradient"][1].gradient(value, jnp.asarray(arguments["x"]),
                                        jnp.asarray(arguments["y"]))


def test_python_numbers_alone_are_refused(modules):
    with pytest.raises(TypeError, match=r"^w, x, y: expected arrays, got Python numbers alone$"):
        modules["gradient"][1].gradient(0.5, 1.0, 2)


def test_seeds_as_numpy_arrays_beside_jax_parameters():
    """A list parameter (one seed per target) is converted array by array."""
    x = tracer.constant(np.array([0.3, -1.2, 2.0]), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        targets = [np.sin(x) * x, np.sum(x ** 2)]
    make = lambda target: codegen.gradient_source(tape, targets, [x], seed_argument=True,
                                                  target=target)
    source = make("array_api")
    assert "xp, x, *seed = _check_inputs(x, *seed)" in source
    seed = [np.array([1.0, 0.5, -2.0]), np.float64(3.0)]
    for value in (np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.1, -0.7])):
        got = codegen.load(source).gradient(jnp.asarray(value), seed)[0]
        assert isinstance(got, jax.Array)
        closed_form = seed[0] * (np.cos(value) * value + np.sin(value)) + seed[1] * 2 * value
        np.testing.assert_allclose(np.asarray(got), closed_form, rtol=1e-12)
        np.testing.assert_allclose(codegen.load(make("numpy")).gradient(value, seed)[0],
                                   closed_form, rtol=1e-12)


LOOP_PROGRAMS = [PROGRAMS[0], PROGRAMS[5], PROGRAMS[6]]
"""A scan, a while loop and a branch in a loop: a sample of the loop table."""


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
@pytest.mark.parametrize("program", LOOP_PROGRAMS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("library", ["jax", "dask"])
def test_loop_modules_with_the_first_argument_numpy(program, kind, library):
    numpy_module, module, _, args = _modules(program, kind)
    want = _results(_function(numpy_module)(*args))
    convert, back = ((jnp.asarray, np.asarray) if library == "jax" else
                     (da.from_array, lambda r: np.asarray(r.compute())))
    got = _results(_function(module)(args[0], *[convert(a) for a in args[1:]]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(back(g), w, rtol=1e-10, atol=1e-12)


def test_long_parameter_names_are_written_one_a_line():
    """A signature too long for one line (the numpy target writes it one parameter a
    line) and the check that rebinds its parameters."""
    names = [f"a_rather_long_parameter_name_{k}" for k in range(3)]
    tensors = [tracer.constant(np.linspace(0.1, 1.0, 3) * (k + 1), name=n)
               for k, n in enumerate(names)]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        loss = np.sum(tensors[0] * tensors[1] * np.sin(tensors[2]))
    source = codegen.gradient_source(tape, loss, tensors, target="array_api")
    assert "    (\n        xp,\n        a_rather_long_parameter_name_0,\n" in source
    values = [t.numpy() for t in tensors]
    got = codegen.load(source).gradient(values[0], jnp.asarray(values[1]), values[2])
    a, b, c = values
    for g, w in zip(got, [b * np.sin(c), a * np.sin(c), a * b * np.cos(c)]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12)


def test_the_device_is_read_off_an_array_not_a_list():
    from codegen.targets.array_api.inputs import namespace_statements
    assert namespace_statements(["*seed"], "    ") == [
        "    xp, *seed = _check_inputs(*seed)", "    on = _device_of(seed[0])"]
    assert namespace_statements(["*seed", "x"], "")[1] == "on = _device_of(x)"
