"""Primitives that control differentiation itself: ``stop_gradient`` and user-defined gradients."""

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
