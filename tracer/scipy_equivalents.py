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
    frame, outermost = sys._getframe(skip), None
    while frame is not None:
        if _SCIPY in frame.f_code.co_filename:
            outermost = frame
        frame = frame.f_back
    if outermost is None:
        return ""
    name = _tracer_name(outermost)
    return f" {name} computes it on tensors." if name else ""


def _tracer_name(frame):
    """``tracer.scipy.<module>.<function>`` for scipy's function running in ``frame``."""
    function = frame.f_code.co_name
    owner = frame.f_locals.get("self")
    if owner is not None and type(owner).__name__.endswith("_gen"):  # a distribution
        path = f"stats.{type(owner).__name__[:-4]}"
    elif "special" in frame.f_code.co_filename:
        path = "special"
    else:
        return None
    try:
        module = importlib.import_module(f"tracer.scipy.{path}")
    except ModuleNotFoundError:
        return None
    return f"tracer.scipy.{path}.{function}" if hasattr(module, function) else None
