"""Which ``tracer.scipy`` function does what a plain scipy call was doing, for the warning
given when that scipy call turns a recorded tensor into an array."""

import importlib
import os
import sys

_SCIPY = f"{os.sep}scipy{os.sep}"


def scipy_equivalent(skip):
    """`` tracer.scipy.stats.norm.logpdf computes it on tensors.`` when the conversion
    happens inside a scipy function ``tracer.scipy`` has, else ``""``; the frames looked
    at start ``skip`` up."""
    frame, scipy_frames = sys._getframe(skip), []
    while frame is not None:
        if _SCIPY in frame.f_code.co_filename:
            scipy_frames.append(frame)
        frame = frame.f_back
    # The outermost frame that names a function (scipy wraps some in decorators).
    names = (_tracer_name(frame) for frame in reversed(scipy_frames))
    name = next((n for n in names if n), None)
    return f" {name} computes it on tensors." if name else ""


def _tracer_name(frame):
    """``tracer.scipy.<module>.<function>`` for scipy's function running in ``frame``, or
    wrapped by the decorator running there (which holds it as ``f``)."""
    function, owner = frame.f_code.co_name, frame.f_locals.get("self")
    wrapped = frame.f_locals.get("f") if function == "wrapper" else None
    if owner is not None and type(owner).__name__.endswith("_gen"):  # a distribution
        path = f"stats.{type(owner).__name__[:-4]}"
    elif callable(wrapped) and getattr(wrapped, "__module__", "").startswith("scipy."):
        function, path = wrapped.__name__, wrapped.__module__.split(".")[1]
    else:
        path = frame.f_code.co_filename.rsplit(_SCIPY, 1)[-1].split(os.sep)[0]
    if path not in _MODULES and not path.startswith("stats."):
        return None
    package, *inside = path.split(".")
    try:
        found = importlib.import_module(f"tracer.scipy.{package}")
    except ModuleNotFoundError:
        return None
    for name in [*inside, function]:
        found = getattr(found, name, None)
    return f"tracer.scipy.{path}.{function}" if found is not None else None


_MODULES = ("special", "linalg", "signal", "integrate")
"""scipy's subpackages with a ``tracer.scipy`` module of the same name (``stats`` is
named by distribution)."""
