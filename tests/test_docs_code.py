"""The Python code of README.md and docs/*.md runs, and gives what the text shows.

Each ``python`` block is a test, run as ``doc_reading`` says: in order, in one
namespace per document, in a temporary directory, its ``# ->`` comments and
the ``text`` block below it compared with what it computes and prints.  Notes
above a block (``markdown_blocks``) mark what it needs
(``<!-- requires: scipy -->``: skipped, naming the extra, without it), an
excerpt of a text (``<!-- excerpt of: source -->``: compared, not run), or
code that cannot run as it stands (``<!-- not run: why -->``).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from doc_reading import Reading, missing_extras, runs
from markdown_blocks import python_blocks, read_blocks

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("docs/*.md"))]
BLOCKS = {name: python_blocks(name, (ROOT / name).read_text(encoding="utf-8"))
          for name in DOCUMENTS}


@pytest.fixture(scope="module")
def readings(tmp_path_factory):
    return {name: Reading(BLOCKS[name], tmp_path_factory.mktemp(Path(name).stem), ROOT)
            for name in DOCUMENTS}


@pytest.mark.parametrize(("name", "index"), [
    pytest.param(name, index, id=block.where)
    for name, blocks in BLOCKS.items() for index, block in enumerate(blocks)])
def test_block(readings, name, index):
    block = BLOCKS[name][index]
    if not runs(block):
        pytest.skip(f"not run: {block.notes['not run']}")
    missing = missing_extras(block)
    if missing:
        extras = ", ".join(f"pip install 'tapegen[{extra}]'" for extra in missing)
        pytest.skip(f"needs an extra that is not installed: {extras}")
    readings[name].through(index)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_each_document_has_code_that_runs(name):
    """Every document read here has blocks, all of them marked ``python``, and most of them
    run: a note that skips a block is the exception."""
    blocks = BLOCKS[name]
    assert blocks, f"{name} has no python block: is the parser reading it?"
    unread = [b.where for b in read_blocks(name, (ROOT / name).read_text(encoding="utf-8"))
              if b.language in ("py", "python3", "pycon", "ipython")]
    assert not unread, f"Python blocks marked otherwise than ```python are not run: {unread}"
    assert sum(runs(b) for b in blocks) >= len(blocks) / 2, (
        f"{name}: most python blocks are marked `not run`")


RECIPE_CHECK = """
import sys
import ir.primitives.elementwise as family
exec(sys.stdin.read(), vars(family))  # the block, as if written at the end of the file

import numpy as np
import codegen
import tracer

def copysign_cubed(x, y):
    return np.sum(np.copysign(x, y) ** 3)

rng = np.random.default_rng(0)
for x_shape, y_shape in [((3,), (3,)), ((2, 3), (3,)), ((4,), (2, 1, 4))]:
    x, y = rng.normal(size=x_shape), rng.normal(size=y_shape)
    tx, ty = tracer.constant(x), tracer.constant(y)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([tx, ty])
        z = copysign_cubed(tx, ty)
    expected = np.broadcast_to(3 * np.copysign(x, y) ** 2 * np.sign(x) * np.sign(y),
                               np.broadcast_shapes(x_shape, y_shape))
    expected = expected.sum(axis=tuple(range(expected.ndim - x.ndim)))
    eager = [g.numpy() for g in tape.gradient(z, [tx, ty])]
    generated = codegen.load(codegen.gradient_source(tape, z, [tx, ty])).gradient(x, y)
    for dx, dy in (eager, generated):
        assert np.allclose(dx, expected, rtol=1e-12), (dx, expected)
        assert dy.shape == y_shape and not dy.any(), dy
    tracer.check_gradients(copysign_cubed, x, y, order=2)
print("np.copysign differentiates")
"""


def test_the_recipe_for_a_primitive_adds_one():
    """docs/architecture.md's elementwise primitive, added as it says (its block run in
    ``ir/primitives/elementwise.py``'s namespace, before ``tracer`` is imported), gives
    ``np.copysign`` its gradients on tensors, eagerly, to second order and in generated
    code, against the closed form ``3 copysign(x, y)**2 sign(x) sign(y)`` and zero in ``y``.
    It runs in a process of its own: a primitive, once added, stays."""
    recipe = next(b for b in BLOCKS["docs/architecture.md"] if "copysign" in b.text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    result = subprocess.run([sys.executable, "-c", RECIPE_CHECK], input=recipe.text, cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "np.copysign differentiates" in result.stdout
