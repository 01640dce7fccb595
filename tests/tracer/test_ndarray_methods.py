"""Every name of ``dir(np.ndarray)`` on tensors, sorted into one group each.

``ROUTED``: the method is numpy's function on the tensor, so it gives numpy's
value and is recorded, with a gradient (checked against finite differences)
where numpy's function has one.  ``ANSWERED``: plain values describing the
shape and type, and the conversions, which a tape notes.  ``REFUSED``: an
error that names the method and what to write instead.  Dunder names are
Python's operators (``OPERATORS``), object machinery every class has
(``PYTHON``), or numpy protocols a tensor deliberately lacks (``ABSENT``), so
that conversions go through ``__array__``, which warns inside a tape.
"""

import copy
import pickle

import numpy as np
import pytest

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match
from tracer.numpy import methods

RNG = np.random.default_rng(5)
A = RNG.standard_normal((3, 4))
CHOICE = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 1, 1]])

# name: (call, differentiable); each call works on an ndarray and on a tensor alike.
ROUTED = {
    "T": (lambda a: a.T, True),
    "all": (lambda a: (a > -1).all(axis=0), False),
    "any": (lambda a: (a > 1).any(axis=1, keepdims=True), False),
    "argmax": (lambda a: a.argmax(axis=1), False),
    "argmin": (lambda a: a.argmin(), False),
    "argpartition": (lambda a: a.argpartition(1, axis=1), False),
    "argsort": (lambda a: a.argsort(axis=0), False),
    "astype": (lambda a: a.astype(np.complex128) * (1 + 1j), True),
    "choose": (lambda a: (a > 0).astype(int).choose([a, -2.0 * a]), True),
    "clip": (lambda a: a.clip(-0.5, 0.5), True),
    "compress": (lambda a: a.compress([True, False, True], axis=0), True),
    "conj": (lambda a: (a * 1j).conj(), True),
    "conjugate": (lambda a: (a * (1 + 2j)).conjugate(), True),
    "copy": (lambda a: a.copy(), True),
    "cumprod": (lambda a: a.cumprod(axis=1), True),
    "cumsum": (lambda a: a.cumsum(), True),
    "diagonal": (lambda a: a.diagonal(1), True),
    "dot": (lambda a: a.dot(a.T), True),
    "flat": (lambda a: a.flat[2:7], True),
    "flatten": (lambda a: a.flatten(), True),
    "imag": (lambda a: (a * (1 + 2j)).imag, True),
    "max": (lambda a: a.max(axis=0), True),
    "mean": (lambda a: a.mean(axis=1, keepdims=True), True),
    "min": (lambda a: a.min(), True),
    "mT": (lambda a: a.reshape(2, 3, 2).mT, True),
    "nonzero": (lambda a: (a > 0).nonzero(), False),
    "prod": (lambda a: a.prod(axis=0), True),
    "ravel": (lambda a: a.ravel(), True),
    "real": (lambda a: (a * (1 + 2j)).real, True),
    "repeat": (lambda a: a.repeat(2, axis=0), True),
    "reshape": (lambda a: a.reshape(4, 3), True),
    "round": (lambda a: a.round(1), False),
    "searchsorted": (lambda a: a[0].cumsum().searchsorted([0.0, 0.5], side="right"), False),
    "squeeze": (lambda a: a[:1].squeeze(), True),
    "std": (lambda a: a.std(axis=0, ddof=1), True),
    "sum": (lambda a: a.sum(axis=(0, 1)), True),
    "swapaxes": (lambda a: a.swapaxes(0, 1), True),
    "take": (lambda a: a.take([0, 2, 2], axis=1), True),
    "to_device": (lambda a: a.to_device("cpu"), True),
    "trace": (lambda a: a.trace(), True),
    "transpose": (lambda a: a.transpose(1, 0), True),
    "var": (lambda a: a.var(), True),
}

ANSWERED = {"dtype", "shape", "ndim", "size", "nbytes", "itemsize", "device"}
# name: (conversion, what rebuilds an array from its value)
CONVERSIONS = {"item": (lambda a: a.item(5), np.asarray),
               "tolist": (lambda a: a.tolist(), np.asarray),
               "tobytes": (lambda a: a.tobytes(), lambda b: np.frombuffer(b).reshape(A.shape))}

