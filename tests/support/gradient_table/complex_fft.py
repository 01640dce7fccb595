"""Complex numbers and np.fft: holomorphic and non-holomorphic functions of complex
inputs, paths between real and complex values, products, and every transform.

Gradients follow TensorFlow's convention (``dL/dx + i dL/dy``), which
``tracer.check_gradients`` checks along random real and imaginary directions.
Ids start with ``complex.`` or ``fft.``, so no row runs the float32 tests
(complex64 is covered by ``tests/tracer/test_complex.py``).  Inputs stay away
from branch cuts (the negative real axis for ``log``/``sqrt``, ``|z| > 1`` on an
axis for the inverse trigonometric functions) and from zero where a function
is not differentiable there.
"""

import numpy as np

from gradient_table.cases import REAL, Case, binary, fixed, key_text, shape_text, unary


def complex_box(real, imag):
    """Real parts uniform in ``real`` and imaginary parts in ``imag`` (``(lo, hi)`` pairs)."""
    return lambda rng, shape: rng.uniform(*real, shape) + 1j * rng.uniform(*imag, shape)


def complex_ring(lo, hi):
    """Magnitudes in ``(lo, hi)`` at any phase: away from zero."""
    def sample(rng, shape):
        return rng.uniform(lo, hi, shape) * np.exp(1j * rng.uniform(-np.pi, np.pi, shape))
    return sample


COMPLEX = complex_box((-1.5, 1.5), (-1.5, 1.5))
SMALL = complex_box((-0.6, 0.6), (-0.6, 0.6))
RIGHT = complex_box((0.4, 2.0), (-1.5, 1.5))
RIGHT_OF_ONE = complex_box((1.3, 3.0), (-1.0, 1.0))
RING = complex_ring(0.5, 2.0)

SHAPES = [(), (2, 3)]
PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))]
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((3,), (5, 3, 2))]


def _unary(name, fn, domain=COMPLEX):
    return unary(f"complex.{name}", fn, domain, SHAPES)


def _binary(name, fn, domain=COMPLEX, second=None, shapes=PAIRS):
    return binary(f"complex.{name}", fn, domain, second, shapes)


def elementwise_rows():
    """Holomorphic ufuncs and operators on complex inputs, and real/complex mixtures."""
    return [
        _unary("negative", np.negative), _unary("square", np.square),
        _unary("sqrt", np.sqrt, RIGHT), _unary("reciprocal", np.reciprocal, RING),
        _unary("exp", np.exp), _unary("exp2", np.exp2), _unary("expm1", np.expm1),
        _unary("log", np.log, RIGHT), _unary("log2", np.log2, RIGHT),
        _unary("log10", np.log10, RIGHT), _unary("log1p", np.log1p, SMALL),
        _unary("sin", np.sin), _unary("cos", np.cos), _unary("tan", np.tan, SMALL),
        _unary("arcsin", np.arcsin, SMALL), _unary("arccos", np.arccos, SMALL),
        _unary("arctan", np.arctan, SMALL), _unary("sinh", np.sinh), _unary("cosh", np.cosh),
        _unary("tanh", np.tanh, SMALL), _unary("arcsinh", np.arcsinh, SMALL),
        _unary("arccosh", np.arccosh, RIGHT_OF_ONE),
        _unary("arccosh-left", np.arccosh, complex_box((-3.0, -1.3), (0.2, 1.0))),
        _unary("arctanh", np.arctanh, SMALL), _unary("sinc", np.sinc, RING),
        _unary("cube", lambda z: z ** 3), _unary("power-complex", lambda z: z ** (0.5 + 1j), RIGHT),
        _unary("times-i", lambda z: 1j * z + (2 - 1j)),
        _binary("add", np.add), _binary("subtract", np.subtract),
        _binary("multiply", np.multiply), _binary("divide", np.divide, COMPLEX, RING),
        _binary("power", np.power, RIGHT, SMALL),
        _binary("float_power", np.float_power, RIGHT, SMALL, shapes=PAIRS[:1]),
        _binary("real-times-complex", np.multiply, REAL, COMPLEX),
        _binary("complex-over-real", lambda z, x: z / (x * x + 1), COMPLEX, REAL),
        _binary("from-parts", lambda x, y: np.exp(x + 1j * y), REAL, REAL),
        _binary("real-power-complex", lambda x, w: (x * x + 1) ** w, REAL, SMALL),
        fixed("complex.where", lambda z, w: np.where([True, False, True], z, w),
              ((3,), COMPLEX), ((2, 1), COMPLEX)),
    ]


