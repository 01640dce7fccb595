"""autograd's tracer names: a traced value is a ``tracer.Tensor`` (autograd's box)."""

from autograd._primitives import notrace_primitive, primitive
from autograd._values import is_traced as isbox, plain as getval
from tracer.core import Tensor as Box

__all__ = ["Box", "getval", "isbox", "notrace_primitive", "primitive"]
