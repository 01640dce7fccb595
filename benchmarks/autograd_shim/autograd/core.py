"""autograd's core names, on the shim: ``make_vjp``, ``make_jvp``, ``vspace`` and the
rule registries (see ``autograd._primitives``)."""

from autograd._engine import make_jvp, make_vjp
from autograd._primitives import (Primitive, def_linear, defjvp, defjvp_argnum, defjvp_argnums,
                                  defvjp, defvjp_argnum, defvjp_argnums, primitive,
                                  primitive_jvps, primitive_vjps)
from autograd._spaces import VSpace, vspace

primitive_with_deprecation_warnings = primitive

__all__ = ["Primitive", "VSpace", "def_linear", "defjvp", "defjvp_argnum", "defjvp_argnums",
           "defvjp", "defvjp_argnum", "defvjp_argnums", "make_jvp", "make_vjp", "primitive",
           "primitive_jvps", "primitive_vjps", "primitive_with_deprecation_warnings", "vspace"]
