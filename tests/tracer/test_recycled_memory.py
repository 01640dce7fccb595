"""Large elementwise results are computed into recycled memory: same values, no sharing.

``tracer.buffers`` lends a slab of memory to each large result and takes it
back when nothing can reach it.  These tests check the two promises that
matter: a pooled result is exactly what numpy computes, and a slab is never
reused while any view of the old result lives on (in any thread, and when
results die in garbage collections).
"""

import collections
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ir
import tracer
from tracer import buffers

SMALL = 64
"""A pooling threshold in bytes for tests that need not move megabytes."""

ELEMENTWISE_UFUNCS = sorted(
    {prim.impl for prim in ir.PRIMITIVES.values()
     if prim.elementwise and isinstance(prim.impl, np.ufunc)}, key=lambda u: u.__name__)


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(buffers, "MIN_BYTES", SMALL)


def _operands(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    values = rng.uniform(0.1, 0.9, shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.uniform(0.1, 0.9, shape)
    if np.dtype(dtype).kind in "iub":
        values = rng.integers(0, 2 if dtype == bool else 5, shape)
    return values.astype(dtype)


def _outcome(call):
    try:
        with np.errstate(all="ignore"):
            return call()
    except Exception as error:  # the pooled call must fail just as numpy's does
        return type(error)


@pytest.mark.parametrize("ufunc", ELEMENTWISE_UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64, bool])
def test_pooled_results_equal_numpys(small_threshold, ufunc, dtype):
    big = _operands(dtype, (4, 8), seed=0)
    operand_lists = [[big] * ufunc.nin]
    if ufunc.nin == 2:
        operand_lists += [[big, _operands(dtype, (8,), seed=1)], [2.5, big], [big, 3],
                          [big, np.float32(0.5)], [_operands(dtype, (4, 1), seed=2), big]]
    for operands in operand_lists:
        expected = _outcome(lambda: ufunc(*operands))
        pooled = _outcome(lambda: buffers.ufunc_result(ufunc, operands))
        if pooled is None:
            continue  # not pooled: numpy computes it as usual
        if isinstance(expected, type):
            assert pooled is expected
            continue
        assert pooled.dtype == expected.dtype and pooled.shape == expected.shape
        np.testing.assert_array_equal(pooled, expected)


def test_a_slab_serves_again_once_its_result_is_gone(small_threshold):
    x = np.ones((4, 8))
    first = buffers.ufunc_result(np.sin, [x])
    address = first.__array_interface__["data"][0]
    reused = buffers.POOL.reused
    del first
    second = buffers.ufunc_result(np.cos, [x])
    assert buffers.POOL.reused == reused + 1
    assert second.__array_interface__["data"][0] == address
    np.testing.assert_array_equal(second, np.cos(x))


def test_a_kept_result_takes_the_slab_idle_longest_and_others_the_last_returned(
        small_threshold):
    x = np.ones((4, 8))
    buffers.release_memory()
    results = [buffers.ufunc_result(np.sin, [x]) for _ in range(3)]
    addresses = [r.__array_interface__["data"][0] for r in results]
    while results:  # returned in order: the first is idle longest, the last is hot
        results.pop(0)
    hot = buffers.ufunc_result(np.cos, [x])
    kept = buffers.ufunc_result(np.cos, [x], kept=True)
    assert hot.__array_interface__["data"][0] == addresses[-1]
    assert kept.__array_interface__["data"][0] == addresses[0]


@pytest.mark.parametrize("keep", [
    lambda r: r[1:],
    lambda r: r.reshape(-1),
    lambda r: r.T,
    lambda r: r.view(np.int64),
    lambda r: memoryview(r),
    lambda r: np.frombuffer(r, dtype=r.dtype),
    lambda r: [r],
], ids=["slice", "reshape", "transpose", "dtype view", "memoryview", "frombuffer", "list"])
def test_a_slab_is_not_reused_while_a_view_lives(small_threshold, keep):
    x = np.full((4, 8), 0.5)
    result = buffers.ufunc_result(np.sin, [x])
    kept = keep(result)
    before = np.array(kept, copy=True)
    del result
    overwrite = [buffers.ufunc_result(np.cos, [x]) for _ in range(3)]
    assert all(o is not None for o in overwrite)
    np.testing.assert_array_equal(np.asarray(kept), before)


def test_tensor_views_keep_their_values_across_recordings(small_threshold):
    x = tracer.constant(np.full((4, 8), 0.3))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.tanh(x)
    held = y.numpy()[::2]
    del y, tape
    for _ in range(3):
        with tracer.GradientTape() as tape:
            tape.watch(x)
            np.exp(x) * 2.0
    np.testing.assert_array_equal(held, np.tanh(np.full((2, 8), 0.3)))


def test_gradients_in_a_loop_of_large_recordings():
    x = tracer.constant(np.linspace(-1.0, 1.0, 1 << 20).reshape(1024, 1024))
    reused = buffers.POOL.reused
    for _ in range(3):
        with tracer.GradientTape() as tape:
            tape.watch(x)
            y = np.tanh(np.sin(x) * 0.5 + 1.0)
        gradient = tape.gradient(y, x).numpy()
        t = np.tanh(np.sin(x.numpy()) * 0.5 + 1.0)
        np.testing.assert_allclose(gradient, (1 - t * t) * 0.5 * np.cos(x.numpy()), rtol=1e-12)
    assert buffers.POOL.reused > reused


def test_the_pool_never_holds_more_than_was_in_use_at_once(small_threshold):
    buffers.release_memory()
    x = np.ones((4, 8))
    results = [buffers.ufunc_result(np.sin, [x]) for _ in range(5)]
    peak = sum(r.nbytes for r in results)
    del results
    assert buffers.POOL.idle_bytes() == peak
    other_size = [buffers.ufunc_result(np.sin, [np.ones((8, 8))]) for _ in range(2)]
    assert buffers.POOL.idle_bytes() + sum(r.nbytes for r in other_size) <= peak
    del other_size
    assert buffers.release_memory() <= peak
    assert buffers.POOL.idle_bytes() == 0


def test_layouts_and_operands_it_does_not_pool_are_computed_as_usual(small_threshold):
    fortran = np.asfortranarray(np.ones((4, 8)))
    assert buffers.ufunc_result(np.sin, [fortran]) is None
    assert buffers.ufunc_result(np.add, [np.ones((4, 8)), [1.0] * 8]) is None
    assert buffers.ufunc_result(np.add, [np.ones((4, 8)), np.ones((3, 8))]) is None
    assert buffers.ufunc_result(np.matmul, [np.ones((8, 8)), np.ones((8, 8))]) is None
    assert buffers.ufunc_result(np.sin, [np.ones(2)]) is None
    objects = np.full((4, 8), 1.5, dtype=object)
    assert buffers.ufunc_result(np.add, [objects, objects]) is None


def test_views_kept_in_one_thread_survive_results_dying_in_another(small_threshold):
    x = tracer.constant(np.full((4, 8), 0.5))
    expected = np.sin(np.full((2, 8), 0.5))
    corrupted = []

    def keep_views():
        held = collections.deque(maxlen=20)
        for _ in range(3000):
            held.append(np.sin(x).numpy()[::2])
            if not all(np.array_equal(view, expected) for view in held):
                corrupted.append(True)
                return

    def churn():
        for _ in range(6000):
            np.cos(x)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=keep_views), threading.Thread(target=churn)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert not corrupted


def test_results_freed_by_the_garbage_collector_do_not_deadlock_the_pool():
    # A result kept alive by a reference cycle dies whenever a collection runs,
    # which may be while the pool is busy lending a slab.
    script = textwrap.dedent("""
        import numpy as np
        import tracer
        from tracer import buffers
        buffers.MIN_BYTES = 64
        x = tracer.constant(np.full((4, 8), 0.5))
        class Cycle:
            def __init__(self, value):
                self.value, self.me = value, self
        for _ in range(30000):
            Cycle(np.sin(x))
            np.cos(x)
        print("done")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip() == "done", result.stderr
