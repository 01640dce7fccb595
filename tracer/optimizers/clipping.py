"""Gradient clipping as Keras 3 does it: each gradient to a norm (``clipnorm``), all of
them together to a global norm (``global_clipnorm``), or each element to a range
(``clipvalue``)."""

import numpy as np


def clipped(grads, clipnorm=None, global_clipnorm=None, clipvalue=None):
    """``grads`` (numpy arrays, or tensors of a trace in graph mode) clipped by whichever of the three is set."""
    if clipnorm is not None and clipnorm > 0:
        return [_clipped_to_norm(g, clipnorm) for g in grads]
    if global_clipnorm is not None and global_clipnorm > 0:
        return _clipped_to_global_norm(grads, global_clipnorm)
    if clipvalue is not None and clipvalue > 0:
        return [np.clip(g, -clipvalue, clipvalue) for g in grads]
    return grads


def _clipped_to_norm(g, clip_norm):
    """``g * clip_norm / max(|g|, clip_norm)``; a zero gradient stays zero."""
    return g * clip_norm / np.maximum(np.sqrt(np.sum(np.square(g))), clip_norm)


def _clipped_to_global_norm(grads, clip_norm):
    """Every gradient scaled by ``clip_norm / max(global norm, clip_norm)``; a global
    norm that is not finite makes them NaN, as in Keras."""
    norm = np.sqrt(sum(np.sum(np.square(g)) for g in grads))
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = clip_norm * np.minimum(1.0 / norm, 1.0 / clip_norm) + (norm - norm)
    return [g * scale.astype(g.dtype) for g in grads]
