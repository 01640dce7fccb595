"""Long stacks in array-API modules, written a value at a time as the values are made.

An unrolled loop's gradient stacks its steps' values (``xp.stack([d_h, d_h_1, ...])``)
to sum their products in one ``matmul``.  Compiled by XLA, a stack of tens of values is
one concatenation whose every operand is computed again for it; an array written a row
at a time (``array_api_extra.at``, an in-place update under ``jax.jit``) is not.  On
numpy both copy each value once.
"""

import re

from codegen.targets.array_api.syntax import DEVICE

LONGEST_KEPT = 8
"""Stacks of more values than this are written a value at a time."""

_STACK = re.compile(r"^    (\w+) = xp\.stack\(\[(.*)\]\)$")


def stacks_written_in_place(lines):
    """``lines`` (a function's body) with each long stack of once-assigned names made
    where its first value is, and each value written into it where it is made."""
    lines = list(lines)
    k = 0
    while k < len(lines):
        found = _STACK.match(lines[k])
        items = [item.strip() for item in found.group(2).split(",")] if found else []
        if len(items) > LONGEST_KEPT:
            written = _written_in_place(lines, k, found.group(1), items)
            if written is not None:
                lines = written
                continue
        k += 1
    return lines


def _written_in_place(lines, at, name, items):
    """The lines with the stack at line ``at`` written in place, or ``None`` where a value
    is not a name assigned once, at the function's level, before it.  The array takes
    the first value's dtype; values of several dtypes are stacked again, as numpy would."""
    made = {}
    for k, line in enumerate(lines[:at]):
        for target in _targets(line):
            top = line.startswith("    ") and not line.startswith("     ")
            made[target] = k if target not in made and top else None
    if any(not re.fullmatch(r"\w+", item) or made.get(item) is None for item in items):
        return None
    first = min(made[item] for item in items)
    if any(re.search(rf"\b{name}\b", line) for line in lines[first:at]):
        return None
    start = min(items, key=made.get)
    writes = {}
    for position, item in enumerate(items):
        writes.setdefault(made[item], []).append(
            f"    {name} = xpx.at({name}, ({position}, ...)).set({item})")
    out = []
    for k, line in enumerate(lines):
        if k == at:
            listed = ", ".join(items)
            out += [f"    if {name}.dtype != xp.result_type({listed}):",
                    f"        {name} = xp.stack([{listed}])"]
            continue
        out.append(line)
        if k == first:
            out.append(f"    {name} = xp.empty(({len(items)}, *{start}.shape), "
                       f"dtype={start}.dtype, device={DEVICE})")
        out.extend(writes.get(k, ()))
    return out


def _targets(line):
    """The names a line assigns: ``a, b = ...``, ``a += ...``, ``for a in ...:``."""
    found = re.match(r"^\s*((?:\w+\s*,\s*)*\w+)\s*(?:[-+*/@%]|//|\*\*)?=(?!=)", line)
    if found:
        return [t.strip() for t in found.group(1).split(",")]
    found = re.match(r"^\s*for ((?:\w+\s*,\s*)*\w+) in ", line)
    return [t.strip() for t in found.group(1).split(",")] if found else []
