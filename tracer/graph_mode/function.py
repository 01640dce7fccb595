"""``tracer.function``: TensorFlow's ``tf.function`` over tapegen.

The first call with a new signature (``tracer.graph_mode.signature``) traces
the Python function into one graph and one generated module; later calls with
that signature run the module.  Inside a tape or another function being
traced, the Python function runs as it is, so whatever records around it sees
every operation and gradients flow through.
"""

import functools
import inspect
import threading
import weakref

import numpy as np

from tracer.graph_mode.concrete import ConcreteFunction
from tracer.graph_mode.jit import JaxDevice
from tracer.graph_mode.signature import (TensorSpec, is_array, leaf_array, leaf_paths,
                                         parameter_name, signature_key)
from tracer.graph_mode.signature_text import differences, origin, signature_text
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
        self._positional, self._defaults = _plain_parameters(self._signature)
        self._concrete = {}
        self._traces = []  # (key, concrete function), in the order traced
        self._relaxed = {  # leaf path -> the axes traced as symbolic sizes
            name: {axis for axis, d in enumerate(spec.shape) if d is None}
            for name, spec in zip(self._signature.parameters, self.input_signature or ())}
        self._seen = {}  # leaf path -> its shape at the last call that traced
        self._exact = {}  # exact signature -> a trace for sizes a symbolic one's guards break
        self._lock = threading.RLock()
        self._bound = weakref.WeakKeyDictionary()
        self._attribute = f"_tracer_function_{id(self)}"

    def __get__(self, instance, owner):
        """A method: one ``Function`` per instance, with ``self`` bound, kept in the
        instance's ``__dict__`` (or, for a class with ``__slots__``, beside it, holding
        the instance weakly)."""
        if instance is None:
            return self
        store = getattr(instance, "__dict__", None)
        table = self._bound if store is None else store
        key = instance if store is None else self._attribute
        bound = table.get(key)
        if bound is None:
            method = (functools.partial(self.python_function, instance) if store is not None
                      else _weak_method(self.python_function, instance))
            bound = Function(method, self.input_signature, self.reduce_retracing,
                             self.jit_compile)
            functools.update_wrapper(bound, self.python_function)
            table[key] = bound
        return bound

    def __call__(self, *args, **kwargs):
        if thread_state.stack or thread_state.accumulators:
            return self.python_function(*args, **kwargs)  # traced into the caller
        arguments = self._bind(args, kwargs)
        key, leaves = signature_key(arguments, self._relaxed)
        concrete = self._concrete.get(key)
        if concrete is None or not concrete.serves(leaves):
            concrete = self._concrete_for(arguments, leaves)
        with self._lock:
            return concrete.run(leaves)

    def get_concrete_function(self, *args, **kwargs):
        """The ``ConcreteFunction`` for these arguments (arrays, or ``TensorSpec``s for any
        values of a shape), traced now if no trace serves them."""
        arguments = self._bind(args, kwargs)
        return self._concrete_for(arguments, signature_key(arguments)[1])

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
        positional, defaults = self._positional, self._defaults
        missing = -1 if positional is None else len(positional) - len(args)
        if not kwargs and 0 <= missing <= len(defaults):
            arguments = dict(zip(positional, args + defaults[len(defaults) - missing:]))
        else:
            try:
                bound = self._signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{self.__name__}: {error}") from None
            bound.apply_defaults()
            arguments = bound.arguments
        if self.input_signature is not None:
            _check_against(self.__name__, self._signature, arguments, self.input_signature)
        return arguments

    def _concrete_for(self, arguments, leaves):
        """The trace that serves these arguments, made now if there is none: with
        ``reduce_retracing``, one whose axes that changed are symbolic; where the sizes
        break a symbolic trace's guards, one of exactly these shapes."""
        with self._lock:
            paths = leaf_paths(arguments)
            if self.reduce_retracing:
                self._relax(paths, leaves)
            key, _ = signature_key(arguments, self._relaxed)
            concrete = self._concrete.get(key)
            if concrete is None:
                return self._trace(arguments, key, paths, leaves, self._symbolic_axes(
                    paths, leaves))
            if concrete.serves(leaves):
                return concrete
            exact, _ = signature_key(arguments)
            return self._exact.get(exact) or self._trace(arguments, exact, paths, leaves,
                                                         exact=True)

    def _relax(self, paths, leaves):
        """Free every axis whose size differs from the last trace's (the leading axis of
        every array from the first), as TensorFlow's ``reduce_retracing`` generalises."""
        for path, leaf in zip(paths, leaves):
            shape = _shape(leaf)
            free = self._relaxed.setdefault(path, {0} if shape else set())
            seen = self._seen.get(path)
            if seen is not None and len(seen) == len(shape):
                free.update(axis for axis, (a, b) in enumerate(zip(seen, shape)) if a != b)
            self._seen[path] = shape

    def _trace(self, arguments, key, paths, leaves, dims=None, exact=False):
        dims = dims or [None] * len(leaves)
        name = getattr(self.python_function, "__name__", "function")
        device = JaxDevice() if self.jit_compile else None
        result = trace(arguments, leaves, paths, self._caller(), dims, name,
                       origin(self.python_function),
                       target="numpy" if device is None else "array_api")
        if result.created and self._traces:
            raise ValueError(
                f"{name} created a variable on a trace after its first: tracer.function "
                "supports variables created on the first call only. Create the variable "
                "outside the function, or once (if self.v is None: ...)")
        shapes = [tuple(d if isinstance(d, str) else size
                        for d, size in zip(leaf_dims or (None,) * len(_shape(leaf)),
                                           _shape(leaf)))
                  for leaf, leaf_dims in zip(leaves, dims)]
        concrete = ConcreteFunction(result, signature_text(name, arguments, paths, dims,
                                                            result), self._call_concrete,
                                    shapes, [_dtype(leaf) for leaf in leaves], device)
        (self._exact if exact else self._concrete)[key] = concrete
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
        static one), or ``None`` for a leaf traced as it is.  Leading axes of the first
        array's size share the name ``batch``."""
        if self.input_signature is not None:
            free = [{axis for axis, d in enumerate(_spec_shape(leaf, spec)) if d is None}
                    for leaf, spec in zip(leaves, self._leaf_specs(paths))]
        elif self.reduce_retracing:
            free = [self._relaxed.get(path, set()) for path in paths]
        else:
            return [None] * len(leaves)
        shapes = [_shape(leaf) for leaf in leaves]
        batch = next((shape[0] for shape in shapes if shape), None)
        dims = []
        for path, shape, axes in zip(paths, shapes, free):
            names = tuple(None if axis not in axes or size < 2 else
                          "batch" if axis == 0 and size == batch else
                          f"{parameter_name(path)}_{axis}"
                          for axis, size in enumerate(shape))
            dims.append(names if any(names) else None)
        return dims

    def _leaf_specs(self, paths):
        """The ``TensorSpec`` of each array leaf (arguments are top-level arrays)."""
        order = list(self._signature.parameters)
        return [self.input_signature[order.index(path)] for path in paths]

    def _call_concrete(self, concrete, args, kwargs):
        arguments = self._bind(args, kwargs)
        _, leaves = signature_key(arguments)
        if not concrete.accepts(leaves):
            raise TypeError(f"{self.__name__}: these arguments do not fit the concrete "
                            f"function {concrete.signature_text.splitlines()[0]} "
                            f"({concrete.signature_text.splitlines()[2].strip()}, ...): call "
                            "the tracer.Function instead, which traces again")
        with self._lock:
            return concrete.run(leaves)

    def _warn_of_retracing(self):
        (old, _), (new, _) = self._traces[-2:]
        changed = "; ".join(differences(old, new)) or "nothing the signature shows changed"
        warn_at_user_line(
            f"{self.__name__} has been traced {len(self._traces)} times, the last"
            f"{described_site(user_site())}: every new signature traces it again. Between "
            f"the last two, {changed}. Pass reduce_retracing=True to trace axes that change "
            "as symbolic sizes, give an input_signature, or pass values that change as "
            "arrays rather than Python numbers.")


