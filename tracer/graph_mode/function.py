"""``tracer.function``: TensorFlow's ``tf.function`` over tapegen.

The first call with a new signature (``tracer.graph_mode.signature``) traces
the Python function into one graph and one generated module; later calls with
that signature run the module.  Inside a tape or another function being
traced, the Python function runs as it is, so whatever records around it sees
every operation and gradients flow through.
"""

import functools
import inspect
import os
import threading
import weakref

import numpy as np

from codegen.function_module import PythonValue
from ir.structure import flatten
from tracer.graph_mode.concrete import ConcreteFunction
from tracer.graph_mode.signature import (TensorSpec, is_array, leaf_paths, parameter_name,
                                         signature_key)
from tracer.graph_mode.trace import trace
from tracer.sites import described_site, user_site, warn_at_user_line
from tracer.state import thread_state

RETRACING_WARNING_COUNT = 5
"""More traces than this of one function warn, as TensorFlow's do."""


def function(func=None, *, input_signature=None, reduce_retracing=False, jit_compile=None):
    """Compile ``func`` per signature into generated code: a ``tracer.Function``.

    Works as ``@tracer.function`` and ``@tracer.function(reduce_retracing=True)``,
    on functions and methods.  ``input_signature``: a ``TensorSpec`` per
    parameter; every call must fit it, and one trace serves them all (``None``
    sizes traced as symbolic).  ``reduce_retracing``: trace the leading axis of
    every array argument, and any axis that changes between calls, as a symbolic
    size, so a shorter last batch does not trace again.  ``jit_compile=True`` runs
    the module under ``jax.jit`` (the ``[jax]`` extra).
    """
    def decorate(python_function):
        return Function(python_function, input_signature=input_signature,
                        reduce_retracing=reduce_retracing, jit_compile=jit_compile)
    return decorate if func is None else decorate(func)