def parts_rows():
    """Functions that are not holomorphic: parts, conjugate, modulus and phase."""
    return [
        _unary("real", lambda z: np.real(z * z)), _unary("imag", lambda z: np.imag(z * z)),
        _unary("conj", lambda z: np.conj(z) * np.sin(z)),
        _unary("conjugate", lambda z: np.conjugate(z * z)),
        _unary("angle", np.angle, RING), _unary("angle-deg", lambda z: np.angle(z, deg=True), RING),
        _unary("abs", np.abs, RING), _unary("abs-squared", lambda z: abs(z) ** 2),
        _unary("sign", lambda z: np.sign(z) * z * z, RING),
        _unary("absolute", lambda z: np.absolute(np.exp(z) * z), RING),
        _unary("modulus-by-parts", lambda z: np.sqrt(np.real(z) ** 2 + np.imag(z) ** 2), RING),
        _unary("real-of-real", lambda x: np.real(x) * np.imag(x * x), domain=REAL),
        _binary("hermitian-product", lambda z, w: np.conj(z) * w),
        _binary("real-loss", lambda x, w: np.real(np.conj(w) * np.exp(1j * x)), REAL, COMPLEX),
    ]


def product_rows():
    """Reductions, shapes and products of complex arrays (their rules hold unchanged)."""
    return [
        [Case(f"complex.matmul-{shape_text(a)}-{shape_text(b)}", np.matmul,
              [(a, COMPLEX), (b, COMPLEX)]) for a, b in MATMUL_SHAPES],
        fixed("complex.matmul-real-complex", np.matmul, ((2, 3), REAL), ((3, 2), COMPLEX)),
        fixed("complex.matmul-complex-real", np.matmul, ((2, 3), COMPLEX), ((3,), REAL)),
        fixed("complex.@-hermitian", lambda a: np.conj(np.swapaxes(a, -1, -2)) @ a,
              ((2, 3, 2), COMPLEX)),
        fixed("complex.dot", np.dot, ((2, 3), COMPLEX), ((3,), COMPLEX)),
        fixed("complex.tensordot", lambda a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])),
              ((2, 3, 2), COMPLEX), ((3, 2, 2), COMPLEX)),
        fixed("complex.sum", lambda z: np.sum(z, axis=-1), ((2, 3), COMPLEX)),
        fixed("complex.mean", lambda z: np.mean(z, axis=0, keepdims=True), ((2, 3), COMPLEX)),
        fixed("complex.prod", lambda z: np.prod(z, axis=-1), ((2, 3), RING)),
        # numpy's variance of complex values is the real mean(|z - mean(z)|**2).
        fixed("complex.var", np.var, ((3, 4), COMPLEX)),
        fixed("complex.var-axis-ddof", lambda z: np.var(z, axis=0, ddof=1, keepdims=True),
              ((3, 4), COMPLEX)),
        fixed("complex.var-axes", lambda z: z.var(axis=(0, 2)) * (1 - 2j), ((2, 3, 2), COMPLEX)),
        fixed("complex.std", lambda z: np.std(z, axis=-1), ((2, 3), COMPLEX)),
        fixed("complex.std-ddof-keepdims", lambda z: z.std(axis=1, ddof=1, keepdims=True),
              ((2, 3), COMPLEX)),
        fixed("complex.reshape-transpose", lambda z: np.transpose(np.reshape(z, (3, 2))) * z,
              ((2, 3), COMPLEX)),
        fixed("complex.getitem", lambda z: z[:, [0, 2, 2]] * z[1], ((2, 3), COMPLEX)),
        fixed("complex.concatenate", lambda z, w: np.concatenate([z, w * z[:1]]),
              ((2, 3), COMPLEX), ((1, 3), COMPLEX)),
        fixed("complex.astype", lambda x: x.astype(np.complex128) * (1 + 2j), ((3,), REAL)),
    ]


