"""Long stacks in array-API modules, written a value at a time as the values are made.

An unrolled loop's gradient stacks its steps' values (``xp.stack([d_h, d_h_1, ...])``)
to sum their products in one ``matmul``.  Compiled by XLA, a stack of tens of values is
one concatenation whose every operand is computed again for it; an array written a row
at a time (``array_api_extra.at``, an in-place update under ``jax.jit``) is not.  On
numpy both copy each value once.  The emitter asks for it (``Target.stack_in_place``)
where every value stacked has a statement of its own, before the stack's.
"""

from codegen.targets.blocks import INDENT
from codegen.targets.array_api.syntax import DEVICE
from codegen.targets.base import InPlace

LONGEST_KEPT = 8
"""Stacks of more values than this are written a value at a time."""


def stack_in_place(name, values, first):
    """The stack ``name`` of the named ``values`` made where its ``first`` value is made,
    and each value written into it where it is made; or ``None`` for a short stack.
    The array takes the first value's dtype; values of several dtypes are stacked
    again, as numpy would."""
    if len(values) <= LONGEST_KEPT:
        return None
    after = {first: [f"{name} = xp.empty(({len(values)}, *{first}.shape), "
                     f"dtype={first}.dtype, device={DEVICE})"]}
    for position, value in enumerate(values):
        written = f"{name} = xpx.at({name}, ({position}, ...)).set({value})"
        after.setdefault(value, []).append(written)
    listed = ", ".join(values)
    return InPlace(after, [f"if {name}.dtype != xp.result_type({listed}):",
                           f"{INDENT}{name} = xp.stack([{listed}])"],
                   frozenset(("xp", "xpx", DEVICE)))
