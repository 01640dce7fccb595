"""What the ``array_api`` target (``codegen.array_api``) knows of the array API standard:
the standard's name for each numpy function generated code calls, the functions it
lacks with the reason, and its dtypes."""

TARGETS = ("numpy", "array_api")
"""The targets generated modules are written for."""


def check_target(target):
    if target not in TARGETS:
        raise ValueError(f"target={target!r}: generated modules are written for "
                         f"{' or '.join(map(repr, TARGETS))}")

STANDARD_NAMES = {
    **{f"np.{name}": name for name in (
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "conj", "cos",
        "cosh", "exp", "expm1", "floor", "hypot", "isfinite", "isinf", "isnan",
        "log", "log1p", "log2", "log10", "logaddexp", "logical_and", "logical_not",
        "logical_or", "maximum", "minimum", "real", "round", "sign", "sin", "sinh", "sqrt",
        "square", "tan", "tanh", "trunc", "where", "sum", "prod", "mean", "max", "min",
        "argmax", "argmin", "sort", "argsort", "reshape", "broadcast_to", "tensordot",
        "matmul", "zeros_like", "ones_like", "full_like", "stack", "flip", "roll",
        "moveaxis", "clip", "reciprocal", "take_along_axis", "expand_dims", "squeeze",
        "std", "var", "diff", "meshgrid", "tile", "repeat", "atan2", "pow", "equal",
        "greater", "less", "arange", "eye")},
    "np.absolute": "abs", "np.arccos": "acos", "np.arccosh": "acosh", "np.arcsin": "asin",
    "np.arcsinh": "asinh", "np.arctan": "atan", "np.arctanh": "atanh", "np.arctan2": "atan2",
    "np.power": "pow", "np.concatenate": "concat", "np.transpose": "permute_dims",
    "np.cumsum": "cumulative_sum", "np.cumprod": "cumulative_prod", "np.conjugate": "conj",
    **{f"np.linalg.{name}": f"linalg.{name}" for name in (
        "cholesky", "det", "eigh", "eigvalsh", "inv", "pinv", "qr", "slogdet", "solve",
        "svd", "svdvals", "matrix_norm", "vector_norm", "diagonal", "outer", "trace")},
    **{f"np.fft.{name}": f"fft.{name}" for name in (
        "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
        "fftshift", "ifftshift", "fftfreq", "rfftfreq")},
}
"""numpy's name for a function, and the standard's name for the same function (called
with the same arguments), in the namespace ``xp``."""

NOT_IN_THE_STANDARD = {
    "np.einsum": "the standard has no einsum; write the contraction with tensordot or @",
    "np.linalg.eig": "the standard has only the symmetric eigendecomposition, eigh",
    "np.linalg.norm": "the standard splits it into vector_norm and matrix_norm",
    "np.cbrt": "the standard has no cube root",
    "np.exp2": "the standard has no exp2",
    "np.logaddexp2": "the standard has no logaddexp2",
    "np.float_power": "the standard has no float_power",
    "np.sinc": "the standard has no sinc",
    "np.i0": "the standard has no Bessel functions",
    "np.tril": "the standard has no triangles of matrices",
    "np.triu": "the standard has no triangles of matrices",
    "np.diag": "the standard has no diag",
    "np.pad": "the standard has no pad",
    "np.argpartition": "the standard has no partition",
    "np.indices": "the standard has no indices",
    "np.fft.fft2": "the standard's fftn takes the axes",
    "np.add.at": "unbuffered adds at repeated indices are not in the standard",
    "np.real": "the standard's real takes complex arrays alone",
    "np.imag": "the standard's imag takes complex arrays alone",
    "scipy.special": "scipy.special has no array-API spelling here yet",
    "a new axis in an index": "the standard's indexing has no None; reshape instead",
    "integer-array indexing": "the standard's integer-array indexing is too narrow to "
                              "spell numpy's here",
}
"""numpy functions that generated code may call and the standard lacks, with the reason;
a module that needs one is refused for this target."""


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128")
"""The standard's dtypes, by the names numpy and the namespace share."""
