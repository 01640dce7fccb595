"""Symbolic sizes in generated code (``ir.sizes.dims``): how a module names them, binds them
from its arguments, and checks what the trace assumed of them.

A size is ``n_batch`` in the function body, bound once from the first
parameter with an axis of that size (``n_batch = x.shape[0]``), so every
size-dependent constant (a mean's count, a reshape's target) is computed
from the arguments.  ``INPUTS`` lists a symbolic axis by its name, and
``_check_inputs`` binds each name from the first argument that carries it,
refuses any other argument that disagrees, and checks every guard.
"""

from codegen.input_check import NUMPY_DOOR, checker_head
from ir.sizes.dims import Size
from ir.sizes.shape_rules import has_sizes


def code_name(symbol):
    """The name generated code gives the symbolic size ``symbol``."""
    return f"n_{symbol}"


def is_symbolic(shape):
    """Whether ``shape`` has a symbolic size."""
    return has_sizes([(tuple(shape), None)], {})


def symbols_of(arrays):
    """The symbols the arrays' shapes use, in order of first appearance."""
    found = {}
    for array in arrays:
        for size in array.shape:
            for name in sorted(getattr(size, "symbols", ())):
                found.setdefault(name, None)
    return list(found)


def bindings(arrays, text):
    """``n_batch = x.shape[0]`` for each symbol the body ``text`` reads, from the first
    array with an axis of exactly that size."""
    lines = []
    for name in symbols_of(arrays):
        code = code_name(name)
        if code not in text:
            continue
        array, axis = _first_carrier(arrays, name)
        lines.append(f"{code} = {array.body}.shape[{axis}]")
    return lines


def _first_carrier(arrays, name):
    for array in arrays:
        for axis, size in enumerate(array.shape):
            if isinstance(size, Size) and size.symbols == {name} and size.text() == name:
                return array, axis
    raise ValueError(f"no parameter has an axis of size {name}: generated code could not "
                     f"compute it (declare {name} on an input the target depends on)")


def check_sizes_source(arrays, guards, door=NUMPY_DOOR, out=False):
    """``_check_inputs`` for a module whose inputs have symbolic axes (or whose target
    binds sizes always), written through the target's ``door``; with ``out``, one that
    checks the buffers its function writes new values into, too."""
    checks = []
    for guard in guards:
        checks += _guard_check(guard)
    checks += _expression_checks(arrays)
    text = "\n".join(checks)
    lines = [f'    {code_name(n)} = sizes["{n}"][0]' for n in symbols_of(arrays)
             if code_name(n) in text]
    return (checker_head(_CHECK_SIZES_DOCSTRING + door.returns, door.dtypes, out) + _SIZES_STATE
            + door.opening + _CHECK_SIZES + "".join(f"{line}\n" for line in lines + checks)
            + _STATIC + door.closing)


def _expression_checks(arrays):
    """Checks of axes whose size is an expression, not a name (a seed of ``3*batch``)."""
    lines = []
    for k, array in enumerate(arrays):
        for axis, size in enumerate(array.shape):
            if isinstance(size, Size) and size.text() not in size.symbols:
                code = size.text(code_name)
                lines += [f"    if args[{k}].shape[{axis}] != {code}:",
                          f'        raise ValueError(f"{array.label}: axis {axis} has size '
                          f'{{args[{k}].shape[{axis}]}}, but {size} = {{{code}}}")']
    return lines


def _guard_check(guard):
    where = f" ({guard.where})" if guard.where is not None else ""
    condition = guard.text(code_name)
    values = ", ".join(f"{n} = {{{code_name(n)}}}" for n in sorted(_symbols(guard)))
    return [f"    if not ({condition}):",
            f'        raise ValueError(f"{values}: this module holds only where {guard.text()}, '
            f'as when it was traced{_escaped(where)}")']


def _symbols(guard):
    found = set()
    for side in (guard.left, guard.right):
        found |= getattr(side, "symbols", set())
    return found


_IN_AN_F_STRING = str.maketrans({"\\": "\\\\", '"': '\\"', "{": "{{", "}": "}}"})
"""How a user's text is written inside a double-quoted f-string literal."""


def _escaped(text):
    return text.translate(_IN_AN_F_STRING)


_CHECK_SIZES_DOCSTRING = (
    "Refuse arguments whose number, kind, shape or dtype differs from INPUTS: a size\n"
    "    named in INPUTS is taken from the first argument with that axis, and every other\n"
    "    argument must agree; then check what the trace assumed of the sizes.")

_SIZES_STATE = '''    sizes = {}
    wrong = None  # (a static size, reported after the guards, which may say why)
'''

_CHECK_SIZES = '''        if array.dtype != expected or array.ndim != len(shape):
            wrong = wrong or (f"{name}: expected {dtype}{list(shape)}, "
                              f"got {array.dtype}{list(array.shape)}")
            continue
        for axis, (size, actual) in enumerate(zip(shape, array.shape)):
            if type(size) is int:
                if size != actual and wrong is None:
                    wrong = (f"{name}: expected {dtype}{list(shape)}, "
                             f"got {array.dtype}{list(array.shape)}")
            elif not size.isidentifier():
                continue  # (an expression of sizes, checked once they are bound)
            elif size not in sizes:
                if actual < 1:
                    raise ValueError(f"{name}: axis {axis} has size {actual}, but {size} "
                                     "must be at least 1")
                sizes[size] = (actual, name)
            elif sizes[size][0] != actual and wrong is None:
                wrong = (f"{name}: axis {axis} has size {actual} "
                         f"but {size} = {sizes[size][0]} from {sizes[size][1]}")
'''

_STATIC = '''    if wrong is not None:
        raise ValueError(wrong)
'''
