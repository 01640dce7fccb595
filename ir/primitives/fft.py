"""Discrete Fourier transforms: ``fftn``, ``ifftn``, ``rfftn``, ``irfftn`` and the shifts.

One primitive per kind of transform covers numpy's 1-D, 2-D and n-D
spellings: params are ``s`` (the transform length along each axis),
``axes`` (non-negative) and ``norm`` (``"backward"``, ``"ortho"`` or
``"forward"``).  numpy pads or truncates the input to ``s`` first, so each
rule ends by fitting its cotangent back to the input's shape.

The DFT matrix is symmetric, so the transpose of ``fftn`` is ``fftn`` with
the same norm: written as for real numbers, that is all a complex-linear map
needs (``HOLOMORPHIC``).  ``rfftn`` and ``irfftn`` map between real and
complex values and are only real-linear; their rules give TensorFlow's
cotangent directly, with the transform of the other kind and the dual norm,
weighting the bins that stand for two conjugate bins of the full spectrum.

numpy's spellings are bound to these primitives beside them, with numpy's
defaults resolved: explicit lengths ``s`` and non-negative ``axes``.
"""

import numpy as np

from ir.bindings import (COMPLEX_AND_FFT, array_rank, array_shape, binds, no_extras,
                         normalize_axis)
from ir.autodiff.batching import Batched, along_axes_named, first_batched_only
from ir.primitive import (AS_WRITTEN, HOLOMORPHIC, LINEAR, READS_NOTHING, REAL_LINEAR, Primitive,
                          shape_of)
from ir.primitives.shape import concatenate, getitem, scatter_add
from ir.sizes.shape_rules import same_shape

DUAL_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
"""The norm whose transform of the other direction is a transform's adjoint."""


def _complex_dtype(dtype):
    return np.result_type(dtype, np.complex64)


def _real_dtype(dtype):
    return np.finfo(_complex_dtype(dtype)).dtype


def _transformed_shape(shape, s, axes, half=False):
    """``shape`` with each of ``axes`` of length ``s``; with ``half``, the last one
    of ``rfftn``'s length ``s // 2 + 1``."""
    shape = list(shape)
    for axis, length in zip(axes, s):
        shape[axis] = length
    if half:
        shape[axes[-1]] = s[-1] // 2 + 1
    return tuple(shape)


def _fit(value, shape):
    """``value`` truncated or zero-padded at the end of each axis to ``shape``:
    the adjoint of numpy's own fitting of an FFT's input to ``s``."""
    current = shape_of(value)
    if current == tuple(shape):
        return value
    if any(c > n for c, n in zip(current, shape)):
        value = getitem(value, key=tuple(slice(0, n) if c > n else slice(None)
                                         for c, n in zip(current, shape)))
        current = shape_of(value)
    if current != tuple(shape):
        value = scatter_add(value, key=tuple(slice(0, c) for c in current), shape=tuple(shape))
    return value


def _weigh_pairs(x, axes, s, weight):
    """Half spectrum ``x`` with each bin that stands for a conjugate pair of the full
    spectrum (all but bin 0 and, for even ``s``, the last) multiplied by ``weight``."""
    axis, length = axes[-1], s[-1] // 2 + 1
    lead = (slice(None),) * axis
    if type(s[-1]) is not int:  # (a symbolic length: slices that serve either parity)
        stop = (s[-1] + 1) // 2
        return concatenate(getitem(x, key=lead + (slice(0, 1),)),
                           getitem(x, key=lead + (slice(1, stop),)) * weight,
                           getitem(x, key=lead + (slice(stop, length),)), axis=axis)
    stop = length - 1 if s[-1] % 2 == 0 else length
    if stop <= 1:
        return x
    pieces = [getitem(x, key=lead + (slice(0, 1),)),
              getitem(x, key=lead + (slice(1, stop),)) * weight]
    if stop < length:
        pieces.append(getitem(x, key=lead + (slice(stop, length),)))
    return concatenate(*pieces, axis=axis)


