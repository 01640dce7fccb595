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


def checker_head(docstring, dtypes=True, out=False):
    """The start of a module's ``_check_inputs`` (``docstring`` its docstring): with
    ``dtypes``, the dtypes of ``INPUTS`` read once; the count of arguments checked; and
    with ``out``, the buffers a caller passes for the new values (``CHECK_OUT``)."""
    table = ('''# INPUTS' dtypes as numpy reads them, so comparing an array's parses no name.
_DTYPES = tuple(np.dtype(dtype) for _, _, dtype in INPUTS)


''' if dtypes else "")
    head = table + f'''def _check_inputs(*args{", out=None" if out else ""}):
    """{docstring}"""
    if len(args) != len(INPUTS):
        names = ", ".join(name for name, _, _ in INPUTS)
        raise ValueError(f"expected {{len(INPUTS)}} arrays ({{names}}), got {{len(args)}}")
'''
    if out:
        head += """    if out is not None:
        _check_out(out, args)
"""
    return head


def check_inputs_source(out=False):
    """The ``_check_inputs`` of a module whose inputs have static shapes; with ``out``,
    one that checks the buffers its function writes new values into, too."""
    return checker_head("Refuse arguments whose number, kind, shape or dtype differs from "
                        "INPUTS.", out=out) + _STATIC_CHECK


_STATIC_CHECK = '''    for (name, shape, dtype), expected, value in zip(INPUTS, _DTYPES, args):
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

CHECK_NAMES = ("_DTYPES", "_check_inputs", "OUT_NAMES", "_check_out")
"""The names the checks at a module's door define in it."""

CHECK_OUT = '''def _check_out(out, args):
    """Refuse buffers for the new values that are not writable numpy arrays of their
    variable's shape and dtype, or that share memory with an argument or with one
    another: the function writes each as it goes, while it still reads the others."""
    if not isinstance(out, dict):
        raise TypeError(f"out: expected a dict of arrays by name, got {type(out).__name__}")
    taken = []
    for name, buffer in out.items():
        if name not in OUT_NAMES:
            raise ValueError(f"out: no new value {name!r} is written into a buffer; "
                             f"these are: {', '.join(OUT_NAMES)}")
        shape, dtype = next((shape, dtype) for row, shape, dtype in INPUTS if row == name)
        if (type(buffer) is not np.ndarray or buffer.shape != shape
                or buffer.dtype != dtype or not buffer.flags.writeable):
            got = (f"{buffer.dtype}{list(buffer.shape)}" if isinstance(buffer, np.ndarray)
                   else type(buffer).__name__)
            raise ValueError(f"out[{name!r}]: expected a writable {dtype}{list(shape)} "
                             f"numpy array, got {got}")
        for other in (*args, *taken):
            if np.may_share_memory(buffer, other):
                raise ValueError(f"out[{name!r}] shares memory with an argument or another "
                                 "buffer: pass an array of its own")
        taken.append(buffer)
'''
"""The helper that checks the buffers a caller passes as ``out`` (``CHECK_INPUTS`` calls it)."""


def out_text(written):
    """The ``OUT_NAMES`` table: the new values the function writes into buffers, by name."""
    rows = "".join(f'    "{name}",\n' for name in written)
    return ("# The new values the function writes into the arrays of out, when given.\n"
            f"OUT_NAMES = (\n{rows})")


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
