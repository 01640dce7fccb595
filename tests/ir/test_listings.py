"""Reviewed text listings of recorded and derived graphs, compared byte for byte.

Each golden file in ``golden/`` is ``str(graph)`` for one graph made from
``listing_models.py``: a forward recording, its adjoint before and after
``ir.optimize``, and a recording of a gradient by an outer tape.  The listing
is what users read to understand a trace, so a change to the recorder, the
derivative rules, the passes or the listing format that changes the text
shows up as a diff here, to be reviewed like any other code change.  After
reviewing such a change, regenerate the files with::

    TAPEGEN_UPDATE_GOLDEN=1 pytest tests/ir/test_listings.py
"""

import os
from pathlib import Path

import pytest

import ir
import listing_models

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("TAPEGEN_UPDATE_GOLDEN") == "1"


def _layer_forward():
    tape, _, _ = listing_models.record_layer()
    return tape.graph


def _layer_adjoint():
    tape, loss, sources = listing_models.record_layer()
    graph, targets, groups, _ = tape.graph_of(loss, sources)
    return ir.adjoint(graph, targets, groups)


def _layer_adjoint_optimized():
    return ir.optimize(_layer_adjoint())


def _second_order():
    tape, _, _ = listing_models.record_second_order()
    return tape.graph


GRAPHS = {"layer_forward": _layer_forward, "layer_adjoint": _layer_adjoint,
          "layer_adjoint_optimized": _layer_adjoint_optimized, "second_order": _second_order}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_listing_matches_its_golden_file(name):
    listing = str(GRAPHS[name]()) + "\n"
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(listing, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == listing, (
        f"the listing of {name} differs from {path.name}; review the change and "
        "regenerate with TAPEGEN_UPDATE_GOLDEN=1")
