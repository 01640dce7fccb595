"""What the ``array_api`` target (``codegen.array_api``) knows of the array API standard:
the standard's name for each numpy function generated code calls, the functions it
lacks with the reason, and its dtypes."""

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
    "np.linalg.eig": "the standard has only the symmetric eigendecomposition, eigh",
    "UPLO='U'": "the standard's eigh and eigvalsh take no UPLO, and leave which triangle "
                "they read to the library",
    "np.argpartition": "the standard has no partition, and libraries order the parts "
                       "differently",
    "np.indices": "the standard has no indices",
    "np.add.at": "unbuffered adds at repeated indices are not in the standard",
    "np.linalg.norm": "with ord, numpy's norm is a vector or a matrix norm by the rank, which "
                      "the standard splits into vector_norm and matrix_norm",
    "np.einsum": "the _einsum helper takes letter indices, each once per operand, and ->",
    "np.pad": "array_api_extra.pad pads with a constant alone",
    "scipy.special": "scipy.special does not compute it in every namespace (under jax.jit it "
                     "would turn the arrays into numpy's)",
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
a module that needs one is refused for this target."""


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128")
"""The standard's dtypes, by the names numpy and the namespace share."""