def _fft_case(name, fn, shape, domain):
    return Case(f"fft.{name}", fn, [(shape, domain)])


ONE_AXIS = [
    # (name, keywords, input shape)
    ("fft", {}, (6,)), ("fft", {"n": 4}, (6,)), ("fft", {"n": 8, "norm": "ortho"}, (5,)),
    ("fft", {"axis": 0, "norm": "forward"}, (4, 3)),
    ("ifft", {}, (5,)), ("ifft", {"n": 7, "axis": -2, "norm": "ortho"}, (4, 2)),
    ("ifft", {"n": 3, "norm": "forward"}, (2, 5)),
    ("rfft", {}, (6,)), ("rfft", {}, (5,)), ("rfft", {"n": 8, "norm": "ortho"}, (5,)),
    ("rfft", {"n": 3, "axis": 0, "norm": "forward"}, (6, 2)),
    ("irfft", {}, (4,)), ("irfft", {"n": 7}, (4,)), ("irfft", {"n": 4, "norm": "ortho"}, (5, 3)),
    ("irfft", {"n": 9, "axis": 0, "norm": "forward"}, (3, 2)),
]
MANY_AXES = [
    ("fft2", {}, (3, 4)), ("fft2", {"s": (2, 5), "norm": "ortho"}, (2, 3, 4)),
    ("ifft2", {"axes": (0, 2)}, (3, 2, 4)),
    ("rfft2", {}, (3, 4)), ("rfft2", {"s": (4, 3), "norm": "forward"}, (2, 3, 4)),
    ("irfft2", {}, (3, 3)), ("irfft2", {"s": (2, 5), "norm": "ortho"}, (2, 3, 4)),
    ("fftn", {}, (2, 3, 2)), ("fftn", {"axes": (-1, 0)}, (2, 3, 2)),
    ("ifftn", {"s": (3, 3), "axes": (0, 1), "norm": "ortho"}, (2, 4, 2)),
    ("rfftn", {}, (2, 3, 4)), ("rfftn", {"s": (3, 5), "axes": (2, 0)}, (2, 3, 4)),
    ("irfftn", {}, (2, 3, 3)), ("irfftn", {"s": (4, 2), "axes": (1, 0), "norm": "forward"},
                                (3, 3, 2)),
]
REAL_INPUT = {"rfft", "rfft2", "rfftn"}


def _transform(name, keywords):
    function = getattr(np.fft, name)
    return lambda z: function(z, **keywords)


def fft_rows():
    """Every transform over lengths, axes and norms; real transforms of real inputs."""
    cases = [_fft_case(f"{name}-{shape_text(shape)}-{key_text(keywords)}",
                       _transform(name, keywords), shape,
                       REAL if name in REAL_INPUT else COMPLEX)
             for name, keywords, shape in ONE_AXIS + MANY_AXES]
    weights = np.arange(1.0, 7.0)
    return [cases, [
        _fft_case("fft-of-real", lambda x: np.fft.fft(x, axis=0), (4, 2), REAL),
        _fft_case("power-spectrum", lambda x: np.abs(np.fft.rfft(x)) ** 2, (6,), REAL),
        _fft_case("irfft-of-rfft", lambda x: np.fft.irfft(np.fft.rfft(x) * (1 - 0.5j), n=5),
                  (5,), REAL),
        _fft_case("convolution", lambda x: np.fft.ifft(np.fft.fft(x) ** 2), (4,), COMPLEX),
        _fft_case("fftshift", lambda z: np.fft.fftshift(z) * weights, (6,), COMPLEX),
        _fft_case("fftshift-axes", lambda x: np.fft.fftshift(x, axes=0) * weights[:3, None],
                  (3, 2), REAL),
        _fft_case("ifftshift", lambda z: np.fft.ifftshift(z, axes=(0, 1)) * weights[:5, None],
                  (5, 2), COMPLEX),
    ]]


def rows():
    """The complex and FFT cases."""
    groups = elementwise_rows() + parts_rows() + product_rows() + fft_rows()
    return [case for group in groups for case in group]
