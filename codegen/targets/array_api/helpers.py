"""Helper functions of ``array_api`` modules, written in the standard's terms: the
scatters, triangles, diagonals and contractions numpy has and the standard lacks.

They are functions of the generated module, not of this package: their source is
copied into a module that calls them (``helper_source``), where ``array_api_compat`` (and
``array_api_extra``) are imported, which tapegen itself does not need; so here the
names those give (``array_namespace``, ``xpx``, ``_device_of``...) are unbound.  A
module gets the ones its body calls, and each replaces the numpy target's helper of
the same name.
"""

import inspect

AT_IMPORT = "import array_api_extra as xpx"
SCIPY_IMPORT = "import scipy.special"

def _one_namespace(args):
    """The arguments' namespace, and the arguments in it: numpy arrays beside arrays of one
    other library become that library's, on its arrays' device (JAX, Dask and PyTorch
    take numpy operands beside their own alike); Python numbers stay as they are."""
    try:
        return array_namespace(*args), args
    except TypeError:  # (arrays of several libraries, or a value that is no array)
        pass
    names, first = {}, {}
    for (name, _, _), value in zip(INPUTS, args):
        if is_numpy_array(value) or isinstance(value, (int, float, complex)):
            continue
        try:
            xp = array_namespace(value)
        except TypeError:
            raise TypeError(f"{name}: expected an array, got {type(value).__name__}") from None
        names.setdefault(xp, []).append(name)
        first.setdefault(xp, value)
    if not names:
        raise TypeError(f"{', '.join(n for n, _, _ in INPUTS)}: expected arrays, got Python "
                        "numbers alone")
    if len(names) > 1:
        found = "; ".join(f"{', '.join(n)} from {xp.__name__.removeprefix('array_api_compat.')}"
                          for xp, n in names.items())
        raise TypeError(
            f"{found}: arguments of several array libraries, but the module computes in one. "
            "Pass arrays of one library (numpy arrays may go beside it: they are converted)")
    xp, value = next(iter(first.items()))
    on = _device_of(value)
    return xp, [xp.asarray(v, device=on) if is_numpy_array(v) else v for v in args]



def _scatter(values, shape, index):
    """Zeros of ``shape`` with ``values`` written at ``index``: a pad where the index is
    slices and integers (compilers make better code of a pad than of an index update)."""
    xp = array_namespace(values)
    values, index, chosen = _basic_index(xp, values, shape, index)
    padded = _as_pad(xp, values, shape, index) if chosen is None else None
    if padded is not None:
        return xpx.pad(*padded)
    zeros = xp.zeros(shape, dtype=values.dtype, device=_device_of(values))
    written = xpx.at(zeros, index).set(values)
    return written if chosen is None else xp.where(chosen, written, xp.zeros_like(written))



def _as_pad(xp, values, shape, index):
    """``values`` whole and the widths that pad them into zeros of ``shape`` at ``index``,
    an index of slices of step 1, integers and ``...``; else ``None``."""
    spread = len(shape) - sum(part is not Ellipsis for part in index)
    parts = [p for part in index for p in ([slice(None)] * spread if part is Ellipsis
                                           else [part])]
    if len(parts) != len(shape):
        return None
    widths, sizes, dropped = [], [], []
    for axis, (part, size) in enumerate(zip(parts, shape)):
        if isinstance(part, int) and not isinstance(part, bool):
            part, dropped = slice(part % size, part % size + 1), dropped + [axis]
        if not isinstance(part, slice) or (part.step or 1) != 1:
            return None
        start, stop, _ = part.indices(size)
        widths.append((start, size - max(stop, start)))
        sizes.append(max(stop, start) - start)
    values = xp.broadcast_to(values, tuple(n for a, n in enumerate(sizes) if a not in dropped))
    for axis in dropped:
        values = xp.expand_dims(values, axis=axis)
    return values, widths



def _scatter_add(values, shape, index):
    """Zeros of ``shape`` with ``values`` added at ``index`` (a basic index: no repeats)."""
    return _scatter(values, shape, index)