# name: (call, error, words the message names besides the method)
REFUSED = {
    "sort": (lambda t: t.sort(), TypeError, "np.sort(t"),
    "partition": (lambda t: t.partition(1), TypeError, "np.partition(t"),
    "fill": (lambda t: t.fill(0.0), TypeError, "np.full_like"),
    "put": (lambda t: t.put([0], [1.0]), TypeError, "np.where"),
    "resize": (lambda t: t.resize((2, 6)), TypeError, "np.reshape"),
    "setfield": (lambda t: t.setfield(1.0, np.float64), TypeError, "np.where"),
    "setflags": (lambda t: t.setflags(write=True), TypeError, "np.array(t)"),
    "getfield": (lambda t: t.getfield(np.float64), TypeError, "astype"),
    "byteswap": (lambda t: t.byteswap(), TypeError, "t.numpy()"),
    "view": (lambda t: t.view(np.int64), TypeError, "astype"),
    "dump": (lambda t: t.dump("file"), TypeError, "np.save"),
    "dumps": (lambda t: t.dumps(), TypeError, "pickle.dumps(t)"),
    "tofile": (lambda t: t.tofile("file"), TypeError, "t.numpy().tofile"),
    "base": (lambda t: t.base, AttributeError, "t.numpy().base"),
    "ctypes": (lambda t: t.ctypes, AttributeError, "t.numpy().ctypes"),
    "data": (lambda t: t.data, AttributeError, "t.numpy().data"),
    "flags": (lambda t: t.flags, AttributeError, "t.numpy().flags"),
    "strides": (lambda t: t.strides, AttributeError, "t.numpy().strides"),
}

# name: (call, numpy's call on arrays) for Python's operators and protocols.
OPERATORS = {
    **{name: None for name in (
        "__abs__", "__add__", "__and__", "__eq__", "__floordiv__", "__ge__", "__gt__",
        "__invert__", "__le__", "__lt__", "__matmul__", "__mod__", "__mul__", "__ne__",
        "__neg__", "__or__", "__pos__", "__pow__", "__radd__", "__rand__", "__rfloordiv__",
        "__rmatmul__", "__rmod__", "__rmul__", "__ror__", "__rpow__", "__rsub__",
        "__rtruediv__", "__rxor__", "__sub__", "__truediv__", "__xor__", "__getitem__",
        "__len__", "__iter__", "__bool__", "__float__", "__int__", "__complex__", "__index__",
        "__array__", "__array_ufunc__", "__array_function__", "__array_priority__",
        "__repr__", "__str__")},
    "__divmod__": lambda a: divmod(a, 0.7)[1] + divmod(a, 0.7)[0],
    "__rdivmod__": lambda a: divmod(2.5, a + 3.0)[1],
    "__lshift__": lambda a: (a > 0).astype(int) << 2,
    "__rlshift__": lambda a: 3 << (a > 0).astype(int),
    "__rshift__": lambda a: ((a > 0).astype(int) + 6) >> 1,
    "__rrshift__": lambda a: 12 >> (a > 0).astype(int),
    "__contains__": lambda a: (A[1, 2] in a, 0.5 in a, A[0] in a),
    "__format__": lambda a: f"{a[0, 0]:.3f} {a.sum():+.1e} {a}",
}
IN_PLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
            "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__",
            "__irshift__"]
REFUSED_PROTOCOLS = {"__setitem__": "np.where", "__delitem__": "np.where"}
COPIES = {"__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__",
          "__setstate__"}
PYTHON = {"__class__", "__delattr__", "__dir__", "__doc__", "__getattribute__", "__hash__",
          "__init__", "__init_subclass__", "__new__", "__setattr__", "__sizeof__",
          "__subclasshook__"}
ABSENT = {"__array_interface__", "__array_struct__", "__dlpack__", "__dlpack_device__",
          "__array_namespace__", "__array_wrap__", "__array_finalize__", "__class_getitem__",
          "__buffer__"}


def groups():
    return [set(ROUTED), ANSWERED, set(CONVERSIONS), set(REFUSED), set(OPERATORS),
            set(IN_PLACE), set(REFUSED_PROTOCOLS), COPIES, PYTHON, ABSENT]


