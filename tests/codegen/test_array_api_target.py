"""The ``array_api`` target: every gradient-table case generated for the array API
standard and run on ``array_api_strict``, which refuses anything outside the standard,
must equal the numpy target's result at first and second order, or be refused at
generation with a message naming what the standard lacks (the refusals are listed in
``array_api_refusals``, and checked against what generation refuses)."""

import re

import numpy as np
import pytest

import codegen
import codegen.module
import tracer
from array_api_refusals import REFUSED_AT_FIRST_ORDER, REFUSED_AT_SECOND_ORDER
from codegen.emit import CodegenError
from codegen_support import assert_gradients_equal, call, case_derivative
from gradient_table import rows

xps = pytest.importorskip("array_api_strict")
CASES = [pytest.param(case, id=case.id) for case in rows()]


@pytest.fixture(autouse=True)
def inline_captured_arrays(monkeypatch):
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)


def _strict(value):
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_strict(v) for v in value)
    return None if value is None else xps.asarray(value)


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    return None if value is None else np.asarray(value)


def _refusal_or_check(case, second):
    """``None`` when the array-API module equals the numpy one on ``array_api_strict``,
    else the function its generation refused."""
    tape, targets, tensors = case_derivative(case, second)
    if not targets:
        pytest.skip("linear: no second derivative")
    try:
        source = codegen.gradient_source(tape, targets, tensors, seed_argument=True,
                                         target="array_api")
    except CodegenError as refusal:
        assert "has no spelling for target='array_api'" in str(refusal), str(refusal)
        return str(refusal).removeprefix("cannot generate code for ").split(":")[0].split(",")[0]
    numpy_module = codegen.load(codegen.gradient_source(tape, targets, tensors,
                                                        seed_argument=True))
    rng = np.random.default_rng(3)
    seed = [rng.standard_normal(t.shape).astype(t.dtype) for t in targets]
    values = {t.name: t.numpy() for t in tensors}
    with np.errstate(all="ignore"):
        want = call(numpy_module, values, seed)
        got = call(codegen.load(source), _strict(values), _strict(seed))
    assert_gradients_equal(_numpy(got), want)
    return None


@pytest.mark.parametrize("case", CASES)
def test_first_order_on_the_standard_alone(case):
    assert _refusal_or_check(case, second=False) == REFUSED_AT_FIRST_ORDER.get(case.id)


@pytest.mark.parametrize("case", CASES)
def test_second_order_on_the_standard_alone(case):
    assert _refusal_or_check(case, second=True) == REFUSED_AT_SECOND_ORDER.get(case.id)


def test_a_module_reads_its_namespace_from_its_arguments_and_calls_only_the_standard():
    x = tracer.constant(np.ones((4, 3)), name="x", dims=("batch", None))
    w = tracer.constant(np.full((3, 2), 0.5), name="w")
    with tracer.GradientTape() as tape:
        tape.watch(w)
        loss = np.mean(np.tanh(x @ w) ** 2) + np.sum(x[:, 0]) * np.sum(w.T)
    source = codegen.gradient_source(tape, loss, [w], target="array_api")
    body = source[source.index("def gradient"):source.index("def _check_inputs")]
    code = "\n".join(line for line in body.split("\n") if not line.strip().startswith("#"))
    assert not re.search(r"\bnp\.|\.T\b|(?<!xp)\.(reshape|astype)\(", code), code
    assert "xp, w, x = _check_inputs(w, x)" in body and "n_batch = x.shape[0]" in body
    assert "from array_api_compat import array_namespace" in source
    module = codegen.load(source)
    for batch in (1, 6):
        values = [np.full((3, 2), 0.5), np.arange(batch * 3.0).reshape(batch, 3)]
        got = module.gradient(*[xps.asarray(v) for v in values])[0]
        want = codegen.load(codegen.gradient_source(tape, loss, [w])).gradient(*values)[0]
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    with pytest.raises(ValueError, match="w: expected float64"):
        module.gradient(xps.asarray(np.ones((3, 2), np.float32)), xps.asarray(np.ones((2, 3))))


