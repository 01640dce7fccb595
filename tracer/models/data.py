"""The data ``fit``, ``evaluate`` and ``predict`` take, cut into batches as Keras cuts it.

Arrays (or tuples, lists and dicts of them) are sliced along their first axis in
order, shuffled per epoch if asked (by a generator seeded from the one
``tracer.initializers.set_random_seed`` seeds, so a seeded script repeats itself); any
other iterable is taken to give batches itself, ``(x, y)`` or ``(x, y, sample_weight)``.  ``validation_split`` keeps the last
rows, before any shuffling, as Keras does.  Bad data is refused before a step runs.
"""

import numpy as np

from ir.structure import flatten, pack_as
from tracer.core import Tensor
from tracer.layers.initializers import draw_seed


def is_arrays(value):
    """Whether ``value`` is an array, or a tuple, list or dict of them; not batches (a
    list of tuples, any other iterable)."""
    if isinstance(value, (np.ndarray, Tensor)):
        return True
    if isinstance(value, dict):
        return all(is_arrays(v) for v in value.values())
    if isinstance(value, list) and all(isinstance(v, tuple) for v in value):
        return False  # a list of (x, y) batches
    if isinstance(value, (list, tuple)):
        return len(value) > 0 and all(is_arrays(v) for v in value)
    return False


def rows(value):
    """The number of rows (first-axis length) every array of ``value`` shares."""
    lengths = {int(np.shape(leaf)[0]) if np.ndim(leaf) else None for leaf in flatten(value)}
    if None in lengths:
        raise ValueError("every input array needs a first (batch) axis; got a scalar")
    if len(lengths) != 1:
        raise ValueError(f"the input arrays have different numbers of rows: {sorted(lengths)}")
    return lengths.pop()


def as_arrays(value):
    """``value`` with every leaf a numpy array (a tensor's value; a list of numbers as an
    array)."""
    return pack_as(value, [leaf._value if isinstance(leaf, Tensor) else np.asarray(leaf)
                           for leaf in flatten(value)])


class ArrayBatches:
    """Batches of ``(x, y, sample_weight)`` arrays (``y`` and ``sample_weight`` may be
    ``None``), ``batch_size`` rows each, the last one shorter if the rows run out."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False, seed=None):
        self.data = tuple(as_arrays(v) if v is not None else None for v in (x, y, sample_weight))
        self.count = rows(x)
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None and rows(value) != self.count:
                raise ValueError(f"x has {self.count} rows but {name} has {rows(value)}: "
                                 "give one row of each per sample")
        if batch_size is None:
            batch_size = 32
        if int(batch_size) != batch_size or batch_size < 1:
            raise ValueError(f"batch_size must be a positive whole number, not {batch_size!r}")
        self.batch_size = int(batch_size)
        self.shuffle = shuffle
        self._random = np.random.default_rng(draw_seed() if seed is None else seed)

    @property
    def steps(self):
        return -(-self.count // self.batch_size)

    def __iter__(self):
        order = self._random.permutation(self.count) if self.shuffle else None
        for start in range(0, self.count, self.batch_size):
            part = slice(start, start + self.batch_size)
            if order is not None:
                part = order[part]
            yield tuple(None if v is None else _take(v, part) for v in self.data)


def _take(value, part):
    return pack_as(value, [leaf[part] for leaf in flatten(value)])


class IterableBatches:
    """Batches an iterable gives: each ``x``, ``(x,)``, ``(x, y)`` or
    ``(x, y, sample_weight)``; ``steps`` is its length where it has one."""

    def __init__(self, iterable):
        self.iterable = iterable
        self.steps = len(iterable) if hasattr(iterable, "__len__") else None

    def __iter__(self):
        for batch in self.iterable:
            yield unpack(batch)


def unpack(batch):
    """``(x, y, sample_weight)`` of one batch, as Keras' ``unpack_x_y_sample_weight``."""
    if isinstance(batch, list):
        batch = tuple(batch)
    if not isinstance(batch, tuple):
        return batch, None, None
    if len(batch) == 1:
        return batch[0], None, None
    if len(batch) == 2:
        return batch[0], batch[1], None
    if len(batch) == 3:
        return batch
    raise ValueError(f"a batch is x, (x, y) or (x, y, sample_weight); got a tuple of "
                     f"{len(batch)} items")


def batches(x, y=None, sample_weight=None, batch_size=32, shuffle=False):
    """The batches of ``x`` (arrays or an iterable of batches), with ``y`` and
    ``sample_weight`` for arrays."""
    if is_arrays(x):
        return ArrayBatches(x, y, sample_weight, batch_size, shuffle)
    if y is not None or sample_weight is not None:
        raise ValueError("x gives its own batches (it is not arrays), so y and "
                         "sample_weight must be None: put them in x's batches")
    if not hasattr(x, "__iter__"):
        raise TypeError(f"x must be arrays (or a tuple or dict of them) or an iterable of "
                        f"batches, not {type(x).__name__}")
    return IterableBatches(x)


def split_off_validation(x, y, sample_weight, validation_split):
    """``(training, validation)`` triples: the last ``validation_split`` of the rows
    kept for validation, as Keras keeps them."""
    if not 0 <= validation_split < 1:
        raise ValueError(f"validation_split must be in [0, 1), not {validation_split!r}")
    if not is_arrays(x):
        raise ValueError("validation_split needs x as arrays; give validation_data for "
                         "an iterable of batches")
    count = rows(x)
    cut = int(count * (1 - validation_split))
    if cut == 0 or cut == count:
        raise ValueError(f"validation_split={validation_split} of {count} rows leaves "
                         f"{cut} for training and {count - cut} for validation; both need "
                         "at least one")
    data = tuple(None if v is None else as_arrays(v) for v in (x, y, sample_weight))
    return (tuple(None if v is None else _take(v, slice(0, cut)) for v in data),
            tuple(None if v is None else _take(v, slice(cut, None)) for v in data))
