"""A stand-in for autograd 1.9.1 built on tapegen, so that autograd's own test suite
measures tapegen (``benchmarks/autograd_suite.py``).

``autograd.numpy`` is numpy, ``autograd.scipy`` is ``tracer.scipy``, and the
differential operators take their derivatives with tapes, forward
accumulators and tapegen's Hessians (eager mode), or with modules generated
from a tape (``AUTOGRAD_SHIM_MODE=generated``).  autograd's internals (boxes,
its tracer, graph caching) have no counterpart.
"""

from autograd import _aliases

_aliases.install()

from autograd._primitives import primitive  # noqa: E402
from autograd.builtins import dict, isinstance, list, tuple, type  # noqa: E402
from autograd.differential_operators import (  # noqa: E402
    checkpoint, deriv, elementwise_grad, grad, grad_and_aux, grad_named, hessian,
    hessian_tensor_product, hessian_vector_product, holomorphic_grad, jacobian, make_ggnvp,
    make_hvp, make_jvp, make_vjp, multigrad_dict, tensor_jacobian_product, value_and_grad,
    vector_jacobian_product)

__all__ = ["checkpoint", "deriv", "dict", "elementwise_grad", "grad", "grad_and_aux",
           "grad_named", "hessian", "hessian_tensor_product", "hessian_vector_product",
           "holomorphic_grad", "isinstance", "jacobian", "list", "make_ggnvp", "make_hvp",
           "make_jvp", "make_vjp", "multigrad_dict", "primitive", "tensor_jacobian_product",
           "tuple", "type", "value_and_grad", "vector_jacobian_product"]
