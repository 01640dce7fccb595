"""Keras 3's weight initializers by name, drawn with numpy's random generators.

Each is a callable ``initializer(shape, dtype)`` returning a numpy array with Keras'
distribution: Glorot's and He's by the fans Keras computes, ``orthogonal`` by a QR
decomposition with the signs of R's diagonal.  ``seed`` makes one reproducible;
without it, draws come from one generator ``set_random_seed`` reseeds, so a script
that seeds once builds the same model at every run.  The numbers are numpy's, not
Keras': a model is made equal to a Keras one with ``set_weights``.
"""

import math

import numpy as np

_generator = np.random.default_rng()


def set_random_seed(seed):
    """Reseed the generator initializers without a seed (and ``Dropout``) draw from."""
    global _generator
    _generator = np.random.default_rng(seed)


def draw_seed():
    """A seed from the shared generator, for what draws its own numbers later (a
    ``Dropout``'s masks): reseeding with ``set_random_seed`` makes those repeat too."""
    return int(_generator.integers(2 ** 63))


def _random(seed):
    return _generator if seed is None else np.random.default_rng(seed)


def compute_fans(shape):
    """``(fan_in, fan_out)`` as Keras counts them: a kernel's last two axes are its inputs
    and outputs, each times the size of the axes before them (a convolution's window)."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """An initializer: ``initializer(shape, dtype)`` makes an array."""

    def __call__(self, shape, dtype=np.float64):
        return np.asarray(self.draw(tuple(shape)), dtype=dtype)

    def draw(self, shape):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Zeros(Initializer):
    def draw(self, shape):
        return np.zeros(shape)


class Ones(Initializer):
    def draw(self, shape):
        return np.ones(shape)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def draw(self, shape):
        return np.full(shape, self.value)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def draw(self, shape):
        return _random(self.seed).normal(self.mean, self.stddev, size=shape)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def draw(self, shape):
        return _random(self.seed).uniform(self.minval, self.maxval, size=shape)


class TruncatedNormal(Initializer):
    """A normal distribution cut at two standard deviations, drawn again where it fell
    outside."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def draw(self, shape):
        return self.mean + self.stddev * _truncated_standard_normal(_random(self.seed), shape)


def _truncated_standard_normal(generator, shape):
    values = generator.standard_normal(shape)
    outside = np.abs(values) > 2
    while outside.any():
        values[outside] = generator.standard_normal(int(outside.sum()))
        outside = np.abs(values) > 2
    return values


class VarianceScaling(Initializer):
    """Keras' family behind Glorot, He and LeCun: variance ``scale / fan`` with ``fan``
    the fan in, out or their mean (``mode``), drawn from ``distribution``."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"mode must be 'fan_in', 'fan_out' or 'fan_avg', not {mode!r}")
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("distribution must be 'truncated_normal', 'untruncated_normal' "
                             f"or 'uniform', not {distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def draw(self, shape):
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[
            self.mode]
        variance = self.scale / max(1.0, fan)
        generator = _random(self.seed)
        if self.distribution == "uniform":
            limit = math.sqrt(3 * variance)
            return generator.uniform(-limit, limit, size=shape)
        if self.distribution == "untruncated_normal":
            return math.sqrt(variance) * generator.standard_normal(shape)
        # the standard deviation of a standard normal cut at two of them
        return math.sqrt(variance) / 0.87962566103423978 * _truncated_standard_normal(
            generator, shape)


def _variance_scaling(name, scale, mode, distribution):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)
    return type(name, (VarianceScaling,), {"__init__": __init__, "__doc__": (
        f"``VarianceScaling(scale={scale}, mode={mode!r}, distribution={distribution!r})``.")})


GlorotUniform = _variance_scaling("GlorotUniform", 1.0, "fan_avg", "uniform")
GlorotNormal = _variance_scaling("GlorotNormal", 1.0, "fan_avg", "truncated_normal")
HeUniform = _variance_scaling("HeUniform", 2.0, "fan_in", "uniform")
HeNormal = _variance_scaling("HeNormal", 2.0, "fan_in", "truncated_normal")
LecunUniform = _variance_scaling("LecunUniform", 1.0, "fan_in", "uniform")
LecunNormal = _variance_scaling("LecunNormal", 1.0, "fan_in", "truncated_normal")


class Orthogonal(Initializer):
    """A matrix with orthonormal rows or columns (times ``gain``), from the QR
    decomposition of a normal one; axes before the last are flattened into rows."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def draw(self, shape):
        if len(shape) < 2:
            raise ValueError(f"the orthogonal initializer needs 2 or more axes, got {shape}")
        rows, columns = math.prod(shape[:-1]), shape[-1]
        normal = _random(self.seed).standard_normal((max(rows, columns), min(rows, columns)))
        q, r = np.linalg.qr(normal)
        q = q * np.sign(np.diag(r))
        if rows < columns:
            q = q.T
        return self.gain * q.reshape(shape)


INITIALIZERS = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
    "lecun_uniform": LecunUniform, "lecun_normal": LecunNormal, "orthogonal": Orthogonal,
}


def get(identifier):
    """The initializer ``identifier`` names (``"glorot_uniform"``, or a class name), an
    initializer or callable ``(shape, dtype) -> array`` as it is."""
    if callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    by_class = {cls.__name__: cls for cls in INITIALIZERS.values()}
    cls = INITIALIZERS.get(identifier) or by_class.get(identifier)
    if cls is None:
        raise ValueError(f"unknown initializer {identifier!r}: use one of "
                         f"{', '.join(INITIALIZERS)}, or a function (shape, dtype) -> array")
    return cls()
