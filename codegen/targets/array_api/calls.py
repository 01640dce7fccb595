"""numpy calls the ``array_api`` target spells otherwise than by the same name: by the
standard's formula for them, by ``array_api_extra``, or by scipy's array-API dispatch.
Each spelling takes the statement's ``_Spelling`` (for its refusals and what it knows
of names) and the call's node."""

import ast

from codegen.targets.array_api.syntax import DEVICE, is_number, xp_call

SCIPY_SPECIAL = frozenset((
    "erf", "erfc", "erfinv", "erfcx", "ndtr", "ndtri", "log_ndtr", "digamma", "gammaln",
    "gamma", "loggamma", "poch", "betaln", "expit", "logit", "xlogy", "xlog1py", "entr",
    "kl_div", "i0", "i0e", "i1", "i1e", "gammainc", "gammaincc", "betainc", "gammasgn", "zeta",
    "expi", "exp1", "expn", "spence", "boxcox", "boxcox1p"))
"""scipy.special functions that scipy computes in the arguments' namespace (with
SCIPY_ARRAY_API=1) on every library it supports, ``jax.jit`` included."""


def _call(name, args, keywords=()):
    """A call of ``name`` (dotted: ``xpx.pad``)."""
    head, *rest = name.split(".")
    func = ast.Name(head)
    for part in rest:
        func = ast.Attribute(func, part)
    keywords = [k if isinstance(k, ast.keyword) else ast.keyword(*k) for k in keywords]
    return ast.Call(func, list(args), keywords)


def _arguments(node, names, defaults):
    """The call's arguments by parameter name (numpy's order ``names``)."""
    given = dict(zip(names, node.args))
    given.update({k.arg: k.value for k in node.keywords})
    return {name: given.get(name, defaults.get(name)) for name in names}


def _diagonal(spelling, node):
    """``np.diagonal(a, offset, axis1, axis2)``: the two axes moved last, for the
    standard's ``linalg.diagonal``."""
    given = _arguments(node, ("a", "offset", "axis1", "axis2"),
                       {"offset": ast.Constant(0), "axis1": ast.Constant(0),
                        "axis2": ast.Constant(1)})
    moved = xp_call("moveaxis", [given["a"], ast.Tuple([given["axis1"], given["axis2"]]),
                                 ast.Tuple([ast.Constant(-2), ast.Constant(-1)])], [])
    return xp_call("linalg.diagonal", [moved], [("offset", given["offset"])])


def _pad(spelling, node):
    """``np.pad`` with zeros or a constant: ``array_api_extra.pad``."""
    if len(node.args) > 2 or any(k.arg not in ("constant_values",) for k in node.keywords):
        raise spelling.refused("np.pad")
    return _call("xpx.pad", node.args, node.keywords)


def _einsum(spelling, node):
    """``np.einsum`` as the ``_einsum`` helper's chain of ``matmul``s, where each index
    is a letter that no operand repeats."""
    subscripts = node.args[0]
    text = subscripts.value if isinstance(subscripts, ast.Constant) else None
    if not isinstance(text, str) or "->" not in text or "." in text or any(
            len(set(term)) != len(term) for term in text.split("->")[0].split(",")):
        raise spelling.refused("np.einsum")
    return _call("_einsum", node.args)


def _sorting(standard):
    def spelled(spelling, node):
        """``np.sort`` and ``np.argsort``: the standard's sorts are stable unless told."""
        keywords = [k for k in node.keywords if k.arg != "kind"]
        return xp_call(standard, node.args, keywords)
    return spelled


def _two_axes(standard):
    def spelled(spelling, node):
        """``np.fft.fft2(a, s, axes, norm)``: the standard's n-dimensional transform over
        the last two axes, its arguments by keyword."""
        given = _arguments(node, ("a", "s", "axes", "norm"),
                           {"axes": ast.Tuple([ast.Constant(-2), ast.Constant(-1)])})
        keywords = [(k, v) for k, v in given.items() if k != "a" and v is not None]
        return xp_call(standard, [given["a"]], keywords)
    return spelled


def _norm(spelling, node):
    """``np.linalg.norm`` without ``ord``: the 2-norm of the vectors along ``axis`` (the
    Frobenius norm, for two axes), the standard's ``vector_norm``."""
    if len(node.args) > 1 or any(k.arg == "ord" for k in node.keywords):
        raise spelling.refused("np.linalg.norm")
    return xp_call("linalg.vector_norm", node.args, node.keywords)


