"""The check at the door of a generated module: ``INPUTS`` and ``_check_inputs``.

A generated function is straight-line numpy that would fail deep inside, or
silently broadcast, on an argument of the wrong shape; its module lists
each parameter's name, shape and dtype and refuses any other argument on
entry, naming it.  The usual argument, an ndarray of exactly the declared
shape and dtype, is accepted by three comparisons before anything else is
looked at, so the check costs a fraction of a microsecond per argument.
"""

import numpy as np

from ir.sizes.dims import Size


def checker_head(docstring):
    """The start of a module's ``_check_inputs`` (``docstring`` its docstring): the dtypes
    of ``INPUTS`` read once, and the count of arguments checked."""
    return f'''# INPUTS' dtypes as numpy reads them, so comparing an array's parses no name.
_DTYPES = tuple(np.dtype(dtype) for _, _, dtype in INPUTS)


def _check_inputs(*args):
    """{docstring}"""
    if len(args) != len(INPUTS):
        names = ", ".join(name for name, _, _ in INPUTS)
        raise ValueError(f"expected {{len(INPUTS)}} arrays ({{names}}), got {{len(args)}}")
'''


CHECK_INPUTS = checker_head(
    "Refuse arguments whose number, kind, shape or dtype differs from INPUTS.") + '''    for (name, shape, dtype), expected, value in zip(INPUTS, _DTYPES, args):
        if type(value) is np.ndarray and value.shape == shape and value.dtype == expected:
            continue  # the usual case, decided without converting anything
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex)):
            raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")
        array = np.asarray(value)
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(
                f"{name}: expected {dtype}{list(shape)}, got {array.dtype}{list(array.shape)}"
            )
'''
"""The source of the helper every generated function with parameters calls first."""

CHECK_NAMES = ("_DTYPES", "_check_inputs")
"""The names ``CHECK_INPUTS`` defines in a module."""


def inputs_text(arrays):
    """The ``INPUTS`` table: one ``(name, shape, dtype)`` row per array a caller passes,
    a symbolic axis given by its name (``("x", ("batch", 8), "float64")``)."""
    rows = "".join(inputs_row(a) for a in arrays)
    return f"INPUTS = (\n{rows})" if rows else "INPUTS = ()"


def inputs_row(array):
    """One ``INPUTS`` row: a symbolic axis by its name (an expression as its text)."""
    shape = "".join(f'"{d}", ' if isinstance(d, Size) else f"{d}, " for d in array.shape)
    shape = f"({shape.rstrip(', ')},)" if len(array.shape) == 1 else f"({shape.rstrip(', ')})"
    return f'    ("{array.label}", {shape}, "{np.dtype(array.dtype).name}"),\n'