class Function:
    """A Python function traced once per signature and run as a generated module."""

    def __init__(self, python_function, input_signature=None, reduce_retracing=False,
                 jit_compile=None):
        if not callable(python_function):
            raise TypeError(f"tracer.function needs a function, got "
                            f"{type(python_function).__name__}")
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self.input_signature = _checked_signature(input_signature)
        self.reduce_retracing = bool(reduce_retracing)
        self.jit_compile = jit_compile
        self._signature = inspect.signature(python_function)
        self._concrete = {}
        self._traces = []  # (key, concrete function), in the order traced
        self._relaxed = {}  # leaf path -> the axes traced as symbolic sizes
        self._lock = threading.RLock()
        self._bound = weakref.WeakKeyDictionary()

    def __get__(self, instance, owner):
        """A method: one ``Function`` per instance, with ``self`` bound."""
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(functools.partial(self.python_function, instance),
                             self.input_signature, self.reduce_retracing, self.jit_compile)
            functools.update_wrapper(bound, self.python_function)
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    def __call__(self, *args, **kwargs):
        if thread_state.stack or thread_state.accumulators:
            return self.python_function(*args, **kwargs)  # traced into the caller
        arguments = self._bind(args, kwargs)
        key, leaves = signature_key(arguments, self._relaxed)
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._concrete_for(arguments, key, leaves)
        with self._lock:
            return concrete.run(leaves)

    def get_concrete_function(self, *args, **kwargs):
        """The ``ConcreteFunction`` for these arguments (arrays, or ``TensorSpec``s for any
        values of a shape), traced now if no trace serves them."""
        arguments = self._bind(args, kwargs)
        key, leaves = signature_key(arguments, self._relaxed)
        return self._concrete.get(key) or self._concrete_for(arguments, key, leaves)

    def experimental_get_tracing_count(self):
        """How many times the Python function has been traced."""
        return len(self._traces)

    def pretty_printed_concrete_signatures(self):
        """Each trace's signature: its arguments and what it returns."""
        return "\n\n".join(concrete.signature_text for _, concrete in self._traces)

    # --- tracing ------------------------------------------------------------------

    def _bind(self, args, kwargs):
        """The arguments by parameter name, defaults applied; with an input signature,
        checked against it."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self.__name__}: {error}") from None
        bound.apply_defaults()
        arguments = bound.arguments
        if self.input_signature is not None:
            _check_against(self.__name__, self._signature, arguments, self.input_signature)
        return arguments

    def _concrete_for(self, arguments, key, leaves):
        with self._lock:
            concrete = self._concrete.get(key)
            if concrete is None:
                concrete = self._trace(arguments, key, leaves)
        return concrete

    def _trace(self, arguments, key, leaves):
        paths = leaf_paths(arguments)
        dims = self._symbolic_axes(paths, leaves)
        name = getattr(self.python_function, "__name__", "function")
        result = trace(arguments, leaves, paths, self._caller(), dims, name,
                       _origin(self.python_function))
        if result.created and self._traces:
            raise ValueError(
                f"{name} created a variable on a trace after its first: tracer.function "
                "supports variables created on the first call only. Create the variable "
                "outside the function, or once (if self.v is None: ...)")
        concrete = ConcreteFunction(result, _signature_text(name, arguments, paths, dims,
                                                            result), self._call_concrete)
        self._concrete[key] = concrete
        self._traces.append((key, concrete))
        if len(self._traces) > RETRACING_WARNING_COUNT:
            self._warn_of_retracing()
        return concrete

    def _caller(self):
        def call(arguments):
            bound = inspect.BoundArguments(self._signature, arguments)
            return self.python_function(*bound.args, **bound.kwargs)
        return call

    def _symbolic_axes(self, paths, leaves):
        """Per array leaf, the name of each axis traced as a symbolic size (``None`` for a
        static one), or ``None`` for a leaf traced as it is."""
        if self.input_signature is not None:
            return [_free_axes(path, leaf.shape if isinstance(leaf, TensorSpec)
                               else self._spec_of(path).shape, np.shape(_value(leaf)))
                    for path, leaf in zip(paths, leaves)]
        if not self.reduce_retracing:
            return [None] * len(leaves)
        dims = []
        for path, leaf in zip(paths, leaves):
            shape = np.shape(_value(leaf))
            free = self._relaxed.setdefault(path, {0} if shape else set())
            dims.append(_named(path, shape, free))
        return dims

    def _spec_of(self, path):
        return self.input_signature[[p.name for p in self._signature.parameters.values()]
                                    .index(path.partition("[")[0])]

    def _call_concrete(self, concrete, args, kwargs):
        arguments = self._bind(args, kwargs)
        _, leaves = signature_key(arguments)
        with self._lock:
            return concrete.run(leaves)

    def _warn_of_retracing(self):
        (old, _), (new, _) = self._traces[-2:]
        changed = "; ".join(_differences(old, new)) or "nothing the signature shows changed"
        warn_at_user_line(
            f"{self.__name__} has been traced {len(self._traces)} times, the last"
            f"{described_site(user_site())}: every new signature traces it again. Between "
            f"the last two, {changed}. Pass reduce_retracing=True to trace axes that change "
            "as symbolic sizes, give an input_signature, or pass values that change as "
            "arrays rather than Python numbers.")


def _checked_signature(input_signature):
    if input_signature is None:
        return None
    specs = tuple(input_signature)
    for k, spec in enumerate(specs):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"input_signature[{k}] is a {type(spec).__name__}: give one "
                            "tracer.TensorSpec(shape, dtype) per parameter")
    return specs


def _check_against(name, signature, arguments, specs):
    """Refuse arguments that do not fit ``specs``, naming the parameter."""
    names = list(arguments)
    if len(names) != len(specs):
        extra = names[len(specs):] or [p for p in signature.parameters][len(names):]
        raise TypeError(
            f"{name} takes {len(names)} arguments here but its input_signature has "
            f"{len(specs)} TensorSpecs: the parameter {extra[0]!r} has no spec or no value. "
            "Give one TensorSpec per parameter")
    for parameter, spec in zip(names, specs):
        value = arguments[parameter]
        if isinstance(value, TensorSpec):
            value_shape, fits = value.shape, value == spec
        else:
            value_shape = np.shape(_value(value)) if is_array(value) else None
            fits = is_array(value) and spec.is_compatible_with(value)
        if not fits:
            what = (f"{np.result_type(_value(value)).name}{list(value_shape)}"
                    if value_shape is not None else type(value).__name__)
            raise TypeError(f"{name}: the argument {parameter!r} is {what}, which does not "
                            f"fit its input_signature {spec}")


def _origin(python_function):
    """The traced function and where it is defined, for the module's docstring."""
    inner = python_function.func if isinstance(python_function, functools.partial) else \
        python_function
    code = getattr(inner, "__code__", None)
    name = getattr(inner, "__qualname__", getattr(inner, "__name__", "function"))
    if code is None:
        return name
    return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


