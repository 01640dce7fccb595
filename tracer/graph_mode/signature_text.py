"""Signatures as text: TensorFlow's printed concrete signatures, where a traced function
comes from, and what changed between two signatures (the retracing warning)."""

import functools
import os

import numpy as np

from codegen.function_module import PythonValue
from ir.structure import flatten
from tracer.graph_mode.signature import TensorSpec, is_array, leaf_array


def origin(python_function):
    """The traced function and where it is defined, for the module's docstring."""
    inner = python_function.func if isinstance(python_function, functools.partial) else \
        python_function
    code = getattr(inner, "__code__", None)
    name = getattr(inner, "__qualname__", getattr(inner, "__name__", "function"))
    if code is None:
        return name
    return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"


def signature_text(name, arguments, paths, dims, result):
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
        shape = value.shape if isinstance(value, TensorSpec) else np.shape(leaf_array(value))
        axes = dims.get(path) or (None,) * len(shape)
        shape = tuple(None if a is not None else d for a, d in zip(axes, shape))
        dtype = value.dtype if isinstance(value, TensorSpec) else np.result_type(leaf_array(value))
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


def differences(old, new):
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
