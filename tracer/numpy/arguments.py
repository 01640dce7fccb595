"""Plain numpy values of arguments that may hold tensors, for numpy functions run on
the values themselves.  Reading numpy's axes and shapes is ``ir.bindings``' job.
"""

from tracer.core import value_of


def unwrap(values):
    """Plain numpy values for a sequence of arguments (tensors unwrapped, lists kept)."""
    return [plain(v) for v in values]


def unwrap_dict(kwargs):
    """``unwrap`` for keyword arguments."""
    return {k: plain(v) for k, v in kwargs.items()}


def plain(value):
    """``value`` with every tensor in it, however deeply nested in lists and tuples, unwrapped."""
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value_of(value)