def _signature_text(name, arguments, paths, dims, result):
    """TensorFlow's way of printing a concrete signature: the arguments, what it returns."""
    lines = [f"{name}({', '.join(arguments)})", "  Args:"]
    described = dict(zip(paths, dims))
    for parameter, value in arguments.items():
        lines.append(f"    {parameter}: {_described(parameter, value, described)}")
    lines.append("  Returns:")
    lines.append(f"    {_returned(result)}")
    return "\n".join(lines)


def _described(path, value, dims):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_described(f'{path}[{k!r}]', v, dims)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)) and not is_array(value):
        items = [_described(f"{path}[{k}]", v, dims) for k, v in enumerate(value)]
        return ("[{}]" if isinstance(value, list) else "({})").format(", ".join(items))
    if is_array(value):
        shape = value.shape if isinstance(value, TensorSpec) else np.shape(_value(value))
        axes = dims.get(path) or (None,) * len(shape)
        shape = tuple(None if a is not None else d for a, d in zip(axes, shape))
        dtype = value.dtype if isinstance(value, TensorSpec) else np.result_type(_value(value))
        return f"{np.dtype(dtype).name} Tensor, shape={shape}"
    if hasattr(value, "_read"):
        return f"tracer.Variable {value.name or ''}".rstrip()
    return f"{type(value).__name__} {value!r}"


def _returned(result):
    texts = []
    for leaf in flatten(result.structure):
        if isinstance(leaf, PythonValue):
            texts.append(repr(leaf.value))
        else:
            node = result.graph[leaf]
            texts.append(f"{np.dtype(node.dtype).name} Tensor, shape={tuple(node.shape)}")
    return ", ".join(texts) or "nothing"


def _differences(old, new):
    """What changed between two signature keys, parameter by parameter."""
    changes = []
    old, new = dict(old), dict(new)
    for name in new:
        if old.get(name) != new[name]:
            changes.append(f"{name} went from {_key_text(old.get(name))} to "
                           f"{_key_text(new[name])}")
    return changes


def _key_text(key):
    if isinstance(key, tuple) and key and key[0] == "array":
        return f"{np.dtype(key[2]).name}{list(key[1])}"
    if isinstance(key, tuple) and key and key[0] == "variable":
        return "a variable"
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str):
        return repr(key[1])
    return str(key)


def _value(leaf):
    return leaf._value if hasattr(leaf, "_value") else leaf


def _free_axes(path, spec_shape, shape):
    free = {axis for axis, d in enumerate(spec_shape) if d is None}
    return _named(path, shape, free)


def _named(path, shape, free):
    """Symbolic names for the ``free`` axes of a leaf at ``path`` (``None`` if none): the
    leading axis is the batch, shared by every argument; others are the leaf's own."""
    if not free:
        return None
    return tuple(("batch" if axis == 0 else f"{parameter_name(path)}_{axis}")
                 if axis in free and shape[axis] >= 2 else None
                 for axis in range(len(shape)))