def _spell(name, standard=False):
    """``np.fft.<name>`` for one axis, ``<name>2`` for the last two, ``<name>n`` otherwise;
    arguments at numpy's defaults are left out.  In the ``standard``, which has no
    ``<name>2``, the last two axes are ``xp.fft.<name>n``'s ``axes=(-2, -1)``; the other
    forms follow from numpy's spelling (``None``)."""
    def spell(params, shapes):
        s, axes, norm = params["s"], params["axes"], params["norm"]
        shape = shapes[0]
        default = _default_lengths(shape, axes, inverse_half=name == "irfft")
        norm_text = "" if norm == "backward" else f", norm={norm!r}"
        s_text = "" if s == default else f", s={s!r}"
        if axes == (len(shape) - 2, len(shape) - 1):
            if standard:
                return f"xp.fft.{name}n({{0}}{s_text}, axes=(-2, -1){norm_text})"
            return f"np.fft.{name}2({{0}}{s_text}{norm_text})"
        if standard:
            return None
        if len(axes) == 1:
            n_text = "" if s == default else f", n={s[0]}"
            axis_text = "" if axes[0] == len(shape) - 1 else f", axis={axes[0]}"
            return f"np.fft.{name}({{0}}{n_text}{axis_text}{norm_text})"
        return f"np.fft.{name}n({{0}}{s_text}, axes={axes!r}{norm_text})"
    return spell


def _default_lengths(shape, axes, inverse_half):
    """numpy's default lengths: the input's, and for ``irfft*`` ``2 (m - 1)`` on the last axis."""
    lengths = tuple(shape[a] for a in axes)
    if inverse_half:
        return lengths[:-1] + (2 * (lengths[-1] - 1),)
    return lengths


def _transform(base, numpy_fn, *, vjps, half_in=False, half_out=False, complex_rules=HOLOMORPHIC):
    """The primitive ``<base>n``; ``half_in``/``half_out``: takes or gives a half spectrum."""
    def abstract(avals, params):
        (shape, dtype), = avals
        out_shape = _transformed_shape(shape, params["s"], params["axes"], half=half_out)
        out_dtype = _real_dtype(dtype) if half_in else _complex_dtype(dtype)
        return out_shape, out_dtype

    def impl(x, s, axes, norm):
        if half_in and 0 in (np.shape(x)[a] for a in axes):
            # numpy leaves this result uninitialised; it is the transform of zeros.
            return np.zeros(abstract([(np.shape(x), x.dtype)], {"s": s, "axes": axes})[0],
                            _real_dtype(x.dtype))
        return numpy_fn(x, s=s, axes=axes, norm=norm)

    return Primitive(f"{base}n", impl, abstract=abstract, reads=READS_NOTHING, source=_spell(base),
                     array_api=_spell(base, standard=True),
                     complex_rules=complex_rules, linearity=LINEAR, batch=_batch_transform,
                     shape_rule=lambda avals, params: abstract(avals, params)[0], vjps=vjps)


@first_batched_only
def _batch_transform(prim, args, params, size):
    """``axes`` are non-negative: the batch axis in front moves each up by one."""
    return Batched(prim(args[0].value, **dict(params, axes=tuple(a + 1 for a in params["axes"]))),
                   size)


fftn = _transform("fft", np.fft.fftn,
                  vjps=(lambda g, out, x, s, axes, norm:
                        _fit(fftn(g, s=s, axes=axes, norm=norm), shape_of(x)),))
ifftn = _transform("ifft", np.fft.ifftn,
                   vjps=(lambda g, out, x, s, axes, norm:
                         _fit(ifftn(g, s=s, axes=axes, norm=norm), shape_of(x)),))


def _rfftn_vjp(g, out, x, s, axes, norm):
    # The half spectrum holds each conjugate pair of bins once: halve those bins.
    halved = _weigh_pairs(g, axes, s, 0.5)
    return _fit(irfftn(halved, s=s, axes=axes, norm=DUAL_NORM[norm]), shape_of(x))


def _irfftn_vjp(g, out, x, s, axes, norm):
    # Each bin but the self-conjugate ones also made its conjugate's contribution.
    spectrum = rfftn(g, s=s, axes=axes, norm=DUAL_NORM[norm])
    return _fit(_weigh_pairs(spectrum, axes, s, 2.0), shape_of(x))


