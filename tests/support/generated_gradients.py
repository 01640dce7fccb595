"""Generated gradient code against the eager tape, at first and second order, for tests
outside ``tests/codegen`` that check one function's derivatives through both paths.

The eager gradients are checked against finite differences by the callers
(``tracer.check_gradients``); this ties generated code to them.
"""

import inspect

import numpy as np

import codegen
import codegen.module
import tracer


def assert_generated_gradients_match(fn, *arrays, monkeypatch):
    """``fn``'s generated first and second derivatives equal the eager tape's, at ``arrays``.

    Arrays ``fn`` captures are written inline, so the generated functions take
    only the tensors (and seeds).
    """
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)
    rng = np.random.default_rng(7)
    tensors = [tracer.constant(a, name=f"x{k}") for k, a in enumerate(arrays)]
    values = {t.name: a for t, a in zip(tensors, arrays)}
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = fn(*tensors)
        upstream = tracer.constant(rng.standard_normal(out.shape).astype(out.dtype), name="u")
        outer.watch(upstream)
        first = inner.gradient(out, tensors, output_gradients=upstream)
    values["u"] = upstream.numpy()
    _assert_same(_generated(outer, out, tensors, values, upstream.numpy()),
                 outer.gradient(out, tensors, output_gradients=upstream))
    targets = [g for g in first if g is not None]
    seeds = [rng.standard_normal(t.shape).astype(t.dtype) for t in targets]
    _assert_same(_generated(outer, targets, tensors, values, seeds),
                 outer.gradient(targets, tensors, output_gradients=seeds))


def _generated(tape, targets, sources, values, seeds):
    module = codegen.load(codegen.gradient_source(tape, targets, sources, seed_argument=True))
    parameters = inspect.signature(module.gradient).parameters
    return module.gradient(**{p: seeds if p == "seed" else values[p] for p in parameters})


def _assert_same(generated, eager):
    assert len(generated) == len(eager)
    for g, e in zip(generated, eager):
        assert (g is None) == (e is None), f"generated {g!r}, eager {e!r}"
        if e is not None:
            assert np.asarray(g).dtype == e.dtype
            np.testing.assert_allclose(g, e.numpy(), rtol=1e-10, atol=1e-12)