def _basic_index(xp, values, shape, index):
    """``values`` and ``index`` as the standard's basic indexing writes them, and where
    they land.  A slice that steps backwards (PyTorch's tensors take none) is read
    forwards, ``values`` reversed along its axis.  A loop counter (a 0-d integer array,
    which the standard's indexing takes only beside other integers) becomes its whole
    axis, ``values`` spread along it; ``chosen`` then masks the positions it does not
    point at (``None``: no counter)."""
    consumed = sum(part is not None and part is not Ellipsis for part in index)
    spread = len(shape) - consumed if any(part is Ellipsis for part in index) else 0
    rank = sum(part is None or isinstance(part, slice) for part in index) + spread
    basic, chosen, array_axis, value_axis = list(index), None, 0, 0
    for k, part in enumerate(index):
        if part is Ellipsis:
            array_axis, value_axis = array_axis + spread, value_axis + spread
            continue
        if isinstance(part, slice) and (part.step or 1) < 0:
            steps = range(shape[array_axis])[part]
            if len(steps):
                basic[k] = slice(steps[-1], steps[0] + 1, -steps.step)
                if value_axis - rank >= -values.ndim:
                    values = xp.flip(values, axis=value_axis - rank)
        elif part is not None and not isinstance(part, (int, slice)):
            basic[k], rank = slice(None), rank + 1
            if value_axis - rank >= -values.ndim - 1:
                values = xp.expand_dims(values, axis=value_axis - rank)
            points = xp.arange(shape[array_axis], device=_device_of(values)) == part
            points = xp.reshape(points, (-1,) + (1,) * (len(shape) - array_axis - 1))
            chosen = points if chosen is None else xp.logical_and(chosen, points)
        array_axis += part is not None
        value_axis += isinstance(basic[k], slice) or part is None
    return values, tuple(basic), chosen



def _scatter_add_along_axis(values, indices, axis, shape):
    """Zeros of ``shape`` with ``values`` added where ``take_along_axis(_, indices, axis)``
    reads them.  Repeated indices add up: each value is matched to its place by comparing
    its index with every position, which the standard can say (it has no scatter-add)."""
    xp = array_namespace(values, indices)
    positions = xp.arange(shape[axis], device=_device_of(values))
    indices = xp.moveaxis(xp.broadcast_to(indices, values.shape), axis, -1)
    matches = xp.astype(xp.expand_dims(indices, axis=-1) == positions, values.dtype)
    values = xp.expand_dims(xp.moveaxis(values, axis, -1), axis=-1)
    added = xp.moveaxis(xp.sum(values * matches, axis=-2), -1, axis)
    spread = tuple(k for k, n in enumerate(shape) if n == 1 and added.shape[k] != 1)
    return xp.sum(added, axis=spread, keepdims=True) if spread else added



def _embed_diagonal(values, shape, offset, axis1, axis2):
    """Zeros of ``shape`` with ``values`` on the diagonal that
    ``diagonal(_, offset, axis1, axis2)`` reads (its last axis runs along it)."""
    xp = array_namespace(values)
    on = _device_of(values)
    rows = xp.arange(shape[axis1], device=on)
    columns = xp.arange(shape[axis2], device=on)
    on_diagonal = columns - xp.reshape(rows, (-1, 1)) == offset
    before = max(-offset, 0)
    by_row = xpx.pad(values, [(0, 0)] * (values.ndim - 1)
                     + [(before, shape[axis1] - before - values.shape[-1])])
    matrices = xp.where(on_diagonal, xp.expand_dims(by_row, axis=-1),
                        xp.zeros_like(xp.expand_dims(by_row, axis=-1)))
    return xp.moveaxis(matrices, (-2, -1), (axis1, axis2))



def _diag(v, k=0):
    """numpy's ``diag``: the matrix with vector ``v`` on its ``k``-th diagonal, or the
    ``k``-th diagonal of matrix ``v``."""
    if v.ndim == 2:
        return array_namespace(v).linalg.diagonal(v, offset=k)
    return _embed_diagonal(v, (v.shape[0] + abs(k),) * 2, k, 0, 1)



def _tril(x, k=0):
    """The lower triangle of each matrix in ``x``, from its ``k``-th diagonal down."""
    return _triangle(x, lambda row, column: column <= row + k)



def _triu(x, k=0):
    """The upper triangle of each matrix in ``x``, from its ``k``-th diagonal up."""
    return _triangle(x, lambda row, column: column >= row + k)



