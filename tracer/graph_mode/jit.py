"""``jit_compile=True``: a step's array-API module compiled by ``jax.jit``.

The module is written for the array API standard (``codegen.targets.array_api``),
so JAX runs it as it is.  Variables stay tapegen's, with numpy values; the device
copy of each value a call wrote back is kept, and the next call reuses it while
the variable still holds that value, so a training loop moves no weights between
numpy and JAX from one step to the next.
"""

import numpy as np


class JaxDevice:
    """What a ``ConcreteFunction`` asks to run its module under ``jax.jit``."""

    def __init__(self):
        try:
            import jax
        except ImportError:
            raise ImportError(
                "tracer.function(jit_compile=True) runs the generated module under jax.jit, "
                "and JAX is not installed: pip install 'tapegen[jax]'") from None
        jax.config.update("jax_enable_x64", True)  # float64 stays float64, as in numpy
        self._jax = jax
        self._kept = {}  # variable serial -> (numpy value written back, its device copy)

    def compile(self, function):
        return self._jax.jit(function)

    def variable_value(self, variable):
        """The variable's value on the device: the copy kept, while the variable holds the
        value it was made from."""
        array = variable._value._value
        kept = self._kept.get(variable._serial)
        if kept is not None and kept[0] is array:
            return kept[1]
        value = self._jax.device_put(array)
        self._kept[variable._serial] = (array, value)
        return value

    def stored(self, variable, value):
        """The numpy value to write back into ``variable``, keeping its device copy."""
        array = np.asarray(value)
        self._kept[variable._serial] = (array, value)
        return array

    @staticmethod
    def to_host(value):
        return np.asarray(value) if hasattr(value, "__array__") else value
