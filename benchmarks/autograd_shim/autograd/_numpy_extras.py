"""The few functions autograd's numpy adds to numpy's and autograd's tests call,
written with numpy functions, so that on tensors tapegen differentiates them."""

import numpy as np


def make_diagonal(D, offset=0, axis1=-1, axis2=-2):
    """Arrays whose diagonals (over the last two axes) are the last axis of ``D``."""
    if not (offset == 0 and axis1 == -1 and axis2 == -2):
        raise NotImplementedError("make_diagonal supports only offset=0, axis1=-1, axis2=-2")
    return np.expand_dims(D, -1) * np.eye(np.shape(D)[-1])


def transpose_last_two(x):
    return np.swapaxes(x, -1, -2)


def matrix_product(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


EXTRAS = {"autograd.numpy": {"make_diagonal": make_diagonal},
          "autograd.numpy.linalg": {"T": transpose_last_two, "_dot": matrix_product}}
