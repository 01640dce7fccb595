"""What the ``array_api`` target (``codegen.targets.array_api``) knows of the array API
standard: the functions it shares with numpy, those it lacks with the reason, and its dtypes."""

STANDARD_FUNCTIONS = frozenset((
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "conj", "cos",
    "cosh", "exp", "expm1", "floor", "hypot", "isfinite", "isinf", "isnan",
    "log", "log1p", "log2", "log10", "logaddexp", "logical_and", "logical_not",
    "logical_or", "maximum", "minimum", "real", "round", "sign", "sin", "sinh", "sqrt",
    "square", "tan", "tanh", "trunc", "where", "sum", "prod", "mean", "max", "min",
    "argmax", "argmin", "sort", "argsort", "reshape", "broadcast_to", "tensordot",
    "matmul", "zeros_like", "ones_like", "full_like", "stack", "flip", "moveaxis", "clip",
    "reciprocal", "take_along_axis", "expand_dims", "squeeze", "repeat", "atan2", "pow",
    "equal", "greater", "less", "arange", "eye",
    *(f"linalg.{name}" for name in (
        "cholesky", "det", "eigh", "eigvalsh", "inv", "pinv", "qr", "slogdet", "solve",
        "svd", "svdvals", "matrix_norm", "vector_norm", "diagonal", "outer", "trace")),
    *(f"fft.{name}" for name in (
        "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
        "fftshift", "ifftshift", "fftfreq", "rfftfreq"))))
"""The functions of the array API standard that generated code calls and numpy names
alike (``np.linalg.inv`` is ``xp.linalg.inv``): a numpy spelling's call of one is
spelled in the namespace by the same name.  A primitive whose function the standard
names otherwise states its spelling (``Primitive.array_api``)."""


def standard_name(name):
    """The standard's name for numpy's function ``name`` (``np.linalg.inv``), or ``None``."""
    if not name.startswith("np."):
        return None
    return name[3:] if name[3:] in STANDARD_FUNCTIONS else None


NOT_IN_THE_STANDARD = {
    "np.linalg.eig": "the standard has only the symmetric eigendecomposition, eigh",
    "np.argpartition": "the standard has no partition, and libraries order the parts "
                       "differently",
    "np.indices": "the standard has no indices",
    "np.add.at": "unbuffered adds at repeated indices are not in the standard",
    "scipy.linalg.expm": "the standard has no functions of matrices, and scipy.linalg does not "
                         "compute them in every namespace",
    "scipy.linalg.solve_sylvester": "the standard has no Sylvester solver, and scipy.linalg "
                                    "does not compute it in every namespace",
    "scipy.linalg.solve_banded": "the standard has no banded solver, and scipy.linalg does not "
                                 "compute it in every namespace",
    "a new axis in an index update": "array_api_extra.at cannot write through a new axis",
    "integer-array indexing": "the standard's integer-array indexing is too narrow to "
                              "spell numpy's here",
}
"""numpy functions that generated code may call and the standard lacks, with the reason;
a module that needs one is refused for this target.  (A primitive that refuses the
standard only for some of its params says why in its own spelling, as ``eigh``'s
upper triangle.)"""


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128")
"""The standard's dtypes, by the names numpy and the namespace share."""
