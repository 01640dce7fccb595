"""Refusals met while a tape records: the error a call raises on a watched tensor."""

import numpy as np
import pytest

import tracer


def raised_on_a_watched_tensor(call, error):
    """The ``error`` that ``call`` raises on a watched 2x3 tensor, inside a tape."""
    x = tracer.constant(np.arange(6.0).reshape(2, 3))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(error) as raised:
            call(x)
    return raised.value
