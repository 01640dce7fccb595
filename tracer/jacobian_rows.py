"""How a Jacobian's rows are taken: by one batch of one-hot seeds, whose rules run once
over the batch (TensorFlow's pfor), or one gradient per row (``experimental_use_pfor=
False``), which any rule that runs once can do."""

import numpy as np

from ir.autodiff.batching import Batched


def one_hot_seeds(shape, dtype):
    """A batch of seeds, one per element of a value of ``shape``: the identity, reshaped."""
    size = int(np.prod(shape, dtype=np.int64))
    return Batched(np.eye(size, dtype=dtype).reshape((size,) + tuple(shape)), size)


def jacobian_rows(gradients, seeds, vectorised):
    """``gradients(seeds)`` (one list of cotangents per source) for a batch of seeds:
    at once if ``vectorised``, else one seed at a time, stacked."""
    if not vectorised and seeds.size > 0:
        rows = [gradients(seed) for seed in seeds.value]
        return [None if column[0] is None else np.stack(column) for column in zip(*rows)]
    try:
        return gradients(seeds)
    except NotImplementedError as error:  # a rule that cannot run over a batch
        raise NotImplementedError(
            f"{error}. tape.jacobian(..., experimental_use_pfor=False) takes one gradient "
            "per element of the target instead") from error
