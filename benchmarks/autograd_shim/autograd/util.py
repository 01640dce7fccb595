"""autograd's small helpers, and its deprecated ``quick_grad_check``."""

import warnings


def subvals(x, pairs):
    items = list(x)
    for i, v in pairs:
        items[i] = v
    return tuple(items)


def subval(x, i, v):
    return subvals(x, [(i, v)])


def quick_grad_check(fun, arg0, extra_args=(), kwargs={}, verbose=True, eps=1e-4, rtol=1e-4,
                     atol=1e-6, rs=None):
    """Deprecated in autograd: a first-order reverse-mode ``check_grads``."""
    warnings.warn("The quick_grad_check function is deprecated.")
    from autograd.test_util import check_grads
    check_grads(lambda x: fun(x, *extra_args, **kwargs), modes=["rev"], order=1)(arg0)
