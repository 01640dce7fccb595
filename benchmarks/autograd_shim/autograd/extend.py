"""autograd's API for extending it: primitives and their derivative rules."""

from autograd._primitives import (def_linear, defjvp, defjvp_argnum, defjvp_argnums, defvjp,
                                  defvjp_argnum, defvjp_argnums, notrace_primitive, primitive)
from autograd._spaces import VSpace, vspace
from tracer.core import Tensor as Box

__all__ = ["Box", "VSpace", "def_linear", "defjvp", "defjvp_argnum", "defjvp_argnums", "defvjp",
           "defvjp_argnum", "defvjp_argnums", "notrace_primitive", "primitive", "vspace"]
