"""``jit_compile=True``: a step's array-API module compiled by ``jax.jit``.

The module is written for the array API standard (``codegen.targets.array_api``),
so JAX runs it as it is.  Variables stay tapegen's: a value a call writes back
stays on the device (``DeviceValue``) until something reads the variable, which
then gets it as a numpy array, and the next call takes it as it is.  A training
loop moves no weights between numpy and JAX from one step to the next.
"""

import numpy as np

from tracer.core import wrap


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
        """The variable's value on the device: the one the last call left there, or the copy
        kept while the variable holds the value it was made from."""
        pending = variable._pending
        if pending is not None and pending.device is self:
            return pending.array
        array = variable._value._value
        kept = self._kept.get(variable._serial)
        if kept is not None and kept[0] is array:
            return kept[1]
        value = self._jax.device_put(array)
        self._kept[variable._serial] = (array, value)
        return value

    def store(self, variable, value, dims):
        """Make ``value`` (a device array, of symbolic axes ``dims``) the variable's, until
        something reads it."""
        variable._pending = DeviceValue(self, variable, value, dims)

    def keep(self, variable, array, value):
        """Remember ``value`` as the device copy of ``array``, the variable's numpy value."""
        self._kept[variable._serial] = (array, value)

    @staticmethod
    def to_host(value):
        return np.asarray(value) if hasattr(value, "__array__") else value


class DeviceValue:
    """A variable's value that a compiled call left on the device: its numpy array is
    made when something first reads the variable."""

    __slots__ = ("device", "variable", "array", "dims")

    def __init__(self, device, variable, array, dims):
        self.device = device
        self.variable = variable
        self.array = array
        self.dims = dims

    def materialized(self):
        """The value as a tensor of a numpy array; the device keeps its copy for reuse."""
        host = np.asarray(self.array)
        tensor = wrap(host, self.variable.name)
        if self.dims is not None:
            tensor._dims = self.dims
        self.device.keep(self.variable, host, self.array)
        return tensor
