"""Linear algebra on the ``array_api`` target beyond the gradient table: numpy's
``UPLO='U'``, which the standard's ``eigh`` lacks, and the singular value gradients under
``jax.jit``, whose compiler may fuse products into subtractions."""

import numpy as np
import pytest

import codegen
import tracer
from codegen.emit import CodegenError


def _tape_of(fn, a):
    tensor = tracer.constant(a, name="a")
    with tracer.GradientTape() as tape:
        tape.watch(tensor)
        out = fn(tensor)
    return tape, out, tensor


@pytest.mark.parametrize("fn", [lambda a: np.sum(np.linalg.eigvalsh(a, UPLO="U") ** 2),
                                lambda a: np.sum(np.linalg.eigh(a, UPLO="U")[1] ** 2 * a)],
                         ids=["eigvalsh", "eigh"])
def test_the_upper_triangle_is_refused_saying_why(fn):
    tape, out, tensor = _tape_of(fn, np.diag([1.0, 2.0, 3.0]))
    with pytest.raises(CodegenError, match=r"np\.linalg\.eig(valsh|h)\(UPLO='U'\), computing "
                                           r"test_array_api_linalg\.py:\d+: it has no spelling "
                                           r"for target='array_api': the standard's eigh and "
                                           r"eigvalsh take no UPLO"):
        codegen.gradient_source(tape, out, [tensor], target="array_api")
    assert "UPLO='U'" in codegen.gradient_source(tape, out, [tensor])


def test_the_lower_triangle_is_the_standards_eigh():
    tape, out, tensor = _tape_of(lambda a: np.sum(np.linalg.eigh(a)[1] ** 2 * a), np.eye(3))
    source = codegen.gradient_source(tape, out, [tensor], target="array_api")
    assert "xp.linalg.eigh(a)" in source and "UPLO" not in source


def test_singular_vector_gradients_under_jax_jit():
    # 1 / (s_j**2 - s_i**2) is 0 where i == j; written s * s - (s * s).T, XLA fused it
    # into a multiply-add whose diagonal was rounding, not 0, and the gradient 1e16.
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    weights = np.arange(1.0, 4.0)

    def weighted(a):
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        product = (u * weights) @ vh
        return np.abs(product) + np.real(product)

    tape, out, tensor = _tape_of(weighted, a)
    numpy_module = codegen.load(codegen.gradient_source(tape, out, [tensor]))
    module = codegen.load(codegen.gradient_source(tape, out, [tensor], target="array_api"))
    (expected,) = numpy_module.gradient(a=a)
    (jitted,) = jax.jit(module.gradient)(jax.numpy.asarray(a))
    np.testing.assert_allclose(np.asarray(jitted), expected, rtol=1e-10, atol=1e-12)