def test_a_refusal_names_the_function_the_users_line_and_the_target():
    x = tracer.constant(np.ones((3, 3)), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(np.real(np.linalg.eig(x)[0]))
    with pytest.raises(CodegenError, match=r"np\.linalg\.eig, computing test_array_api_target"
                                           r"\.py:\d+: it has no spelling for target="
                                           r"'array_api': the standard has only the symmetric"):
        codegen.gradient_source(tape, loss, [x], target="array_api")


def test_an_unknown_target_is_refused():
    x = tracer.constant(np.ones(3), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(x)
    with pytest.raises(ValueError, match="target='cuda': generated modules are written for "
                                         "'numpy' or 'array_api'"):
        codegen.gradient_source(tape, loss, [x], target="cuda")


def test_loops_write_their_steps_with_array_api_extra():
    w = tracer.constant(np.full((3, 3), 0.3), name="w")
    xs = tracer.constant(np.linspace(-1, 1, 30).reshape(5, 2, 3), name="xs",
                         dims=("steps", "batch", None))
    with tracer.GradientTape() as tape:
        tape.watch(w)
        carry, outs = tracer.scan(lambda h, x: (np.tanh(h @ w + x),) * 2,
                                  np.zeros_like(xs[0]), xs)
        loss = np.sum(outs ** 2) + np.sum(carry)
    source = codegen.gradient_source(tape, loss, [w], target="array_api")
    assert "import array_api_extra as xpx" in source
    assert "for step in range(xs.shape[0]):" in source
    assert "kept = xpx.at(kept, (step, ...)).set(carry)" in source
    values = [np.full((3, 3), 0.2), np.linspace(-1, 1, 63).reshape(7, 3, 3)]
    want = codegen.load(codegen.gradient_source(tape, loss, [w])).gradient(*values)
    got = codegen.load(source).gradient(*[xps.asarray(v) for v in values])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


SCIPY_WITHOUT_ARRAY_API = '''
import numpy as np, scipy.special, array_api_strict
import codegen, tracer
x = tracer.constant(np.array([0.5, 1.5]), name="x")
with tracer.GradientTape(persistent=True) as tape:
    tape.watch(x)
    loss = np.sum(scipy.special.gammaln(x))
print(*np.asarray(tape.gradient(loss, x)).tolist())
module = codegen.load(codegen.gradient_source(tape, loss, [x], target="array_api"))
try:
    module.gradient(array_api_strict.asarray([0.5, 1.5]))
except RuntimeError as refusal:
    print(refusal)
'''


def test_scipy_special_modules_need_scipys_array_api_and_say_so():
    """Without SCIPY_ARRAY_API=1 tapegen still differentiates scipy.special, and a module
    that would call it on another library's arrays says what to set."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "SCIPY_ARRAY_API"}
    run = subprocess.run([sys.executable, "-c", SCIPY_WITHOUT_ARRAY_API], env=env,
                         capture_output=True, text=True, check=True)
    gradient, refusal = run.stdout.strip().split("\n")
    np.testing.assert_allclose(np.array(gradient.split(), float),
                               scipy_digamma([0.5, 1.5]), rtol=1e-8)
    assert "set the environment variable SCIPY_ARRAY_API=1" in refusal


def scipy_digamma(x):
    import scipy.special
    return scipy.special.digamma(np.asarray(x))


@pytest.mark.parametrize("case", CASES[::20])
def test_a_sample_holds_on_the_2024_12_standard(case):
    """The modules need the standard as of 2024.12 (cumulative_prod, diff), no later."""
    with xps.ArrayAPIStrictFlags(api_version="2024.12"):
        assert _refusal_or_check(case, second=False) == REFUSED_AT_FIRST_ORDER.get(case.id)