def _triangle(x, keeps):
    """``x`` where ``keeps(row, column)`` holds, else zero."""
    xp = array_namespace(x)
    rows = xp.reshape(xp.arange(x.shape[-2], device=_device_of(x)), (-1, 1))
    columns = xp.arange(x.shape[-1], device=_device_of(x))
    return xp.where(keeps(rows, columns), x, xp.zeros_like(x))



def _sinc(x):
    """numpy's ``sinc``, ``sin(pi x) / (pi x)`` and 1 at 0, for complex ``x`` too."""
    xp = array_namespace(x)
    at_zero = x == 0
    angle = math.pi * xp.where(at_zero, xp.ones_like(x), x)
    return xp.where(at_zero, xp.ones_like(x), xp.sin(angle) / angle)



def _imag(x):
    """The imaginary part, zero for real ``x`` (the standard's ``imag`` takes complex alone)."""
    xp = array_namespace(x)
    return xp.imag(x) if xp.isdtype(x.dtype, "complex floating") else xp.zeros_like(x)



def _float_power(base, exponent):
    """numpy's ``float_power``: a power computed in float64, or complex128."""
    xp = array_namespace(base, exponent)
    complex_ = any(xp.isdtype(v.dtype, "complex floating") for v in (base, exponent))
    dtype = xp.complex128 if complex_ else xp.float64
    return xp.pow(xp.astype(base, dtype), xp.astype(exponent, dtype))



def _cofactors(a):
    """The cofactor matrix ``adj(a).T``, also at singular matrices: for
    ``a = u @ diag(s) @ vh``, ``det(u) det(vh) conj(u) @ diag(products of the other s) @
    conj(vh)``."""
    xp = array_namespace(a)
    u, s, vh = xp.linalg.svd(a)
    ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype, device=_device_of(a))
    before = xp.cumulative_prod(xp.concat([ones, s[..., :-1]], axis=-1), axis=-1)
    after = xp.flip(xp.cumulative_prod(
        xp.concat([ones, xp.flip(s, axis=-1)[..., :-1]], axis=-1), axis=-1), axis=-1)
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    others = xp.expand_dims(xp.astype(before * after, u.dtype), axis=-2)
    return xp.reshape(sign, sign.shape + (1, 1)) * ((xp.conj(u) * others) @ xp.conj(vh))



def _einsum(subscripts, *operands):
    """numpy's ``einsum`` (indices named by letters, each once per operand) as the standard
    writes it: operands taken two at a time, their shared indices summed by one ``matmul``
    and indices no later operand or the output names summed first."""
    xp = array_namespace(*operands)
    inputs, output = subscripts.split("->")
    terms = list(zip(inputs.split(","), operands))
    indices, value = terms[0]
    for k, (other_indices, other) in enumerate(terms[1:], 2):
        later = output + "".join(index for index, _ in terms[k:])
        indices, value = _summed_out(xp, indices, value, other_indices + later)
        other_indices, other = _summed_out(xp, other_indices, other, indices + later)
        indices, value = _matmul(xp, indices, value, other_indices, other, later)
    indices, value = _summed_out(xp, indices, value, output)
    return xp.permute_dims(value, tuple(indices.index(i) for i in output))



def _summed_out(xp, indices, value, kept):
    """``value`` summed over its ``indices`` that ``kept`` does not name."""
    axes = tuple(k for k, index in enumerate(indices) if index not in kept)
    if axes:
        value = xp.sum(value, axis=axes)
    return "".join(index for index in indices if index in kept), value



def _matmul(xp, a_indices, a, b_indices, b, later):
    """The product of ``a`` and ``b`` summed over the indices they share that ``later``
    does not name, as one batched ``matmul``, and the indices of its axes."""
    size = dict(zip(a_indices + b_indices, a.shape + b.shape))
    batch = [i for i in a_indices if i in b_indices and i in later]
    shared = [i for i in a_indices if i in b_indices and i not in later]
    rows = [i for i in a_indices if i not in b_indices]
    columns = [i for i in b_indices if i not in a_indices]
    a = xp.permute_dims(a, tuple(a_indices.index(i) for i in batch + rows + shared))
    b = xp.permute_dims(b, tuple(b_indices.index(i) for i in batch + shared + columns))
    batch_shape = tuple(size[i] for i in batch)
    a = xp.reshape(a, batch_shape + (math.prod(size[i] for i in rows),
                                     math.prod(size[i] for i in shared)))
    b = xp.reshape(b, batch_shape + (math.prod(size[i] for i in shared),
                                     math.prod(size[i] for i in columns)))
    product = xp.reshape(a @ b, batch_shape + tuple(size[i] for i in rows + columns))
    return "".join(batch + rows + columns), product



