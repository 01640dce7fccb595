"""The gradient table with symbolic sizes: each case traced once, with the leading axis of
every argument declared symbolic, and its generated module called at other sizes.

Arguments whose leading axes have the same traced size share one name (as
numpy would have to agree on them anyway).  At each other size (1, 2 and one
larger than the traced one) the module must either match the eager gradients
of the case traced at that size, at first and second order (as must the
module at the traced size itself), or refuse the
call with a guard message: a guard is how a trace says which sizes it holds
for, never a wrong gradient.  Most cases must stay symbolic at every size.
"""

import warnings

import numpy as np
import pytest

import codegen.module
import tracer
from codegen_support import assert_gradients_equal, call, recorded
from gradient_table import rows

OTHER_SIZES = (1, 2, 7)
CASES = [pytest.param(case, id=case.id) for case in rows()]


@pytest.fixture(autouse=True)
def inline_captured_arrays(monkeypatch):
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)


def _dims(arrays):
    return [None if a.ndim == 0 or a.shape[0] < 2 else (f"n{a.shape[0]}",) + (None,) * (a.ndim - 1)
            for a in arrays]


def _tensors(arrays, dims):
    return [tracer.constant(a, name=f"x{k}", dims=d) for k, (a, d) in enumerate(zip(arrays, dims))]


def _resized(case, arrays, dims, size):
    """The case's arguments drawn again, each symbolic leading axis of ``size``."""
    rng = np.random.default_rng(size)
    out = []
    for (shape, domain), array, d in zip(case.specs, arrays, dims):
        shape = tuple(shape) if d is None else (size,) + tuple(shape[1:])
        out.append(np.asarray(domain(rng, shape)).astype(array.dtype))
    return out


def _gradient_module(case, arrays, dims, second):
    tensors = _tensors(arrays, dims)
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = case.fn(*tensors)
        if not second:
            return tensors, out, codegen.gradient_source(inner, out, tensors, seed_argument=True)
        first = inner.gradient(out, tensors)
    targets = [g for g in first if g is not None and recorded(outer, g)]
    if not targets:
        return None
    return tensors, targets, codegen.gradient_source(outer, targets, tensors)


def _eager(case, arrays, seed_of, second):
    tensors = [tracer.constant(a, name=f"x{k}") for k, a in enumerate(arrays)]
    with tracer.GradientTape() as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = case.fn(*tensors)
        if not second:
            seed = seed_of(out)
            return seed, inner.gradient(out, tensors, output_gradients=tracer.constant(seed))
        first = inner.gradient(out, tensors)
    targets = [g for g in first if g is not None and recorded(outer, g)]
    return None, outer.gradient(targets, tensors)


def _check(case, second):
    arrays = case.arrays()
    dims = _dims(arrays)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tracer.GradientTapeWarning)
        made = _gradient_module(case, arrays, dims, second)
    if made is None:
        return "linear"
    _, _, source = made
    module = codegen.load(source)
    outcome = "symbolic"
    for size in (None,) + OTHER_SIZES:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                resized = arrays if size is None else _resized(case, arrays, dims, size)
                seed, eager = _eager(case, resized, _seed, second)
        except (ValueError, IndexError, TypeError, np.linalg.LinAlgError):
            continue  # (the case itself does not take this size)
        values = {f"x{k}": a for k, a in enumerate(resized)}
        try:
            with np.errstate(all="ignore"):
                generated = call(module, values, seed)
        except ValueError as refusal:
            assert "this module holds only where" in str(refusal), str(refusal)
            outcome = "guarded"
            continue
        assert_gradients_equal(generated, eager)
    return outcome


def _seed(out):
    return np.random.default_rng(3).standard_normal(out.shape).astype(out.dtype)


def _outcomes(second):
    """Each case's outcome ("symbolic", "guarded", "linear"), or the error its check
    raised: computed once, for the per-case tests and the shares below."""
    outcomes = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)
        for param in CASES:
            case = param.values[0]
            try:
                outcomes[case.id] = _check(case, second=second)
            except Exception as error:  # (raised again by the case's own test)
                outcomes[case.id] = error
    return outcomes


@pytest.fixture(scope="module")
def first_order():
    return _outcomes(second=False)


@pytest.fixture(scope="module")
def second_order():
    return _outcomes(second=True)


@pytest.mark.parametrize("case", CASES)
def test_first_order_at_other_sizes(case, first_order):
    if isinstance(first_order[case.id], Exception):
        raise first_order[case.id]


@pytest.mark.parametrize("case", CASES)
def test_second_order_at_other_sizes(case, second_order):
    if isinstance(second_order[case.id], Exception):
        raise second_order[case.id]


SYMBOLIC_SHARE = 0.87
"""The least share of cases (with a second derivative, at second order) whose module
holds at every other size. The others are guarded: a case that needs its symbolic axis
equal to a static size (broadcasting ``(n,)`` against ``(2, 3)``, square matrices, fft
lengths, slice bounds), or on one side of one (a thin SVD or QR, whose factors have
``min(m, n)`` columns), holds only there; so does a case whose derivative is unrolled
by the size (``cumprod``'s log-depth scan) or that numpy splits by it (``array_split``)."""


@pytest.mark.parametrize("order", ["first_order", "second_order"])
def test_most_cases_hold_at_every_size(order, request):
    outcomes = request.getfixturevalue(order)
    counted = [k for k, v in outcomes.items() if v != "linear"]
    guarded = sorted(k for k in counted if outcomes[k] == "guarded")
    assert len(counted) - len(guarded) >= SYMBOLIC_SHARE * len(counted), guarded
