"""``autograd.numpy`` is numpy and ``autograd.scipy`` is ``tracer.scipy``.

tapegen dispatches numpy's own functions on traced tensors, so autograd's
wrapped numpy is plain numpy here; its scipy is tapegen's.  An import finder
answers every module under those two names with a fresh module holding the
target module's names (the target module itself is left as it is), plus the
few functions autograd's numpy adds (``autograd._numpy_extras``).

autograd wraps all of scipy, non-differentiable functions included
(``stats.dirichlet.rvs``).  A name ``tracer.scipy`` lacks falls back to scipy's:
on plain values it computes; given a traced value it raises an error naming
what tapegen lacks, so that the test counts as a failure with that cause.
"""

import functools
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

import numpy as np

from autograd import _usage
from autograd._numpy_extras import EXTRAS
from autograd._values import flatten, is_traced

ALIASES = {"autograd.numpy": ("numpy", None), "autograd.scipy": ("tracer.scipy", "scipy")}
NUMPY_SUBMODULES = ("fft", "linalg", "random")
"""The numpy submodules autograd wraps: reached as attributes, they are aliases too."""


class MissingInTapegen(NotImplementedError):
    """A scipy function ``tracer.scipy`` does not have was given a traced value."""


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        for alias, (real, fallback) in ALIASES.items():
            if fullname == alias or fullname.startswith(alias + "."):
                rest = fullname[len(alias):]
                loader = _AliasLoader(real + rest, fallback and fallback + rest)
                return importlib.machinery.ModuleSpec(fullname, loader, is_package=True)
        return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real, fallback):
        self.real = real
        self.fallback = fallback

    def create_module(self, spec):
        return types.ModuleType(spec.name)

    def exec_module(self, module):
        real = _import(self.real)
        fallback = _import(self.fallback) if self.fallback else None
        if real is None:
            raise ImportError(f"tapegen has no {self.real}")
        # tapegen's functions (tracer.scipy's) note their calls; numpy's need not.
        note = _counted if fallback is not None else _unchanged
        module.__dict__.update({name: note(value) for name, value in vars(real).items()
                                if not name.startswith("__") or name in ("__all__", "__doc__")})
        module.__dict__.update(EXTRAS.get(module.__name__, {}))
        module.__getattr__ = functools.partial(_attribute, real, fallback, self.real, note)
        _alias_submodules(module, real, fallback is not None)


def _alias_submodules(module, real, every):
    """Submodules reached as attributes (``stats.dirichlet``, ``np.linalg``) are aliases
    too, so that their missing names fall back and their extras are there."""
    for name, value in list(vars(real).items()):
        if not (isinstance(value, types.ModuleType)
                and value.__name__ == f"{real.__name__}.{name}"):
            continue
        if every or (real.__name__ == "numpy" and name in NUMPY_SUBMODULES):
            setattr(module, name, importlib.import_module(f"{module.__name__}.{name}"))


def _import(name):
    """A module, or an object inside one (``scipy.stats.dirichlet``), or None."""
    try:
        return importlib.import_module(name)
    except ImportError:
        parent, _, last = name.rpartition(".")
        holder = _import(parent) if parent else None
        return getattr(holder, last, None)


def _attribute(real, fallback, real_name, note, name):
    if hasattr(real, name) or fallback is None or not hasattr(fallback, name):
        return note(getattr(real, name))
    value = getattr(fallback, name)
    if not callable(value) or isinstance(value, (type, np.ufunc)):
        return value
    return _plain_only(value, f"{real_name}.{name}")


def _unchanged(value):
    return value


def _counted(value):
    """A ``tracer.scipy`` function that notes its calls (``autograd._usage``)."""
    if not callable(value) or isinstance(value, type):
        return value

    @functools.wraps(value)
    def call(*args, **kwargs):
        _usage.note_tapegen_call()
        return value(*args, **kwargs)
    return call


def _plain_only(function, missing):
    @functools.wraps(function)
    def call(*args, **kwargs):
        if any(is_traced(leaf) for leaf in flatten([list(args), list(kwargs.values())])):
            raise MissingInTapegen(f"tapegen has no {missing}; scipy's cannot take traced values")
        return function(*args, **kwargs)
    return call


def install():
    if not any(isinstance(finder, _AliasFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
