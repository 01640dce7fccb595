"""autograd's gradient checks: each derivative against central differences, by the
inner-product identity ``<u, J v>``, in forward and reverse mode, recursively to
the requested order.  Same tolerances and steps as autograd's."""

import itertools

from autograd._engine import make_jvp, make_vjp
from autograd._spaces import vspace
from autograd.wrap_util import get_name, unary_to_nary

TOL = 1e-6
RTOL = 1e-6
EPS = 1e-6


def scalar_close(a, b):
    return abs(a - b) < TOL or abs(a - b) / abs(a + b) < RTOL


def make_numerical_jvp(f, x):
    y = f(x)
    x_vs, y_vs = vspace(x), vspace(y)

    def jvp(v):
        f_plus = f(x_vs.add(x, x_vs.scalar_mul(v, EPS / 2)))
        f_minus = f(x_vs.add(x, x_vs.scalar_mul(v, -EPS / 2)))
        difference = y_vs.add(f_plus, y_vs.scalar_mul(f_minus, -1.0))
        return y_vs.scalar_mul(difference, 1.0 / EPS)
    return jvp


def check_vjp(f, x):
    vjp, y = make_vjp(f, x)
    jvp = make_numerical_jvp(f, x)
    x_vs, y_vs = vspace(x), vspace(y)
    x_v, y_v = x_vs.randn(), y_vs.randn()
    vjp_y = x_vs.covector(vjp(y_vs.covector(y_v)))
    assert vspace(vjp_y) == x_vs, f"VJP of {get_name(f)} is in {vspace(vjp_y)}, not {x_vs}"
    exact = x_vs.inner_prod(x_v, vjp_y)
    numeric = y_vs.inner_prod(y_v, jvp(x_v))
    assert scalar_close(numeric, exact), (
        f"Derivative (VJP) check of {get_name(f)} failed with arg {x}:\n"
        f"analytic: {exact}\nnumeric:  {numeric}")


def check_jvp(f, x):
    jvp = make_jvp(f, x)
    numeric = make_numerical_jvp(f, x)
    x_v = vspace(x).randn()
    check_equivalent(jvp(x_v)[1], numeric(x_v))


def check_equivalent(x, y):
    x_vs, y_vs = vspace(x), vspace(y)
    assert x_vs == y_vs, f"VSpace mismatch:\nx: {x_vs}\ny: {y_vs}"
    v = x_vs.randn()
    assert scalar_close(x_vs.inner_prod(x, v), x_vs.inner_prod(y, v)), (
        f"Value mismatch:\nx: {x}\ny: {y}")


@unary_to_nary
def check_grads(f, x, modes=["fwd", "rev"], order=2):
    assert all(m in ["fwd", "rev"] for m in modes)
    if "fwd" in modes:
        check_jvp(f, x)
        if order > 1:
            def jvp_f(x, v):
                return make_jvp(f, x)(v)[1]
            jvp_f.__name__ = f"jvp_{get_name(f)}"
            check_grads(jvp_f, (0, 1), modes, order=order - 1)(x, vspace(x).randn())
    if "rev" in modes:
        check_vjp(f, x)
        if order > 1:
            def vjp_f(x, v):
                return make_vjp(f, x)[0](v)
            vjp_f.__name__ = f"vjp_{get_name(f)}"
            check_grads(vjp_f, (0, 1), modes, order=order - 1)(x, vspace(f(x)).randn())


def combo_check(fun, *args, **kwargs):
    """``check_grads`` at every combination of the given arguments and keyword values."""
    def check(*arg_lists, **kwarg_lists):
        choices = [[(k, v) for v in values] for k, values in kwarg_lists.items()]
        for arguments in itertools.product(*arg_lists):
            for keywords in itertools.product(*choices):
                check_grads(fun, *args, **kwargs)(*arguments, **dict(keywords))
    return check
