"""How numpy's API on tensors maps to ``ir`` primitives: ``np.einsum``, brought to the
normal form of the ``einsum`` primitive.

Bringing it there takes diagonals, sums and broadcasts of the operands before
the ``einsum`` itself, several families' primitives and numpy functions on
tensors, so this binding stays here rather than beside the primitive in
``ir.primitives.linalg``.
"""

import collections
import string

import numpy as np

from ir.bindings import array_rank, array_shape, no_extras
from ir.primitives import linalg
from ir.primitives.broadcast import broadcast_to
from ir.sizes.traced import same_size
from tracer.core import apply


def _einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """``np.einsum``, in the normal form of the ``einsum`` primitive: ellipses as
    letters, operands broadcast per letter, diagonals taken with ``diagonal``, and
    letters of one operand alone summed with ``sum``.  ``optimize`` is accepted and
    ignored: the primitive always lets numpy choose the contraction order."""
    no_extras("einsum", out=out, dtype=dtype)
    if order != "K" or casting != "safe":
        raise TypeError("np.einsum(..., order=, casting=) is not supported on tracer tensors")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], list(operands[1:])
    else:
        subscripts, arrays = _from_sublists(operands)
    inputs, output = _explicit(subscripts, [array_rank(a) for a in arrays])
    arrays = _broadcast_letters(arrays, inputs)
    for k in range(len(arrays)):
        arrays[k], inputs[k] = _take_diagonals(arrays[k], inputs[k])
    for k in range(len(arrays)):
        elsewhere = set(output).union(*(s for j, s in enumerate(inputs) if j != k))
        alone = tuple(i for i, c in enumerate(inputs[k]) if c not in elsewhere)
        if alone:
            arrays[k] = np.sum(arrays[k], axis=alone)
            inputs[k] = "".join(c for c in inputs[k] if c in elsewhere)
    if len(arrays) == 1 and inputs[0] == output:
        return arrays[0]
    return apply(linalg.einsum, tuple(arrays),
                 {"subscripts": ",".join(inputs) + "->" + output})


def _from_sublists(operands):
    """einsum(op0, sublist0, op1, sublist1, ..., [sublistout]) as a subscripts string."""
    def letters(sublist):
        return "".join("..." if s is Ellipsis else string.ascii_letters[s] for s in sublist)
    arrays, subs = list(operands[0::2]), list(operands[1::2])
    explicit = len(operands) % 2 == 1
    if explicit:
        arrays.pop()
        return ",".join(map(letters, subs)) + "->" + letters(operands[-1]), arrays
    return ",".join(map(letters, subs)), arrays


def _explicit(subscripts, ranks):
    """Input subscripts (one string per operand) and output subscripts, with ellipses
    written as letters and the implicit output made explicit."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(ranks):
        raise ValueError("more operands provided to einstein sum function than specified in "
                         "the subscripts string" if len(ranks) > len(inputs) else
                         "fewer operands provided to einstein sum function than specified "
                         "in the subscripts string")
    named = set("".join(inputs).replace(".", ""))
    unused = [c for c in string.ascii_letters if c not in named]
    spans = [rank - len(s.replace("...", "")) if "..." in s else 0
             for s, rank in zip(inputs, ranks)]
    broadcast = "".join(unused[:max(spans, default=0)])
    inputs = [s.replace("...", broadcast[len(broadcast) - span:] if span else "")
              for s, span in zip(inputs, spans)]
    if not arrow:
        counts = collections.Counter("".join(inputs))
        once = sorted(c for c, n in counts.items() if n == 1 and c not in broadcast)
        return inputs, broadcast + "".join(once)
    if "..." in output:
        return inputs, output.replace("...", broadcast)
    if broadcast:
        raise ValueError("output has more dimensions than subscripts given in einstein sum, "
                         "but no '...' ellipsis provided to broadcast the extra dimensions.")
    return inputs, output


def _broadcast_letters(arrays, inputs):
    """Operands broadcast so that each letter has one size (numpy stretches sizes of 1)."""
    sizes = {}
    for a, subs in zip(arrays, inputs):
        for c, d in zip(subs, array_shape(a)):
            # Any size but 1 wins, 0 included; numpy refuses two such sizes that differ.
            # (A symbolic size is never taken for 1, as in broadcasting.)
            previous = sizes.get(c, 1)
            sizes[c] = d if type(previous) is int and previous == 1 else previous
    out = []
    for a, subs in zip(arrays, inputs):
        shape = tuple(sizes[c] for c in subs)
        if not all(map(same_size, array_shape(a), shape)):
            a = apply(broadcast_to, (a,), {"shape": shape})
        out.append(a)
    return out


def _take_diagonals(array, subs):
    """An operand with a letter repeated (``"ii"``) as its diagonal, letter once, at the end."""
    for c in subs:
        first = subs.find(c)
        second = subs.find(c, first + 1)
        if second >= 0:
            array = apply(linalg.diagonal, (array,),
                          {"offset": 0, "axis1": first, "axis2": second})
            rest = subs[:first] + subs[first + 1:second] + subs[second + 1:]
            return _take_diagonals(array, rest + c)
    return array, subs


FUNCTIONS = {np.einsum: _einsum}
