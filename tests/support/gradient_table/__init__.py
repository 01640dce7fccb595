"""The gradient table: every differentiable numpy function, one row each.

Each module here but ``cases`` holds one family's rows in a ``rows()``
function; ``rows()`` below gathers them all, in module-name order.  The ir
tests check every case against finite differences, the codegen tests run
every case through generated code.
"""

import importlib
import pkgutil

import numpy as np

SCIPY_FLOAT32_ROWS = {
    "special.logsumexp", "special.softmax", "special.log_softmax", "special.i0e",
    "special.i1e", "special.rel_entr", "special.ndtri", "special.erfcx", "special.dawsn",
    "special.owens_t", "special.loggamma", "special.poch", "special.entr", "special.kl_div",
    "special.expi", "special.exp1", "special.spence", "special.boxcox", "special.boxcox1p",
    "special.inv_boxcox", "special.inv_boxcox1p", "linalg.solve_triangular", "linalg.expm",
    "linalg.sqrtm", "linalg.solve_sylvester", "linalg.solve_banded", "signal.convolve",
    "stats.dirichlet.logpdf"}
"""tracer.scipy's rows that run in float32 too: those scipy computes in float32.  Its
other distributions, and special's multigammaln, compute in float64, as tracer.scipy's."""

FLOAT32_ROWS = {"sin", "divide", "power", "matmul", "max", "mean", "std", "prod", "clip", "take",
                "linalg.inv", "linalg.det", "linalg.cholesky", "linalg.eigh", "linalg.svd",
                "linalg.qr", "linalg.norm", "einsum", "cumsum", "cumprod", "sort", "median",
                "pad", "take_along_axis", "tile", "roll", "linspace", *SCIPY_FLOAT32_ROWS}
"""Row names whose real cases also run in float32 (the id's text before its first '-')."""


def families():
    """The modules holding rows, by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name != "cases")
    return {name: importlib.import_module(f"{__name__}.{name}") for name in names}


def rows():
    """Every case of the table."""
    return [case for family in families().values() for case in family.rows()]


def float32_rows():
    """The cases that also run in float32: those of ``FLOAT32_ROWS`` on real inputs."""
    return [case for case in rows() if case.id.split("-")[0] in FLOAT32_ROWS
            and not any(np.iscomplexobj(a) for a in case.arrays())]
