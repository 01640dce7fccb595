"""The check at the door of a generated module: ``INPUTS`` and ``_check_inputs``.

A generated function is straight-line numpy that would fail deep inside, or
silently broadcast, on an argument of the wrong shape; its module lists
each parameter's name, shape and dtype and refuses any other argument on
entry, naming it.  The usual argument, an ndarray of exactly the declared
shape and dtype, is accepted by three comparisons before anything else is
looked at, so the check costs a fraction of a microsecond per argument.
"""

from dataclasses import dataclass

import numpy as np

from ir.sizes.dims import Size


@dataclass(frozen=True)
class Door:
    """What a target's ``_check_inputs`` that binds sizes (``codegen.sizes``) says of its
    own: whether it reads ``INPUTS``' dtypes once as ``_DTYPES``, the sentence its
    docstring adds on what it returns, the lines that open its loop over the arguments
    (through ``array = ...``, the argument as an array), and the lines that end it."""

    dtypes: bool
    returns: str
    opening: str
    closing: str = ""


NUMPY_DOOR = Door(dtypes=True, returns="", opening='''\
    for (name, shape, dtype), expected, value in zip(INPUTS, _DTYPES, args):
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex)):
            raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")
        array = np.asarray(value)
''')
"""The numpy target's door: numpy arrays and Python numbers, converted with numpy."""


def checker_head(docstring, dtypes=True):
    """The start of a module's ``_check_inputs`` (``docstring`` its docstring): with
    ``dtypes``, the dtypes of ``INPUTS`` read once; and the count of arguments checked."""
    table = ('''# INPUTS' dtypes as numpy reads them, so comparing an array's parses no name.
_DTYPES = tuple(np.dtype(dtype) for _, _, dtype in INPUTS)


''' if dtypes else "")
    return table + f'''def _check_inputs(*args):
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
