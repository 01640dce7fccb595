"""Keras 3's weighting and reduction of per-sample losses, shared by losses and metrics.

A loss is computed per sample, then weighted and reduced to one number.  Keras'
rules here are easy to get subtly wrong, so they are kept as Keras writes them:
``"sum_over_batch_size"`` divides by the number of entries of the per-sample array,
not by the weights' sum, and a sample weight whose rank differs by one from the
values' is squeezed or expanded along the last axis before it broadcasts.
"""

import numpy as np

REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None)


def standardize_reduction(reduction):
    """``reduction`` itself, once checked to be one Keras knows."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`: {reduction!r}. "
                         f"Expected one of {list(REDUCTIONS)}.")
    return reduction


def cast(value, dtype):
    """``value`` in ``dtype``, tensors and variables kept on the tape that records them."""
    if hasattr(value, "astype") and hasattr(value, "shape"):
        return value if value.dtype == dtype else value.astype(dtype)
    return np.asarray(value, dtype=dtype)


def floating_dtype(value, dtype=None):
    """``dtype`` when given, else ``value``'s dtype if floating, else float64."""
    if dtype is not None:
        return np.dtype(dtype)
    given = getattr(value, "dtype", None)
    if given is None:
        given = np.asarray(value).dtype
    return np.dtype(given) if np.issubdtype(given, np.floating) else np.dtype(np.float64)


def size_of(shape):
    """The number of entries of an array of ``shape``: a symbolic size stays symbolic."""
    count = 1
    for dim in shape:
        count = count * dim
    return count


def divide_no_nan(numerator, denominator):
    """``numerator / denominator``, and 0 where the denominator is 0 (Keras' name),
    decided by the tensors' values, so it holds in a traced function too."""
    zero = denominator == 0
    return np.where(zero, 0, numerator / np.where(zero, 1, denominator))


def divide_by_size(total, size):
    """``total / size`` for a number of entries, 0 for none (``divide_no_nan``)."""
    return total / size if size != 0 else total * 0


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Keras' alignment of two arrays whose ranks differ by one in a last axis of 1: the
    longer one is squeezed, or a rank-1 shorter one expanded."""
    rank1, rank2 = len(x1.shape), len(x2.shape)
    if rank1 == rank2 + 1 and x1.shape[-1] == 1:
        if rank2 == 1 and expand_rank_1:
            x2 = np.expand_dims(x2, axis=-1)
        else:
            x1 = np.squeeze(x1, axis=-1)
    if rank2 == rank1 + 1 and x2.shape[-1] == 1:
        if rank1 == 1 and expand_rank_1:
            x1 = np.expand_dims(x1, axis=-1)
        else:
            x2 = np.squeeze(x2, axis=-1)
    return x1, x2


def apply_mask(sample_weight, mask, dtype, reduction):
    """``sample_weight`` with ``mask``'s entries left out.  For the averaging
    reductions a kept entry weighs ``total / valid``, so the average runs over the
    kept entries alone."""
    if mask is None:
        return sample_weight
    if reduction in ("mean", "sum_over_batch_size"):
        valid = np.sum(cast(mask, dtype))
        total = np.zeros_like(valid) + size_of(mask.shape)  # a tensor: sizes stay symbolic
        float_mask = cast(np.where(mask, divide_no_nan(total, valid), 0), dtype)
    else:
        float_mask = cast(mask, dtype)
    if sample_weight is None:
        return float_mask
    float_mask, sample_weight = squeeze_or_expand_to_same_rank(float_mask,
                                                               cast(sample_weight, dtype))
    return sample_weight * float_mask


def reduce_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """One number from per-sample ``values`` (already weighted), as Keras reduces;
    ``"none"``, a scalar and an empty vector come back as they are."""
    if reduction in (None, "none") or tuple(values.shape) in ((), (0,)):
        return values
    total = np.sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and sample_weight is not None:
        return divide_no_nan(total, np.sum(sample_weight))
    return divide_by_size(total, size_of(values.shape))


def reduce_weighted_values(values, sample_weight=None, mask=None,
                           reduction="sum_over_batch_size", dtype=None):
    """Weight per-sample ``values`` by ``sample_weight`` and ``mask``, then reduce."""
    reduction = standardize_reduction(reduction)
    dtype = floating_dtype(values, dtype)
    values = cast(values, dtype)
    if sample_weight is not None:
        sample_weight = cast(sample_weight, dtype)
    sample_weight = apply_mask(sample_weight, mask, dtype, reduction)
    if sample_weight is not None:
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        values = values * sample_weight
    return reduce_values(values, sample_weight, reduction)
