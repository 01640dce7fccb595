"""``SeedGenerator``: random numbers that a compiled step draws afresh at every call.

A random draw made with numpy's generators while ``tracer.function`` traces would be
written into the generated module as a constant, the same at every call.  So draws are
computed, in numpy integer operations that tapes and traces record, from a state held
in a variable: a counter-based generator (a splitmix64-style mixing function applied to
the seed, the counter and each element's position).  Each draw advances the counter with
``assign_add``, which a compiled step records and writes back, so the module draws new
numbers at every call, and the same numbers as the eager code from the same state.
As in Keras, the state ``[seed, counter]`` is a variable of the layer but not a weight.
"""

import math

import numpy as np

from tracer.layers.initializers import draw_seed
from tracer.variable import Variable

# Every constant is below 2**63, so that generated code for JAX, which reads a Python int
# as an int64, can spell it.
_WEYL_INCREMENT = 0x61C8864680B583EB  # 2**64 minus 2**64 over the golden ratio (odd)
_STREAM_OFFSETS = np.array([0x243F6A8885A308D3, 0x13198A2E03707344], dtype=np.uint64)
_NEXT = np.array([0, 1], dtype=np.uint64)


class SeedGenerator:
    """The state ``[seed, counter]`` of a layer's random draws (Keras' ``SeedGenerator``).

    ``seed`` is an integer; without one, it is drawn from the generator that
    ``tracer.initializers.set_random_seed`` seeds.
    """

    def __init__(self, seed=None, name="seed_generator"):
        if seed is None:
            seed = draw_seed()
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"a seed is an integer (or None for a random one), not {seed!r}")
        self.seed = int(seed)
        self.state = Variable(np.array([self.seed % 2 ** 64, 0], dtype=np.uint64),
                              trainable=False, name=f"{name}/seed_generator_state")

    def uniform(self, shape, like):
        """Floats uniform in [0, 1) of ``shape`` (sizes may be symbolic), then advance the
        counter so the next draw differs.  ``like`` is an array of the call (a traced one
        keeps symbolic sizes symbolic)."""
        values = uniform(self.state, shape, like)
        self.state.assign_add(_NEXT)
        return values

    def __repr__(self):
        return f"SeedGenerator(seed={self.seed})"


def uniform(state, shape, like):
    """Floats uniform in [0, 1) of ``shape``, a function of ``state`` (``[seed, counter]``,
    uint64) and of each element's position alone."""
    keys = _mix(state + _STREAM_OFFSETS)
    positions = np.arange(math.prod(shape), dtype=np.uint64, like=like)
    bits = _mix(_mix(positions * _WEYL_INCREMENT + keys[0]) ^ keys[1])
    # the top 53 bits, the digits of a float64 in [0, 1)
    return np.reshape((bits // 2 ** 11).astype(np.float64) * 2.0 ** -53, shape)


def _mix(z):
    """Pelle Evensen's moremur, splitmix64's finalizer with better constants, on uint64
    arrays (right shifts written as floor divisions, products wrapping): every bit of
    the result depends on every bit of ``z``."""
    z = (z ^ z // 2 ** 27) * 0x3C79AC492BA7B653
    z = (z ^ z // 2 ** 33) * 0x1C69B3F74AC4AE35
    return z ^ z // 2 ** 27
