"""autograd's ``primitive`` and ``defvjp``: functions whose derivative the user writes,
on ``tracer.custom_gradient``.

As in autograd, the function itself runs on plain values, and its VJP makers
get the traced arguments and result, so that outer derivatives see through
them (every tape tracking an argument records the call with the user's rule).
Forward mode transposes the VJP: tapegen has no user-defined JVP rules, so
``defjvp`` rules are kept but not used.
"""

import functools

import numpy as np

import tracer
from autograd import _usage
from autograd._spaces import vspace
from autograd._values import conj, is_traced, plain
from autograd.util import subval

primitive_vjps = {}
primitive_jvps = {}


class Primitive:
    """A function with user-defined derivative rules (``defvjp`` and friends)."""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vjps = {}
        self.vjp_argnum = None
        self.vjp_argnums = None

    def __call__(self, *args, **kwargs):
        argnums = tuple(k for k, a in enumerate(args) if is_traced(a))
        if not argnums:
            return self.fun(*args, **kwargs)
        _usage.note_custom_rule()
        return _apply(self, args, kwargs, argnums)

    def __get__(self, instance, owner):
        return self if instance is None else functools.partial(self, instance)

    def vjp(self, argnums, ans, args, kwargs, g):
        """The cotangents of the traced arguments, in autograd's convention."""
        if self.vjp_argnums is not None:
            return tuple(self.vjp_argnums(argnums, ans, args, kwargs)(g))
        if self.vjp_argnum is not None:
            return tuple(self.vjp_argnum(k, ans, args, kwargs)(g) for k in argnums)
        missing = [k for k in argnums if k not in self.vjps]
        if missing:
            raise NotImplementedError(f"VJP of {self.__name__} wrt argnums {tuple(missing)} "
                                      "not defined")
        return tuple(np.zeros_like(plain(args[k])) if self.vjps[k] is None
                     else self.vjps[k](ans, *args, **kwargs)(g) for k in argnums)

    # autograd's deprecated ways of defining rules on the primitive itself
    def defgrad(self, gradmaker, argnum=0):
        self.vjps[argnum] = gradmaker

    def defvjp(self, vjpfun, argnum=0):
        self.vjps[argnum] = lambda ans, *args, **kwargs: (
            lambda g: vjpfun(g, ans, vspace(args[argnum]), vspace(ans), *args, **kwargs))

    def defvjp_is_zero(self, argnums=(0,)):
        for k in argnums:
            self.vjps[k] = None


def _apply(prim, args, kwargs, argnums):
    """One call recorded as a ``custom_gradient`` op whose VJP is the user's."""
    made = {}

    @tracer.custom_gradient
    def call(*traced):
        ans = prim.fun(*[plain(a) for a in args], **kwargs)

        def grad_fn(upstream):
            # Forward mode transposes this rule during the call, before "out" exists.
            grads = prim.vjp(argnums, made.get("out", ans), args, kwargs, conj(upstream))
            return [conj(g) for g in grads]
        return ans, grad_fn

    made["out"] = call(*[args[k] for k in argnums])
    return made["out"]


def primitive(fun):
    return fun if isinstance(fun, Primitive) else Primitive(fun)


def defvjp(fun, *vjpmakers, argnums=None):
    argnums = range(len(vjpmakers)) if argnums is None else argnums
    for k, maker in zip(argnums, vjpmakers):
        fun.vjps[k] = maker
    primitive_vjps[fun] = fun.vjps


def defvjp_argnum(fun, vjpmaker):
    fun.vjp_argnum = vjpmaker
    primitive_vjps[fun] = vjpmaker


def defvjp_argnums(fun, vjpmaker):
    fun.vjp_argnums = vjpmaker
    primitive_vjps[fun] = vjpmaker


def defjvp(fun, *jvpmakers, argnums=None):
    primitive_jvps[fun] = jvpmakers


def defjvp_argnum(fun, jvpmaker):
    primitive_jvps[fun] = jvpmaker


defjvp_argnums = defjvp_argnum


def def_linear(fun):
    """autograd's JVP of a function linear in each argument: the function of the tangent."""
    defjvp_argnum(fun, lambda argnum, g, ans, args, kwargs:
                  fun(*subval(args, argnum, g), **kwargs))


def notrace_primitive(fun):
    """A function of plain values: tensors are unwrapped before the call."""
    @functools.wraps(fun)
    def plain_call(*args, **kwargs):
        return fun(*[plain(a) for a in args], **kwargs)
    return plain_call
