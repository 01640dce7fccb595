"""The array-API target: a module written against the array API standard, so that one
file runs on numpy, CuPy, PyTorch, JAX and Dask arrays alike (``codegen.array_api``)."""

from codegen.array_api import array_api_module
from codegen.emit import CodegenError
from codegen.targets.numpy import NumpyTarget
from ir.primitive import Unspellable


class ArrayApiTarget(NumpyTarget):
    """Modules that take their namespace from their arguments."""

    name = "array_api"
    general_check = True

    def module(self, name, docstring, parameters, layout, result, guards):
        source = super().module(name, docstring, parameters, layout, result, guards)
        try:
            return array_api_module(source, [p.name for p in parameters if p.is_list])
        except Unspellable as refusal:
            raise CodegenError(f"cannot generate code for {refusal.what}: {refusal.why}") from None


ARRAY_API = ArrayApiTarget()