def test_every_ndarray_name_is_in_exactly_one_group():
    for name in dir(np.ndarray):
        holding = [g for g in groups() if name in g]
        assert len(holding) == 1, f"ndarray.{name} is in {len(holding)} groups"
    listed = set().union(*groups()) - ABSENT
    assert listed <= set(dir(np.ndarray))


def test_the_refused_names_are_the_ones_tracer_refuses():
    assert set(REFUSED) == methods.REFUSED


def _values(result):
    parts = result if isinstance(result, tuple) else (result,)
    return [p.numpy() if isinstance(p, tracer.Tensor) else p for p in parts]


@pytest.mark.parametrize("name", sorted(ROUTED))
def test_routed_methods_give_numpy_values_and_are_recorded(name):
    call, differentiable = ROUTED[name]
    x = tracer.constant(A)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        result = call(x)
    expected = call(A)
    parts = result if isinstance(result, tuple) else (result,)
    for part, value in zip(parts, expected if isinstance(expected, tuple) else (expected,)):
        assert isinstance(part, tracer.Tensor)
        assert part.dtype == value.dtype
        np.testing.assert_array_equal(part.numpy(), value)
        tape.graph_of(part, [])  # raises unless recorded
    gradient = tape.gradient(list(parts), x)
    assert (gradient is not None) == differentiable
    if differentiable:
        tracer.check_gradients(lambda t: np.sum(np.abs(call(t)) ** 2), A, order=2)


@pytest.mark.parametrize("name", sorted(ANSWERED))
def test_answers_are_numpy_values(name):
    assert getattr(tracer.constant(A), name) == getattr(A, name)
    assert getattr(tracer.Variable(A), name) == getattr(A, name)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_conversions_give_numpy_values_and_are_noted(name):
    convert, rebuild = CONVERSIONS[name]
    x, w = tracer.constant(A), tracer.constant(np.ones(A.shape))
    with tracer.GradientTape() as tape:
        tape.watch([x, w])
        value = convert(np.sin(x))
        y = np.sum(w * rebuild(value))
    assert value == convert(np.sin(A))
    explanation = str(tape.explain(y, x))
    assert f"t.{name}()" in explanation


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_names_raise_naming_the_method_and_what_to_write(name):
    call, error, words = REFUSED[name]
    for value in (tracer.constant(A), tracer.Variable(A)):
        with pytest.raises(error) as info:
            call(value)
        assert name in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("name", sorted(n for n, call in OPERATORS.items() if call))
def test_operators_give_numpy_values(name):
    call = OPERATORS[name]
    for value in (tracer.constant(A), tracer.Variable(A)):
        traced, expected = call(value), call(A)
        if isinstance(expected, (str, tuple)):
            assert traced == expected
        else:
            assert traced.dtype == expected.dtype
            np.testing.assert_array_equal(_values(traced)[0], expected)


def test_every_operator_is_defined():
    for name in OPERATORS:
        assert hasattr(tracer.Tensor, name) and hasattr(tracer.Variable, name)


def test_divmod_differentiates_through_its_remainder():
    tracer.check_gradients(lambda t: np.sum(np.sin(divmod(t, 0.7)[1]) + divmod(3.0, t + 4.0)[1]),
                           A, order=2)


def _integers(a):
    return (a > 0).astype(int)


# operator, operand, what it applies to
IN_PLACE_USES = [("+", 1.0, None), ("-", 1.0, None), ("*", 2.0, None), ("/", 2.0, None),
                 ("//", 2.0, None), ("%", 2.0, None), ("**", 2.0, None), ("@", np.eye(4), None),
                 ("&", True, _integers), ("|", 2, _integers), ("^", 3, _integers),
                 ("<<", 1, _integers), (">>", 1, _integers)]


@pytest.mark.parametrize("name, use", list(zip(IN_PLACE, IN_PLACE_USES)), ids=IN_PLACE)
def test_in_place_operators_rebind_a_tensor_and_refuse_a_variable(name, use):
    operator, operand, prepare = use
    prepare = prepare or (lambda a: a)
    x = tracer.constant(A)
    namespace = {"t": prepare(x), "d": operand}
    exec(f"t {operator}= d", namespace)
    expected = eval(f"a {operator} d", {"a": prepare(A), "d": operand})
    np.testing.assert_array_equal(_values(namespace["t"])[0], expected)
    np.testing.assert_array_equal(x.numpy(), A)
    v = tracer.Variable(A)
    with pytest.raises(TypeError, match="rebind v to a tensor") as info:
        exec(f"v {operator}= d", {"v": v, "d": operand})
    instead = {"+": "v.assign_add(d)", "-": "v.assign_sub(d)"}.get(operator, "v.assign(v")
    assert name in dir(tracer.Tensor) and instead in str(info.value)
    np.testing.assert_array_equal(v.numpy(), A)


