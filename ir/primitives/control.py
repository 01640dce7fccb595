"""Primitives that control differentiation itself: ``stop_gradient`` and user-defined gradients."""

from ir.batching import aligned
from ir.primitive import READS_NOTHING, Primitive

stop_gradient = Primitive("stop_gradient", lambda x: x, batch=aligned,
                          no_gradient="passes through stop_gradient", source="{0}")


def _replay_custom(*args, grad_fn, function):
    raise NotImplementedError(
        f"the custom gradient of {function!r} holds Python callables: it can be "
        "differentiated on the tape that recorded it, but not re-evaluated from a graph")


custom_gradient = Primitive("custom_gradient", _replay_custom, reads=READS_NOTHING,
                            python_only="its params hold the user's Python functions")
custom_gradient.defvjp_joint(lambda g, out, *args, grad_fn, function: grad_fn(g))
