"""autograd's differential operators, each a few lines over ``autograd._engine``.

``grad``, ``jacobian``, ``hessian`` and Hessian-vector products go to tapegen's
own (``tape.gradient``, ``tape.jacobian``, ``tracer.hessian``, ``tracer.hvp`` or
the matching ``codegen`` modules); the others are autograd's compositions of
``make_vjp`` and ``make_jvp``.
"""

import inspect
import warnings

import numpy as np

from autograd import _engine
from autograd._spaces import vspace
from autograd._values import plain
from autograd.util import subval
from autograd.wrap_util import unary_to_nary

make_vjp = unary_to_nary(_engine.make_vjp)
make_jvp = unary_to_nary(_engine.make_jvp)
jacobian = unary_to_nary(_engine.jacobian)
hessian = unary_to_nary(_engine.hessian)

SCALAR_ONLY = ("{} only applies to real scalar-output functions. Try jacobian, "
               "elementwise_grad or holomorphic_grad.")


@unary_to_nary
def grad(fun, x):
    """
    Returns a function which computes the gradient of `fun` with respect to
    positional argument number `argnum`. The returned function takes the same
    arguments as `fun`, but returns the gradient instead. The function `fun`
    should be scalar-valued. The gradient has the same type as the argument."""
    vjp, ans = _engine.make_vjp(fun, x)
    if vspace(ans).size != 1:
        raise TypeError(SCALAR_ONLY.format("Grad"))
    return vjp(vspace(ans).ones())


@unary_to_nary
def elementwise_grad(fun, x):
    """The sum of each column of the Jacobian of `fun`, in one pass."""
    vjp, ans = _engine.make_vjp(fun, x)
    if vspace(ans).iscomplex:
        raise TypeError("Elementwise_grad only applies to real-output functions.")
    return vjp(vspace(ans).ones())


@unary_to_nary
def deriv(fun, x):
    return _engine.make_jvp(fun, x)(vspace(x).ones())[1]


@unary_to_nary
def holomorphic_grad(fun, x):
    if not vspace(x).iscomplex:
        warnings.warn("Input to holomorphic_grad is not complex")
    return grad(lambda x: np.real(fun(x)))(x)


def grad_named(fun, argname):
    """The gradient with respect to a named argument."""
    return grad(fun, inspect.getfullargspec(fun).args.index(argname))


@unary_to_nary
def make_hvp(fun, x):
    """``(hvp, grad(fun)(x))``: the VJP of the gradient, which is ``H v``."""
    return _engine.make_vjp(grad(fun), x)


def hessian_tensor_product(fun, argnum=0):
    """``(*args, tensor) -> H . tensor``; tapegen's Hessian-vector product when the
    tensor has the argument's shape, autograd's composition otherwise."""
    fun_grad = grad(fun, argnum)

    def vector_dot_grad(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return np.tensordot(fun_grad(*args, **kwargs), vector, np.ndim(vector))

    contracted = grad(vector_dot_grad, argnum)

    def product(*args, **kwargs):
        head, vector = args[:-1], args[-1]
        if np.shape(plain(vector)) != np.shape(plain(head[argnum])):
            return contracted(*args, **kwargs)
        return _engine.hessian_vector_product(
            lambda x: fun(*subval(head, argnum, x), **kwargs), head[argnum], vector)
    return product


hessian_vector_product = hessian_tensor_product


def tensor_jacobian_product(fun, argnum=0):
    """``(*args, tensor) -> tensor . J``."""
    def vector_dot_fun(*args, **kwargs):
        args, vector = args[:-1], args[-1]
        return np.tensordot(vector, fun(*args, **kwargs), axes=np.ndim(vector))
    return jacobian(vector_dot_fun, argnum)


vector_jacobian_product = tensor_jacobian_product


@unary_to_nary
def make_jvp_reversemode(fun, x):
    vjp, y = _engine.make_vjp(fun, x)
    vjp_vjp, _ = _engine.make_vjp(vjp, vspace(y).zeros())
    return vjp_vjp


def make_ggnvp(f, g=lambda x: 1.0 / 2 * np.sum(x**2, axis=-1), f_argnum=0):
    """Generalized-Gauss-Newton-vector products, as autograd composes them."""
    @unary_to_nary
    def _make_ggnvp(f, x):
        f_vjp, f_x = _engine.make_vjp(f, x)
        g_hvp, grad_g_x = _engine.make_vjp(grad(g), f_x)
        f_jvp, _ = _engine.make_vjp(f_vjp, vspace(grad_g_x).zeros())

        def ggnvp(v):
            return f_vjp(g_hvp(f_jvp(v)))
        return ggnvp
    return _make_ggnvp(f, f_argnum)


@unary_to_nary
def value_and_grad(fun, x):
    """Both the value and the gradient of a scalar `fun`."""
    vjp, ans = _engine.make_vjp(fun, x)
    if vspace(ans).size != 1:
        raise TypeError(SCALAR_ONLY.format("value_and_grad"))
    return ans, vjp(vspace(ans).ones())


@unary_to_nary
def grad_and_aux(fun, x):
    """The gradient of the first output and the second output, unchanged."""
    vjp, (ans, aux) = _engine.make_vjp(lambda x: tuple(fun(x)), x)
    return vjp((vspace(ans).ones(), vspace(aux).zeros())), aux


def multigrad_dict(fun):
    """Gradients with respect to all arguments, as a dict by argument name."""
    signature = inspect.signature(fun)

    def gradfun(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        return grad(lambda named: fun(**named))(arguments)
    return gradfun


def checkpoint(fun):
    """The function itself: tapegen keeps a plain function's intermediates (it
    checkpoints only loops), so the derivatives are the same, at full memory."""
    return fun
