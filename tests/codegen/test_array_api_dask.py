"""An array-API gradient module on Dask when things are uneven: chunks of unequal sizes,
and a worker killed in the middle of a gradient (``dask.distributed`` runs its tasks
again elsewhere). The result must still equal numpy's."""

import os
import signal
import time

import numpy as np
import pytest

import codegen
import tracer

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("dask.distributed")
FEATURES = 16


def _loss(w, x, y):
    return np.mean(np.logaddexp(0.0, x @ w) - y * (x @ w))


@pytest.fixture(scope="module")
def modules():
    """The array-API and numpy gradient modules of ``_loss``, for any number of rows."""
    rng = np.random.default_rng(0)
    w = tracer.Variable(np.zeros(FEATURES), name="w")
    x = tracer.constant(rng.standard_normal((8, FEATURES)), name="x", dims=("rows", None))
    y = tracer.constant(rng.integers(0, 2, 8).astype(float), name="y", dims=("rows",))
    with tracer.GradientTape() as tape:
        loss = _loss(w, x, y)
    return [codegen.load(codegen.gradient_source(tape, loss, [w], target=target))
            for target in ("array_api", "numpy")]


def _data(rows, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(FEATURES) * 0.1, rng.standard_normal((rows, FEATURES)),
            rng.integers(0, 2, rows).astype(float))


def test_chunks_of_unequal_sizes(modules):
    module, numpy_module = modules
    w, x, y = _data(1000)
    chunks = (7, 300, 1, 500, 192)
    lazy = module.gradient(da.from_array(w), da.from_array(x, chunks=(chunks, FEATURES)),
                           da.from_array(y, chunks=(chunks,)))[0]
    np.testing.assert_allclose(lazy.compute(), numpy_module.gradient(w, x, y)[0], rtol=1e-12)


def test_a_worker_killed_in_the_middle_of_a_gradient(modules):
    module, numpy_module = modules
    rows, chunk = 100_000, 2_000
    generator = da.random.default_rng(2)
    x = generator.standard_normal((rows, FEATURES), chunks=(chunk, FEATURES))
    y = (generator.random(rows, chunks=chunk) < 0.5).astype(float)
    w = np.linspace(-0.1, 0.1, FEATURES)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                       dashboard_address=":0", memory_limit="500MiB")
    try:
        with distributed.Client(cluster) as client:
            lazy = module.gradient(da.from_array(w), x.map_blocks(_slowly), y)[0]
            future = client.compute(lazy)
            time.sleep(0.5)
            victim = next(iter(client.run(os.getpid).values()))
            os.kill(victim, signal.SIGKILL)
            assert not future.done()  # (the gradient was still running)
            got = future.result(timeout=120)
            expected = numpy_module.gradient(w, *client.compute([x, y], sync=True))[0]
    finally:
        cluster.close()
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def _slowly(block):
    """A chunk as it is, a little later: the gradient is still running when a worker dies."""
    time.sleep(0.05)
    return block
