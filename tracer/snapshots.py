"""Copies of the plain operands a tape keeps, so that a gradient uses the values an
operation saw even when the caller changes an array in place afterwards."""

import copy

import numpy as np

import tracer.buffers as buffers

_MUTABLE = (np.ndarray, list, tuple)
"""Arguments that can change after an operation read them (tuples may hold arrays)."""


def snapshot(args, recordings):
    """``args`` with every plain numpy array, list or tuple in it replaced by a copy.

    A tape's gradient must use the values an operation saw, as TensorFlow's
    does (it converts numpy operands to tensors): the caller may change an
    array in place afterwards (``X[:] = 0``, a buffer refilled at each step
    of a loop).  Tensors are immutable and need no copy, nor does the array
    that ``t.numpy()`` returned (a read-only view of one), which stays itself
    so that ``explain`` can recognise it.
    """
    return tuple([_frozen(arg, recordings) if isinstance(arg, _MUTABLE) else arg
                  for arg in args])


def _frozen(arg, recordings):
    if arg.__class__ is list or arg.__class__ is tuple:
        return copy.deepcopy(arg)
    for recording in recordings:
        if recording.escapes and not arg.flags.writeable and any(
                escape.value is arg for escape in recording.escapes):
            return arg
    if arg.nbytes < buffers.MIN_BYTES:
        return arg.copy()
    low, high = np.lib.array_utils.byte_bounds(arg)
    if high - low < arg.nbytes and not any(stride % arg.itemsize for stride in arg.strides):
        return _copy_of_span(arg, low, high)
    return buffers.copy(arg)


def _copy_of_span(arg, low, high):
    """A copy of a view whose elements share memory (``np.broadcast_to``, sliding windows):
    the memory it spans is copied, not every element, and the view rebuilt over the copy."""
    itemsize = arg.itemsize
    first = arg[tuple(slice(-1, None) if stride < 0 else slice(0, 1) for stride in arg.strides)]
    span = np.lib.stride_tricks.as_strided(np.asarray(first).reshape(1),
                                           ((high - low) // itemsize,), (itemsize,),
                                           writeable=False)
    saved = buffers.copy(span)
    start = saved[(arg.__array_interface__["data"][0] - low) // itemsize:]
    return np.lib.stride_tricks.as_strided(start, arg.shape, arg.strides, subok=True,
                                           writeable=False)
