"""``flatten``: a nested container of arrays as one vector, and the function back.
Made of numpy functions, so it is differentiable on tensors."""

import numpy as np

from autograd._values import flatten as leaves_of, pack_as


def flatten(value):
    leaves = leaves_of(value)
    shapes = [np.shape(leaf) for leaf in leaves]
    sizes = [int(np.prod(shape)) for shape in shapes]
    flat = (np.concatenate([np.ravel(leaf) for leaf in leaves]) if leaves else np.zeros(0))

    def unflatten(vector):
        ends = np.cumsum(sizes)
        parts = [np.reshape(vector[end - size:end], shape)
                 for end, size, shape in zip(ends, sizes, shapes)]
        return pack_as(value, parts)
    return flat, unflatten
