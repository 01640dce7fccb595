"""autograd's ``unary_to_nary``: an operator on functions of one argument, lifted to
functions of many, with ``argnum`` choosing the argument (or a tuple of them) and
the names and docstrings autograd gives the results."""

import functools

from autograd.util import subvals

NARY_DOC = """\
    {op} of function {fun} with respect to argument number {argnum}. Takes the
    same arguments as {fun} but returns the {op}.
    """


def get_name(f):
    return getattr(f, "__name__", "[unknown name]")


def get_doc(f):
    return getattr(f, "__doc__", "")


def unary_to_nary(unary_operator):
    @functools.wraps(unary_operator)
    def nary_operator(fun, argnum=0, *op_args, **op_kwargs):
        assert type(argnum) in (int, tuple, list), argnum

        def nary_f(*args, **kwargs):
            def unary_f(x):
                pairs = [(argnum, x)] if isinstance(argnum, int) else zip(argnum, x)
                return fun(*subvals(args, pairs), **kwargs)
            _rename(unary_f, get_name(fun), get_doc(fun))
            x = args[argnum] if isinstance(argnum, int) else tuple(args[i] for i in argnum)
            return unary_operator(unary_f, x, *op_args, **op_kwargs)

        op = get_name(unary_operator)
        _rename(nary_f, f"{op}_of_{get_name(fun)}_wrt_argnum_{argnum}",
                NARY_DOC.format(op=op, fun=get_name(fun), argnum=argnum))
        return nary_f

    return nary_operator


def _rename(f, name, doc):
    f.__name__ = name
    f.__doc__ = doc