def _scipy_special(spelling, node):
    """A scipy.special call, its number arguments made arrays like its array arguments
    (PyTorch's functions, to which scipy hands the call, take no Python numbers)."""
    arrays = [a for a in node.args if not is_number(a, spelling.names.numbers)]
    if not arrays or len(arrays) == len(node.args):
        return node
    like = ast.Attribute(arrays[0], "dtype")
    node.args = [xp_call("asarray", [a], [("dtype", like), ("device", ast.Name(DEVICE))])
                 if is_number(a, spelling.names.numbers) else a for a in node.args]
    return node


def _swapped(spelling, node):
    """``np.swapaxes(x, i, j)``: the last two, a matrix transpose; others moved."""
    x, i, j = node.args
    if sorted([ast.literal_eval(i), ast.literal_eval(j)]) == [-2, -1]:
        return xp_call("matrix_transpose", [x], [])
    return xp_call("moveaxis", [x, ast.Tuple([i, j]), ast.Tuple([j, i])], [])


def _svd(spelling, node):
    """``np.linalg.svd(a, compute_uv=False)`` is the standard's ``svdvals``."""
    keywords = {k.arg: k.value for k in node.keywords}
    if isinstance(keywords.get("compute_uv"), ast.Constant):
        return xp_call("linalg.svdvals", node.args, [])
    return xp_call("linalg.svd", node.args, list(keywords.items()))


def _length(spelling, node):
    """``len(x)`` of an array, which the standard does not define: ``x.shape[0]``."""
    return ast.Subscript(ast.Attribute(node.args[0], "shape"), ast.Constant(0))


def _created(standard):
    def spelled(spelling, node):
        """``np.empty(shape, dtype)``, ``np.full(shape, value, dtype)``: the standard
        takes the dtype by name, and a device."""
        given = 2 if standard == "full" else 1
        keywords = list(node.keywords) + [ast.keyword("device", ast.Name(DEVICE))]
        if len(node.args) > given:
            keywords.append(ast.keyword("dtype", node.args[given]))
        elif not any(k.arg == "dtype" for k in node.keywords) and (
                standard != "full" or isinstance(node.args[1], ast.Constant)):
            keywords.append(ast.keyword("dtype", _numpys_default_dtype(node, standard)))
        return xp_call(standard, node.args[:given], keywords)
    return spelled


def _numpys_default_dtype(node, standard):
    """The dtype numpy gives an array made without one (float64, or for ``full`` the
    fill value's), which the namespace's default (float32 in PyTorch) may not be."""
    value = node.args[1].value if standard == "full" else 0.0
    name = {bool: "bool", int: "int64", complex: "complex128"}.get(type(value), "float64")
    return ast.Attribute(ast.Name("xp"), name)


def _lower_triangle(name):
    """``np.linalg.eigh`` or ``eigvalsh`` of the lower triangle; the standard's take no
    ``UPLO``, so numpy's ``UPLO='U'`` is refused."""
    def spelled(spelling, node):
        if node.keywords or len(node.args) > 1:
            raise spelling.refused(f"np.linalg.{name}(UPLO='U')", "UPLO='U'")
        return xp_call(f"linalg.{name}", node.args, [])
    return spelled


def _asarray(spelling, node):
    """An array of arrays is their stack; of numbers, an array on the device."""
    items = node.args[0] if node.args else None
    if isinstance(items, (ast.List, ast.Tuple)) and not all(
            is_number(e, spelling.names.numbers) or isinstance(e, (ast.List, ast.Tuple))
            for e in items.elts):
        return xp_call("stack", node.args, node.keywords)
    return xp_call("asarray", node.args, list(node.keywords) + [("device", ast.Name(DEVICE))])


SPECIAL_CALLS = {
    "np.swapaxes": _swapped, "np.linalg.svd": _svd, "np.asarray": _asarray,
    "np.array": _asarray, "len": _length,
    "np.linalg.eigh": _lower_triangle("eigh"), "np.linalg.eigvalsh": _lower_triangle("eigvalsh"),
    **{f"np.{name}": _created(name) for name in ("empty", "zeros", "ones", "full")},
    "np.sort": _sorting("sort"), "np.argsort": _sorting("argsort"),
    "np.diagonal": _diagonal, "np.pad": _pad,
    **{f"np.fft.{name}2": _two_axes(f"fft.{name}n") for name in ("fft", "ifft", "rfft", "irfft")}, "np.einsum": _einsum, "np.linalg.norm": _norm,
    **{f"scipy.special.{name}": _scipy_special for name in SCIPY_SPECIAL},
}
"""numpy calls and their spellings."""
