"""Which numpy, scipy.special and ``tracer.scipy`` functions tapegen differentiates, read
off its tables.

The README's list of supported functions is this module's output, so the
list and the code cannot drift apart (a test compares them):

    python -m tracer.diagnostics.coverage
"""

import inspect
import textwrap

import numpy as np

from ir import bindings
from tracer.numpy import api, fft, linalg, methods, scipy_ufuncs, shapes

FAMILIES = (
    (bindings.LINEAR_ALGEBRA, linalg),
    (bindings.SHAPES, shapes),
    (bindings.COMPLEX_AND_FFT, fft),
    ("scipy.special (when scipy is installed)", scipy_ufuncs),
)
"""The families beyond the core set, each with the ``tracer`` module that maps its
compositions; the functions bound beside their primitives name their family
themselves (``ir.bindings.TOPICS``)."""

WIDTH = 76


def spelled(func):
    """How a user writes ``func``: ``np.sum``, ``np.linalg.inv``, ``scipy.special.erf``."""
    if isinstance(func, np.ufunc):
        prefix = "scipy.special" if func in scipy_ufuncs.UFUNCS else "np"
        return f"{prefix}.{func.__name__.lstrip('_')}"  # (scipy.special.zeta calls _zeta)
    module = func.__module__.replace("numpy", "np", 1)
    return f"{module}.{func.__name__}"


def families():
    """``(title, names)`` for every family, the core set first, names sorted."""
    mapped = set(api.NON_DIFFERENTIABLE)
    listed = []
    for title, module in FAMILIES:
        bound = {f for f, topic in bindings.TOPICS.items() if topic == title}
        names = set(module.FUNCTIONS) | set(module.UFUNCS) | bound
        mapped |= names
        listed.append((title, _names(names - getattr(module, "REFUSED", frozenset()))))
    core = (set(api.FUNCTIONS) | set(api.UFUNCS)) - mapped
    scipy = _tracer_scipy()
    return [("Core", _names(core))] + listed + ([("tracer.scipy", scipy)] if scipy else [])


def _tracer_scipy():
    """The names of the functions ``tracer.scipy`` writes (scipy's own ufuncs aside)."""
    try:
        from tracer.scipy import integrate, linalg, signal, special, stats
    except ModuleNotFoundError:
        return []
    names = [f"tracer.scipy.special.{name}" for name in special.__all__
             if getattr(getattr(special, name), "__module__", "").startswith("tracer.")]
    public = {module.__name__: module for module in (integrate, linalg, signal)}
    public |= {f"tracer.scipy.stats.{d}": getattr(stats, d) for d in stats.__all__}
    for path, module in public.items():
        names += [f"{path}.{name}" for name, f in vars(module).items()
                  if inspect.isfunction(f) and f.__module__ == module.__name__
                  and not name.startswith("_")]
    return sorted(names)


def _names(functions):
    return sorted({spelled(f) for f in functions}, key=lambda name: (name.count("."), name))


def method_names():
    """The array methods tensors have, as ``.name()`` (``.T``, ``.real`` are properties)."""
    names = []
    for name, member in vars(methods.ArrayMethods).items():
        if name.startswith("_") or name in methods.REFUSED:
            continue
        names.append(f".{name}" if isinstance(member, property) else f".{name}()")
    return sorted(names, key=str.lower)


def markdown():
    """The README's list: one bullet per family, then the functions with no gradient."""
    lines = []
    for title, names in families():
        lines += _bullet(f"**{title}**: " + " ".join(f"`{n}`" for n in names))
    lines += _bullet("**Array methods**: " + " ".join(f"`{n}`" for n in method_names()))
    lines += ["", "No gradient, never an error: these compute as numpy does on tensors, and "
              "the", "gradient through them is `None`, as in TensorFlow.", "",
              "| why | functions |", "| --- | --- |"]
    reasons = {}
    for func, reason in api.NON_DIFFERENTIABLE.items():
        reasons.setdefault(reason, []).append(spelled(func))
    for reason, names in reasons.items():
        lines.append(f"| {reason} | {' '.join(f'`{n}`' for n in sorted(names))} |")
    return "\n".join(lines) + "\n"


def _bullet(text):
    return textwrap.wrap(text, WIDTH, initial_indent="- ", subsequent_indent="  ",
                         break_on_hyphens=False, break_long_words=False)


if __name__ == "__main__":
    print(markdown(), end="")