@pytest.mark.parametrize("name", sorted(REFUSED_PROTOCOLS))
def test_item_assignment_and_deletion_are_refused(name):
    t = tracer.constant(A)
    with pytest.raises(TypeError, match=REFUSED_PROTOCOLS[name]):
        if name == "__setitem__":
            t[0] = 1.0
        else:
            del t[0]


def test_round_of_a_tensor_says_what_to_write():
    with pytest.raises(TypeError, match=r"np\.round\(t, decimals\)"):
        round(tracer.constant(1.25), 1)


def test_copies_of_a_tensor_are_itself_so_gradients_flow():
    x = tracer.constant(A)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(copy.copy(x) * copy.deepcopy(x))
    assert copy.copy(x) is x and copy.deepcopy([x])[0] is x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * A)


def test_deep_copies_of_a_variable_are_new_variables_with_its_value():
    """As in TensorFlow: copy.copy(v) is v itself; deepcopy and pickling make new state."""
    v = tracer.Variable(A, name="v", trainable=False)
    assert copy.copy(v) is v
    for twin in (copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert isinstance(twin, tracer.Variable) and twin is not v
        assert twin.name == "v" and not twin.trainable
        twin.assign(np.zeros(A.shape))
        np.testing.assert_array_equal(v.numpy(), A)


def test_an_unpickled_tensor_is_a_new_tensor_no_tape_tracks():
    x = tracer.constant(A, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        loaded = pickle.loads(pickle.dumps(x))
        y = np.sum(x * loaded)
    assert loaded.name == "x" and np.array_equal(loaded.numpy(), A)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), A)


@pytest.mark.parametrize("name", sorted(ABSENT))
def test_numpy_protocols_that_would_convert_silently_are_absent(name):
    assert not hasattr(tracer.constant(A), name)
    assert not hasattr(tracer.Variable(A), name)


def test_flat_and_mT_check_like_numpy():
    x = tracer.constant(A)
    assert [e.numpy() for e in x.flat] == list(A.flat)
    with pytest.raises(ValueError, match="ndim < 2"):
        x[0].mT
    with pytest.raises(ValueError, match="'cpu'"):
        x.to_device("gpu")


# --- on variables, and through generated code -------------------------------------------

@pytest.mark.parametrize("name", ["all", "argsort", "choose", "compress", "cumsum", "flat",
                                  "mT", "round", "std"])
def test_variables_share_the_methods(name):
    call, differentiable = ROUTED[name]
    v = tracer.Variable(A)
    with tracer.GradientTape() as tape:
        result = call(v)
    np.testing.assert_array_equal(result.numpy(), call(A))
    assert (tape.gradient(result, v) is not None) == differentiable


NEW = {
    "choose": lambda a: (a > 0).astype(int).choose([np.sin(a), a * a, 2.0], mode="wrap"),
    "compress": lambda a: (a * a).compress(a[:, 0] > -10.0, axis=0),
    "flat": lambda a: np.sin(a).flat[1:9:2],
    "mT": lambda a: (a * a).reshape(2, 2, 3).mT,
    "divmod": lambda a: divmod(a * a, 0.6)[1],
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_new_differentiable_methods_eager_and_generated(name, monkeypatch):
    def fn(t):
        return np.sum(np.cos(NEW[name](t)))
    tracer.check_gradients(fn, A, order=2)
    assert_generated_gradients_match(fn, A, monkeypatch=monkeypatch)


def test_a_mask_from_any_is_computed_again_by_generated_code():
    x = tracer.constant(A, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.where((x > 1.0).any(axis=0), x * x, x))
    module = codegen.load(codegen.gradient_source(tape, y, [x]))
    other = -A
    (gradient,) = module.gradient(x=other)
    np.testing.assert_array_equal(gradient,
                                  np.where((other > 1.0).any(axis=0), 2 * other, 1.0))
