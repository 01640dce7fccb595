"""The gradient table: every differentiable numpy function, one row each.

Each module here but ``cases`` holds one family's rows in a ``rows()``
function; ``rows()`` below gathers them all, in module-name order.  The ir
tests check every case against finite differences, the codegen tests run
every case through generated code.
"""

import importlib
import pkgutil

FLOAT32_ROWS = {"sin", "divide", "power", "matmul", "max", "mean", "std", "prod", "clip", "take"}
"""Row names whose cases also run in float32 (the id's text before its first '-')."""


def families():
    """The modules holding rows, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "cases")
    return {name: importlib.import_module(f"{__name__}.{name}") for name in names}


def rows():
    """Every case of the table."""
    return [case for family in families().values() for case in family.rows()]
