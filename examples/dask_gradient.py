"""Full-batch gradient descent on data larger than any worker's memory, with a gradient
module generated once and evaluated by a Dask cluster.

The model (logistic regression on 64 features) is traced once on a small batch
whose number of rows is symbolic, and its gradient is generated for the array
API standard.  Called on ``dask.array`` inputs, the module returns lazy arrays:
the whole-dataset gradient is one task graph that the cluster runs chunk by
chunk, so no worker ever holds more than a few chunks.  The dataset is
generated lazily from a seed, chunked by rows, and never materialised.

    python examples/dask_gradient.py                      # small, on a LocalCluster
    python examples/dask_gradient.py --rows 20000000      # 10 GB of float64 features
    python examples/dask_gradient.py --scheduler tcp://host:8786   # a real cluster

Needs ``pip install 'tapegen[dask]'``.  It prints the dataset's size and
chunking, the workers and their memory limit, the time per gradient and the
rows per second per worker, each worker's peak memory, and the gradient's
largest relative difference from a numpy computation done chunk by chunk.
"""

import argparse
import resource
import time

import dask
import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

import codegen
import tracer

FEATURES = 64


def loss(w, b, x, y):
    """Mean logistic loss of labels ``y`` in {0, 1}, written stably."""
    z = x @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def gradient_module():
    """The gradient of ``loss`` by ``w`` and ``b``, for any number of rows, written for
    the array API standard."""
    rng = np.random.default_rng(0)
    w = tracer.Variable(np.zeros(FEATURES), name="w")
    b = tracer.Variable(0.0, name="b")
    x = tracer.constant(rng.standard_normal((8, FEATURES)), name="x", dims=("rows", None))
    y = tracer.constant(rng.integers(0, 2, 8).astype(float), name="y", dims=("rows",))
    with tracer.GradientTape() as tape:
        value = loss(w, b, x, y)
    source = codegen.gradient_source(tape, value, [w, b], target="array_api")
    return codegen.load(source), codegen.load(codegen.gradient_source(tape, value, [w, b]))


def dataset(rows, chunk_rows, seed=1):
    """Features and labels, made lazily chunk by chunk from ``seed``: a logistic model
    with known weights, so the descent has something to find."""
    truth = np.random.default_rng(seed).standard_normal(FEATURES) / np.sqrt(FEATURES)
    state = da.random.default_rng(seed)
    x = state.standard_normal((rows, FEATURES), chunks=(chunk_rows, FEATURES))
    p = 1.0 / (1.0 + da.exp(-(x @ truth)))
    y = (state.random(rows, chunks=chunk_rows) < p).astype(np.float64)
    return x, y


def peak_memory(client):
    """Each worker's peak resident memory, in bytes."""
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
    return list(peaks.values())


def chunk_by_chunk(numpy_module, w, b, x, y):
    """The same gradient with the numpy module on one chunk at a time, weighted by its rows:
    what the cluster's result must equal."""
    rows = x.shape[0]
    d_w, d_b = np.zeros_like(w), 0.0
    for block_x, block_y in zip(x.to_delayed().ravel(), y.to_delayed().ravel()):
        chunk_x, chunk_y = dask.compute(block_x, block_y)
        g_w, g_b = numpy_module.gradient(w, b, chunk_x, chunk_y)
        d_w += g_w * (len(chunk_y) / rows)
        d_b += g_b * (len(chunk_y) / rows)
    return d_w, d_b


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--chunk-rows", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="400MiB",
                        help="each local worker's memory limit")
    parser.add_argument("--scheduler", help="the address of a running Dask scheduler "
                                            "(default: start a LocalCluster)")
    args = parser.parse_args()

    module, numpy_module = gradient_module()
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                               memory_limit=args.memory_limit, dashboard_address=":0")
        client = Client(cluster)
    with client:
        workers = client.scheduler_info()["workers"]
        limit = min(w["memory_limit"] for w in workers.values())
        x, y = dataset(args.rows, args.chunk_rows)
        print(f"dataset: {args.rows:,} rows x {FEATURES} features, {x.nbytes / 2**30:.2f} GiB "
              f"of float64, in {x.numblocks[0]} chunks of {args.chunk_rows:,} rows")
        print(f"workers: {len(workers)}, memory limit {limit / 2**20:.0f} MiB each "
              f"(dataset / total worker memory: {x.nbytes / (limit * len(workers)):.1f}x)")
        w, b = np.zeros(FEATURES), 0.0
        for step in range(args.steps):
            start = time.perf_counter()
            d_w, d_b = da.compute(*module.gradient(da.from_array(w), da.from_array(b), x, y))
            seconds = time.perf_counter() - start
            w, b = w - 0.5 * d_w, b - 0.5 * d_b
            print(f"step {step}: gradient in {seconds:.2f} s "
                  f"({args.rows / seconds / len(workers):,.0f} rows/s per worker), "
                  f"|gradient| {np.sqrt(np.sum(d_w ** 2) + d_b ** 2):.4f}")
        peaks = peak_memory(client)
        print("peak memory per worker: " + ", ".join(f"{p / 2**20:.0f} MiB" for p in peaks)
              + f" (limit {limit / 2**20:.0f} MiB)")
        got = module.gradient(da.from_array(w), da.from_array(b), x, y)
        got = da.compute(*got)
        want = chunk_by_chunk(numpy_module, w, b, x, y)
        error = max(float(np.max(np.abs(np.asarray(g) - e)) / np.max(np.abs(e)))
                    for g, e in zip(got, want))
        print(f"gradient vs numpy chunk by chunk: max relative difference {error:.1e}")
    if cluster is not None:
        cluster.close()


if __name__ == "__main__":
    main()