rfftn = _transform("rfft", np.fft.rfftn, vjps=(_rfftn_vjp,), half_out=True,
                   complex_rules=AS_WRITTEN)
irfftn = _transform("irfft", np.fft.irfftn, vjps=(_irfftn_vjp,), half_in=True,
                    complex_rules=AS_WRITTEN)

_NORMS = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}


def _norm(norm):
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return _NORMS[norm]


def _axes(shape, s, axes):
    """numpy's default axes: all, or the last ``len(s)`` when only ``s`` is given."""
    rank = len(shape)
    if axes is None:
        count = rank if s is None else len(s)
        return tuple(range(rank - count, rank))
    axes = tuple(int(a) for a in axes)
    normalize_axis(axes, rank)  # numpy's errors for out-of-range and repeated axes
    return tuple(a % rank for a in axes)


def _apply(prim, a, s, axes, norm):
    shape = array_shape(a)
    axes = _axes(shape, s, axes)
    if s is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    lengths = (_default_lengths(shape, axes, inverse_half=prim is irfftn) if s is None
               else tuple(int(n) for n in s))
    if any(n < 1 for n in lengths):
        raise ValueError(f"Invalid number of FFT data points ({min(lengths)}) specified.")
    return prim(a, s=lengths, axes=axes, norm=_norm(norm))


def _bind_one_axis(prim, function):
    @binds(function, topic=COMPLEX_AND_FFT)
    def transform(a, n=None, axis=-1, norm=None, out=None):
        no_extras(f"fft.{function.__name__}", out=out)
        return _apply(prim, a, None if n is None else (n,), (axis,), norm)


def _bind_many_axes(prim, function, default_axes=None):
    @binds(function, topic=COMPLEX_AND_FFT)
    def transform(a, s=None, axes=default_axes, norm=None, out=None):
        no_extras(f"fft.{function.__name__}", out=out)
        return _apply(prim, a, s, axes, norm)


def _bind_transform(prim, one_axis, last_two, many_axes):
    """numpy's 1-D, 2-D and n-D spellings of ``prim``."""
    _bind_one_axis(prim, one_axis)
    _bind_many_axes(prim, last_two, default_axes=(-2, -1))
    _bind_many_axes(prim, many_axes)


_bind_transform(fftn, np.fft.fft, np.fft.fft2, np.fft.fftn)
_bind_transform(ifftn, np.fft.ifft, np.fft.ifft2, np.fft.ifftn)
_bind_transform(rfftn, np.fft.rfft, np.fft.rfft2, np.fft.rfftn)
_bind_transform(irfftn, np.fft.irfft, np.fft.irfft2, np.fft.irfftn)


def _shift(name, numpy_fn, *, vjps):
    def spell(params, shapes):
        axes = params["axes"]
        if axes == tuple(range(len(shapes[0]))):
            return f"np.fft.{name}({{0}})"
        return f"np.fft.{name}({{0}}, axes={axes!r})"

    return Primitive(name, lambda x, axes: numpy_fn(x, axes=axes), reads=READS_NOTHING,
                     source=spell, complex_rules=REAL_LINEAR, linearity=LINEAR, shape_rule=same_shape,
                     batch=along_axes_named("axes"), vjps=vjps)


fftshift = _shift("fftshift", np.fft.fftshift,
                  vjps=(lambda g, out, x, axes: ifftshift(g, axes=axes),))
ifftshift = _shift("ifftshift", np.fft.ifftshift,
                   vjps=(lambda g, out, x, axes: fftshift(g, axes=axes),))


def _bind_shift(prim, function):
    @binds(function, topic=COMPLEX_AND_FFT)
    def shift(x, axes=None):
        rank = array_rank(x)
        axes = tuple(range(rank)) if axes is None else normalize_axis(axes, rank)
        return prim(x, axes=axes)


_bind_shift(fftshift, np.fft.fftshift)
_bind_shift(ifftshift, np.fft.ifftshift)