def _weak_method(function, instance):
    """``function`` with ``instance`` bound as its first argument, held weakly."""
    reference = weakref.ref(instance)

    def method(*args, **kwargs):
        return function(reference(), *args, **kwargs)
    method.__signature__ = inspect.signature(functools.partial(function, instance))
    return method


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
            value_shape = np.shape(leaf_array(value)) if is_array(value) else None
            fits = is_array(value) and spec.is_compatible_with(value)
        if not fits:
            what = (f"{np.result_type(leaf_array(value)).name}{list(value_shape)}"
                    if value_shape is not None else type(value).__name__)
            raise TypeError(f"{name}: the argument {parameter!r} is {what}, which does not "
                            f"fit its input_signature {spec}")








def _plain_parameters(signature):
    """The parameters' names when every one can be given by position and none gathers
    the rest (``*args``, ``**kwargs``), and the defaults of the last ones: a call passing
    values by position for the first ones binds them in order, and the defaults to the
    rest.  Otherwise ``(None, ())``."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    parameters = signature.parameters.values()
    if all(p.kind in kinds for p in parameters):
        return (tuple(p.name for p in parameters),
                tuple(p.default for p in parameters if p.default is not p.empty))
    return None, ()


def _shape(leaf):
    """A leaf's shape; a spec's free axes at 2, the size a placeholder traces them at."""
    if isinstance(leaf, TensorSpec):
        return tuple(2 if d is None else d for d in leaf.shape)
    return np.shape(leaf_array(leaf))


def _dtype(leaf):
    return leaf.dtype if isinstance(leaf, TensorSpec) else np.result_type(leaf_array(leaf))


def _spec_shape(leaf, spec):
    return leaf.shape if isinstance(leaf, TensorSpec) else spec.shape