def _polygamma(n, x):
    """scipy.special.polygamma in the namespace of ``x``, in its precision, for orders
    ``n`` that may be an array (PyTorch's takes one integer): as scipy writes it,
    ``(-1)**(n+1) n! zeta(n+1, x)``, and ``digamma(x)`` where ``n`` is 0."""
    xp = array_namespace(x)
    n = xp.astype(xp.asarray(n, device=_device_of(x)), x.dtype)
    sign = 1 - 2 * xp.astype(xp.remainder(n, 2) == 0, x.dtype)
    higher = sign * scipy.special.gamma(n + 1) * scipy.special.zeta(n + 1, x)
    return xp.where(n == 0, scipy.special.digamma(x), higher)



def _i1(x):
    """The modified Bessel function I1, by scipy.special in the namespace of ``x``."""
    return scipy.special.i1(x)



def _decided(test, loop):
    """A while loop's test as a Python bool, which decides whether the loop goes on."""
    try:
        return bool(test)
    except TypeError as error:  # (a value jax.jit traces has none yet)
        raise TypeError(
            f"the while_loop at {loop} tests a value that jax.jit traces, so its number of "
            "steps is unknown while tracing: give tracer.while_loop maximum_iterations= to "
            "run it as a loop of that many steps, which traces") from error



def _stopped(running):
    """Whether a bounded loop has stopped, where that can be read at once: a value
    jax.jit traces or Dask defers cannot be, so such a loop runs its every step."""
    from array_api_compat import is_lazy_array
    return not is_lazy_array(running) and not bool(running)



def _check_scipy(xp):
    """scipy.special computes in the arguments' namespace only when scipy was imported
    with SCIPY_ARRAY_API=1; otherwise it would turn them into numpy arrays."""
    probe = scipy.special.ndtr(xp.zeros(1))
    if array_namespace(probe) is not xp:
        raise RuntimeError(
            "this module calls scipy.special on the arguments' arrays, which needs scipy's "
            "array API support: set the environment variable SCIPY_ARRAY_API=1 before "
            "scipy is first imported")


_FUNCTIONS = (_one_namespace, _scatter, _as_pad, _scatter_add, _basic_index,
              _scatter_add_along_axis, _embed_diagonal, _diag, _tril, _triu, _triangle,
              _sinc, _imag, _float_power, _cofactors, _einsum, _summed_out, _matmul,
              _polygamma, _i1, _decided, _stopped, _check_scipy)

HELPER_FUNCTIONS = {function.__name__: function for function in _FUNCTIONS}
"""The helpers, by the name generated code calls them: a primitive's array-API spelling
calls one by name (``ir`` cannot import these functions), and finds it here, the one
place they are registered."""


def helper_source(name):
    """The source of helper ``name``, as the module that calls it defines it."""
    return inspect.getsource(HELPER_FUNCTIONS[name])

IMPORTS = {"math": "import math", "xpx": AT_IMPORT, "scipy": SCIPY_IMPORT}
"""The imports (beyond ``array_api_compat``) a module needs, by the name it reads."""


def _names_read(code):
    """The global names a function's code reads, its nested functions' too."""
    nested = [c for c in code.co_consts if isinstance(c, type(code))]
    return set(code.co_names).union(*map(_names_read, nested))


READS = {function.__name__: _names_read(function.__code__) for function in _FUNCTIONS}
"""The global names each helper reads: helpers it calls, modules, ``is_numpy_array``."""

_CALLED = {name: read & HELPER_FUNCTIONS.keys() for name, read in READS.items()}
"""The helpers each helper calls."""


def with_callees(names):
    """The helpers ``names`` with those they call in turn, in the order they are listed."""
    wanted = set()
    frontier = [name for name in names if name in HELPER_FUNCTIONS]
    while frontier:
        name = frontier.pop()
        if name not in wanted:
            wanted.add(name)
            frontier.extend(_CALLED[name])
    return [name for name in HELPER_FUNCTIONS if name in wanted]
