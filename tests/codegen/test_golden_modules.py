"""Reviewed generated modules, compared byte for byte.

Each golden file in ``golden/`` is the module generated for one model of
``golden_models.py``; a change to the code generator, the derivative rules
or the passes that changes the text shows up as a diff here, to be reviewed
like any other code change.  After reviewing such a change, regenerate the
files with::

    TAPEGEN_UPDATE_GOLDEN=1 pytest tests/codegen/test_golden_modules.py

Each golden module must also still compute what the eager tape computes.
"""

import os
from pathlib import Path

import numpy as np
import pytest

import codegen
import golden_models
from codegen_support import assert_gradients_equal, call

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("TAPEGEN_UPDATE_GOLDEN") == "1"


def _dense_layer():
    tape, loss, sources, values = golden_models.record_dense_layer()
    source = codegen.gradient_source(tape, loss, sources, name="loss_grad", with_value=True)
    return source, values, None, (loss, tape.gradient(loss, sources))


def _hessian_vector_product():
    tape, gradient, w, values = golden_models.record_hessian_vector_product()
    source = codegen.gradient_source(tape, gradient, w, name="hessian_vector_product",
                                     seed_argument=True)
    seed = np.random.default_rng(3).standard_normal(w.shape)
    return source, values, seed, tape.gradient(gradient, w, output_gradients=seed)


def _classifier():
    tape, loss, W, values = golden_models.record_classifier()
    source = codegen.gradient_source(tape, loss, W, name="cross_entropy_grad")
    return source, values, None, tape.gradient(loss, W)


def _unrolled_pendulum():
    tape, loss, sources, values = golden_models.record_unrolled_pendulum()
    source = codegen.gradient_source(tape, loss, sources, name="pendulum_grad",
                                     with_value=True)
    return source, values, None, (loss, tape.gradient(loss, sources))


def _unrolled_rnn():
    tape, loss, sources, values = golden_models.record_unrolled_rnn()
    source = codegen.gradient_source(tape, loss, sources, name="rnn_grad")
    return source, values, None, tape.gradient(loss, sources)


MODULES = {"dense_layer": (_dense_layer, "loss_grad"),
           "hessian_vector_product": (_hessian_vector_product, "hessian_vector_product"),
           "classifier": (_classifier, "cross_entropy_grad"),
           "unrolled_pendulum": (_unrolled_pendulum, "pendulum_grad"),
           "unrolled_rnn": (_unrolled_rnn, "rnn_grad")}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_generated_module_matches_its_golden_file(name):
    record, function = MODULES[name]
    source, values, seed, expected = record()
    path = GOLDEN / f"{name}.py"
    if UPDATE:
        codegen.write(path, source)
    assert path.read_text(encoding="utf-8") == source, (
        f"the module generated for {name} differs from {path.name}; review the change and "
        "regenerate with TAPEGEN_UPDATE_GOLDEN=1")
    result = call(codegen.load(str(path)), values, seed, name=function)
    assert_gradients_equal(result, expected)
