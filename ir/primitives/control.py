"""Primitives that control differentiation and evaluation: ``stop_gradient``, user-defined
gradients, and ``print``, which a function traced for graph mode runs at every call."""

import builtins

import numpy as np

from ir.autodiff.batching import aligned
from ir.primitive import READS_NOTHING, Primitive, Unspellable
from ir.sizes.shape_rules import same_shape

stop_gradient = Primitive("stop_gradient", lambda x: x, batch=aligned,
                          no_gradient="passes through stop_gradient", source="{0}",
                          shape_rule=same_shape)


def _replay_custom(*args, grad_fn, function):
    raise NotImplementedError(
        f"the custom gradient of {function!r} holds Python callables: it can be "
        "differentiated on the tape that recorded it, but not re-evaluated from a graph")


def _refuse_to_spell(params, shapes):
    raise Unspellable(f"custom_gradient function {params.get('function')!r}", (
        "its gradient is Python code that tapegen cannot see into. Write the function with "
        "numpy operations tapegen differentiates, or differentiate it eagerly with "
        "tape.gradient."))


custom_gradient = Primitive("custom_gradient", _replay_custom, reads=READS_NOTHING,
                            source=_refuse_to_spell,
                            python_only="its params hold the user's Python functions",
                            joint_vjp=lambda g, out, *args, wanted, grad_fn, function:
                                grad_fn(g))


def _print(*values, parts, sep, end, order):
    """Print ``parts``, each ``None`` standing for the next of ``values``; a token results.
    (``order`` keeps two prints of the same values apart: each is its own effect.)"""
    values = iter(values)
    builtins.print(*[next(values) if part is None else part for part in parts], sep=sep,
                   end=end)
    return np.zeros((), np.bool_)


def _print_source(params, shapes):
    """``print(...)``: the values in their slots, other parts as literals (a brace in
    one is escaped, so that no part reads as a slot)."""
    slots = iter(range(len(shapes)))
    words = [f"{{{next(slots)}}}" if part is None else _literal(part)
             for part in params["parts"]]
    if params["sep"] != " ":
        words.append(f"sep={_literal(params['sep'])}")
    if params["end"] != "\n":
        words.append(f"end={_literal(params['end'])}")
    return f"print({', '.join(words)})"


def _literal(value):
    return repr(value).replace("{", "\\x7b")


printed = Primitive("print", _print, no_gradient="prints", source=_print_source,
                    abstract=lambda avals, params: ((), np.dtype(np.bool_)),
                    value_name="printed", effect="prints")
