"""The primitives of the IR, one module per family.

Importing this package defines them all (every module in it is imported, so a
new family module needs no entry here); ``ir.primitive.PRIMITIVES`` maps each
name to its definition, and ``ir.bindings.NUMPY_FUNCTIONS`` the numpy functions
they compute.  ``special`` needs scipy, which stays optional: without it, that
module is ``None``.
"""

import importlib
import pkgutil

__all__ = []

for _module in pkgutil.iter_modules(__path__):
    try:
        globals()[_module.name] = importlib.import_module(f"{__name__}.{_module.name}")
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "scipy":
            raise
        globals()[_module.name] = None
    __all__.append(_module.name)
del _module
