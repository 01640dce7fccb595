"""The door of an array-API module: its function's first statements and its
``_check_inputs``.

Where the numpy target's function starts with ``_check_inputs(w, x)``, an array-API one
starts with ``xp, w, x = _check_inputs(w, x)``, which finds the arguments' namespace, checks
them in it, and returns it with the arguments in it: numpy arrays given beside arrays of
one other library (parameters as numpy arrays beside JAX or Dask data, or the other way
round) are converted into that library, on its arrays' device, by ``_one_namespace``.
Arguments of two other libraries are refused, naming them.
"""

from codegen.targets.array_api.syntax import DEVICE
from codegen.emit import WIDTH
from codegen.input_check import Door


def namespace_statements(arguments, indent, device=True):
    """The function's first statements: the namespace and the ``arguments`` (``*seed``
    for a list parameter) rebound to what ``_check_inputs`` returns (in one namespace),
    then with ``device`` their device, read off the first array (``seed[0]`` of a
    list)."""
    returned = ["xp", *arguments]
    call = f"_check_inputs({', '.join(arguments)})"
    single = f"{', '.join(returned)} = {call}"
    if len(indent) + len(single) <= WIDTH:
        lines = [single]
    else:
        lines = (["("] + [f"    {name}," for name in returned] + [") = _check_inputs("]
                 + [f"    {name}," for name in arguments] + [")"])
    if device:
        first = next((a for a in arguments if not a.startswith("*")), f"{arguments[0][1:]}[0]")
        lines.append(f"{DEVICE} = _device_of({first})")
    return [indent + line for line in lines]


ARRAY_API_DOOR = Door(
    dtypes=False,
    returns="\n    Return the arguments' namespace and the arguments in it (_one_namespace).",
    opening='''\
    xp, args = _one_namespace(args)
    for (name, shape, dtype), value in zip(INPUTS, args):
        expected = getattr(xp, dtype)
        if not hasattr(value, "dtype"):  # (a Python number)
            raise TypeError(f"{name}: expected an array, got {type(value).__name__}")
        array = value
''',
    closing="    return xp, *args\n")
"""The array-API target's ``_check_inputs``: the namespace and the arguments from
``_one_namespace``, dtypes by name, and both returned for the function to compute with."""

DOOR_CALLS = ("_one_namespace",)
"""The helpers ``ARRAY_API_DOOR`` calls."""
