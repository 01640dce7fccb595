"""The door of an array-API module: its function's first statement and its
``_check_inputs``, written from the numpy target's.

The numpy target's function starts with ``_check_inputs(w, x)``; an array-API one starts
with ``xp, w, x = _check_inputs(w, x)``, which finds the arguments' namespace, checks
them in it, and returns it with the arguments in it: numpy arrays given beside arrays of
one other library (parameters as numpy arrays beside JAX or Dask data, or the other way
round) are converted into that library, on its arrays' device, by ``_one_namespace``.
Arguments of two other libraries are refused, naming them.
"""

import re

from codegen.array_api_helpers import HELPERS
from codegen.array_api_syntax import DEVICE
from codegen.emit import WIDTH
from ir.primitive import Unspellable

CHECK = "_check_inputs("
"""How the numpy target's call of its check starts."""


def one_check_line(body):
    """The function ``body`` with the numpy target's check call on one line, even where it
    was written one argument a line."""
    start = next((k for k, line in enumerate(body) if line.strip() == CHECK), None)
    if start is None:
        return body
    end = next(k for k in range(start + 1, len(body)) if body[k].strip() == ")")
    arguments = [line.strip().rstrip(",") for line in body[start + 1:end]]
    joined = body[start].rstrip() + ", ".join(arguments) + ")"
    return body[:start] + [joined] + body[end + 1:]


def namespace_statements(call, indent):
    """The statements that replace the numpy target's check ``call``: the namespace and the
    arguments rebound to what ``_check_inputs`` returns (in one namespace), then their
    device, read off the first array (a list parameter, ``*seed``, is a list)."""
    arguments = call[len(CHECK):call.rindex(")")].split(", ")
    returned = ["xp"] + arguments
    single = f"{', '.join(returned)} = {call}"
    if len(indent) + len(single) <= WIDTH:
        lines = [single]
    else:
        lines = (["("] + [f"    {name}," for name in returned] + [f") = {CHECK}"]
                 + [f"    {name}," for name in arguments] + [")"])
    first = next((a for a in arguments if not a.startswith("*")), f"{arguments[0][1:]}[0]")
    lines.append(f"{DEVICE} = _device_of({first})")
    return [indent + line for line in lines]


def helpers_in_the_standard(lines):
    """The helpers after the numpy target's function, ``lines``: ``_check_inputs`` in the
    standard's terms; the numpy target's helpers that ``codegen.array_api_helpers``
    writes in the standard are left out, to be added from there."""
    text = "\n".join(lines)
    text = re.sub(r"# INPUTS' dtypes as numpy reads them.*?\n_DTYPES = .*?\n\s*", "", text,
                  flags=re.S)
    for numpy_text, standard_text in CHECK_REWRITES:
        text = text.replace(numpy_text, standard_text)
    kept = []
    for helper in re.split(r"\n+(?=def )", text.strip("\n")):
        name = re.match(r"def (\w+)", helper)
        if name and name.group(1) in HELPERS:
            continue
        if "np." in helper:
            raise Unspellable(name.group(1) if name else "a helper", (
                "it has no spelling for target='array_api': the helper is written for numpy "
                "alone. Generate the numpy target for this computation"))
        kept.append(helper)
    return "\n\n\n".join(kept).split("\n") if kept else []


CHECK_REWRITES = (
    ("then check what the trace assumed of the sizes.\"\"\"\n",
     "then check what the trace assumed of the sizes.\n    Return the arguments' namespace "
     "and the arguments in it (_one_namespace).\"\"\"\n"),
    ("    for (name, shape, dtype), expected, value in zip(INPUTS, _DTYPES, args):\n",
     "    xp, args = _one_namespace(args)\n"
     "    for (name, shape, dtype), value in zip(INPUTS, args):\n"
     "        expected = getattr(xp, dtype)\n"),
    ("        if not isinstance(value, (np.ndarray, np.generic, int, float, complex)):\n"
     "            raise TypeError(f\"{name}: expected a numpy array, got {type(value).__name__}\")\n"
     "        array = np.asarray(value)\n",
     "        if not hasattr(value, \"dtype\"):  # (a Python number)\n"
     "            raise TypeError(f\"{name}: expected an array, got {type(value).__name__}\")\n"
     "        array = value\n"),
    ('    if wrong is not None:\n        raise ValueError(wrong)\n',
     '    if wrong is not None:\n        raise ValueError(wrong)\n    return xp, *args\n'),
)
"""The numpy target's ``_check_inputs`` (the general one, which binds sizes) in the
standard's terms: the namespace and the arguments from ``_one_namespace``, dtypes by
name, and both returned for the function to compute with."""
