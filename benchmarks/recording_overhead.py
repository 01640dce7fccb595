"""How much recording on a GradientTape costs, next to plain numpy (and autograd).

Four measurements, printed as one table with the targets beside them:

1. Small ops: an unrolled tanh RNN (hidden size 8, 50 steps, about 250 ops)
   with ``tracer.Variable`` parameters.  Times the plain numpy forward, the
   forward under a tape, and the forward plus one eager ``tape.gradient``,
   and divides the difference to numpy by the number of recorded ops.  The
   same for ``autograd`` (forward trace with ``make_vjp``, then ``grad``) when
   it is installed.
2. Large ops: a 100-op elementwise chain on 1000x1000 float64 arrays, plain
   and on a watched tensor; recording's cost is a percentage of numpy's time.
   Two numpy runs that keep intermediates alive (all of them; only those the
   gradient reads, which is what a tape keeps) show what keeping memory costs
   by itself: fresh pages the kernel must fault in, counted beside the times.
   A third writes what a tape keeps into arrays made once, so no page is
   faulted: the floor for any tape, which on machines with large caches is
   well above plain numpy's chain, since that one reuses three hot arrays.
   A loop of recordings reuses the memory of the last one's results
   (``tracer.buffers``); recording in fresh memory is timed too.
3. Plain-array operands: a tape copies the numpy arrays its operations read,
   so that changing them in place afterwards changes no gradient.  The same
   chain is recorded with its constant operand as a tensor (no copy) and as a
   plain array (a copy per op), on small and on 1000x1000 arrays.
4. Memory: bytes a persistent tape holds per recorded op on shape-(1,) arrays,
   from ``tracemalloc`` with numpy's array data left out, minus what plain
   numpy holds after the same ops; the lines that allocated it are listed.

Timings are the minimum over repeats; the variants are interleaved within
each repeat so that machine noise hits them alike.  Takes well under a minute:

    python benchmarks/recording_overhead.py
"""

import linecache
import os
import tracemalloc

import numpy as np

import tracer
from timing import interleaved_min, verdict

try:
    import resource
except ImportError:  # not on Windows
    resource = None

try:
    import autograd
    import autograd.numpy as anp
except ImportError:
    autograd = None

HIDDEN, INPUTS, STEPS = 8, 4, 50
CHAIN_OPS = 100
MEMORY_OPS = 20_000

TARGET_GRADIENT_US_PER_OP = 10.0
TARGET_LARGE_OVERHEAD_PERCENT = 5.0
TARGET_BYTES_PER_OP = 1500


# --- timing ------------------------------------------------------------------

# --- the workloads -----------------------------------------------------------

def rnn_loss(xnp, W, U, b, xs):
    """Sum of squares of the last hidden state of an unrolled tanh RNN (5 ops a step, 2 at the end)."""
    h = xnp.zeros(HIDDEN)
    for x in xs:
        h = xnp.tanh(h @ W + x @ U + b)
    return xnp.sum(h * h)


def rnn_data(seed=0):
    rng = np.random.default_rng(seed)
    params = (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
              rng.standard_normal((INPUTS, HIDDEN)) / np.sqrt(INPUTS),
              0.1 * rng.standard_normal(HIDDEN))
    xs = list(rng.standard_normal((STEPS, INPUTS)))
    return params, xs


def elementwise_chain(x, n_ops, keep=None, keep_needed=None):
    """``n_ops`` elementwise ops: sin, * 0.5, + 1.0, tanh, repeated.

    ``keep`` collects every result; ``keep_needed`` only those the gradient
    reads (each tanh result, which is also the next sin's input).
    """
    for _ in range(n_ops // 4):
        a = np.sin(x)
        b = a * 0.5
        c = b + 1.0
        x = np.tanh(c)
        if keep is not None:
            keep += (a, b, c, x)
        if keep_needed is not None:
            keep_needed.append(x)
    return x


def chain_into(x, n_ops, kept, scratch):
    """``elementwise_chain`` computed into preallocated memory: each tanh result into
    its own array of ``kept`` (what a tape keeps), the others into ``scratch``."""
    for k in range(n_ops // 4):
        a = np.sin(x, out=scratch[0])
        b = np.multiply(a, 0.5, out=scratch[1])
        c = np.add(b, 1.0, out=scratch[2])
        x = np.tanh(c, out=kept[k])
    return x


# --- 1. small ops --------------------------------------------------------------

def count_recorded_ops(variables, xs):
    with tracer.GradientTape(persistent=True) as tape:
        rnn_loss(np, *variables, xs)
    return sum(1 for node in tape.graph if node.kind == "op")


def tracer_variants(variables, xs):
    def record():
        with tracer.GradientTape():
            rnn_loss(np, *variables, xs)

    def record_and_gradient():
        with tracer.GradientTape() as tape:
            loss = rnn_loss(np, *variables, xs)
        return [g.numpy() for g in tape.gradient(loss, variables)]

    return {"tapegen: record": record, "tapegen: record + gradient": record_and_gradient}


def autograd_variants(arrays, xs):
    def loss(params):
        return rnn_loss(anp, *params, xs)

    record = autograd.make_vjp(loss)
    gradient = autograd.grad(loss)
    return {"autograd: record (make_vjp)": lambda: record(arrays),
            "autograd: record + gradient": lambda: gradient(arrays)}


def small_ops():
    arrays, xs = rnn_data()
    variables = [tracer.Variable(a) for a in arrays]
    ops = count_recorded_ops(variables, xs)
    timed = {"numpy forward": lambda: rnn_loss(np, *arrays, xs), **tracer_variants(variables, xs)}
    if autograd is not None:
        timed.update(autograd_variants(arrays, xs))
        for ours, theirs in zip(timed["tapegen: record + gradient"](),
                                timed["autograd: record + gradient"]()):
            np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    times = interleaved_min(timed, repeats=15, number=10)
    print(f"1. Small ops: tanh RNN, hidden {HIDDEN}, {STEPS} steps, {ops} recorded ops "
          "(autograd's figures use the same count)")
    print(f"   {'':30} {'per call':>10} {'overhead/op':>12}   target")
    base = times.pop("numpy forward")
    print(f"   {'numpy forward':30} {base * 1e3:7.3f} ms")
    for name, seconds in times.items():
        per_op = (seconds - base) / ops * 1e6
        target = ""
        if name.startswith("tapegen") and name.endswith("gradient"):
            target = verdict(per_op <= TARGET_GRADIENT_US_PER_OP,
                              f"<= {TARGET_GRADIENT_US_PER_OP:g} us/op")
        print(f"   {name:30} {seconds * 1e3:7.3f} ms {per_op:9.1f} us   {target}")
    if autograd is None:
        print("   autograd: skipped (not installed; it is the 'bench' extra)")


# --- 2. large ops --------------------------------------------------------------

def large_ops():
    array = np.random.default_rng(1).standard_normal((1000, 1000))
    watched = tracer.constant(array)

    def record():
        with tracer.GradientTape() as tape:
            tape.watch(watched)
            elementwise_chain(watched, CHAIN_OPS)

    def record_in_fresh_memory():
        tracer.release_memory()
        record()

    kept = [np.empty_like(array) for _ in range(CHAIN_OPS // 4)]
    scratch = [np.empty_like(array) for _ in range(3)]
    variants = {
        "numpy": lambda: elementwise_chain(array, CHAIN_OPS),
        "numpy keeping every result": lambda: elementwise_chain(array, CHAIN_OPS, keep=[]),
        "numpy keeping what grad reads": lambda: elementwise_chain(array, CHAIN_OPS,
                                                                   keep_needed=[]),
        "numpy, the same in reused memory": lambda: chain_into(array, CHAIN_OPS, kept, scratch),
        "tapegen: record": record,
        "tapegen: record, fresh memory": record_in_fresh_memory,
    }
    faults = {name: page_faults(run) for name, run in variants.items()}
    times = interleaved_min(variants, repeats=9, number=1)
    print(f"2. Large ops: {CHAIN_OPS}-op elementwise chain on 1000x1000 float64")
    print(f"   {'':30} {'per call':>10} {'overhead':>9} {'page faults':>12}   target")
    base = times.pop("numpy")
    print(f"   {'numpy':30} {base * 1e3:7.1f} ms {'':9} {faults['numpy']:>12}")
    for name, seconds in times.items():
        percent = (seconds - base) / base * 100
        target = ""
        if name == "tapegen: record":
            target = verdict(percent < TARGET_LARGE_OVERHEAD_PERCENT,
                              f"< {TARGET_LARGE_OVERHEAD_PERCENT:g} %")
        print(f"   {name:30} {seconds * 1e3:7.1f} ms {percent:+8.1f}% {faults[name]:>12}   {target}")
    print("   (a loop of recordings reuses the memory of the last one's results; "
          "'fresh memory' frees it first;\n    numpy 'in reused memory' writes what a tape "
          "keeps into arrays made once: the floor for any tape)")


def page_faults(run):
    """Minor page faults during one call of ``run`` (after a first call), or '-' where
    the platform does not count them."""
    if resource is None:
        return "-"
    run()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    run()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


# --- 3. plain-array operands ----------------------------------------------------

def scaled_chain(x, scale, n_ops):
    """``n_ops`` ops, every other one reading ``scale``: x * scale, tanh, repeated."""
    for _ in range(n_ops // 2):
        x = np.tanh(x * scale)
    return x


def plain_operands():
    """What copying plain numpy operands costs a recording (a tape keeps the values an
    operation saw): the same chain with its constant operand as a plain array, which
    each recorded op copies, and as a tensor, which needs no copy."""
    print("3. Plain-array operands: x = tanh(x * scale), the operand `scale` a plain array "
          "(copied by each op that reads it) or a tensor")
    print(f"   {'':30} {'per call':>10} {'vs tensor':>10} {'page faults':>12}")
    rng = np.random.default_rng(2)
    for shape, n_ops, number in (((8,), 200, 20), ((1000, 1000), 50, 1)):
        array, scale = rng.standard_normal(shape), rng.uniform(0.5, 1.0, shape)
        watched, scale_tensor = tracer.constant(array), tracer.constant(scale)

        def record(operand):
            with tracer.GradientTape() as tape:
                tape.watch(watched)
                scaled_chain(watched, operand, n_ops)

        variants = {"numpy": lambda: scaled_chain(array, scale, n_ops),
                    "tapegen: operand a tensor": lambda: record(scale_tensor),
                    "tapegen: operand a plain array": lambda: record(scale)}
        faults = {name: page_faults(run) for name, run in variants.items()}
        times = interleaved_min(variants, repeats=9, number=number)
        copies = n_ops // 2
        print(f"   shape {shape}, {n_ops} ops of which {copies} copy `scale`:")
        base = times["tapegen: operand a tensor"]
        for name, seconds in times.items():
            extra = ""
            if name == "tapegen: operand a plain array":
                extra = f"{(seconds - base) / base * 100:+9.1f}%"
            unit = (f"{seconds * 1e6:7.1f} us" if seconds < 1e-2 else f"{seconds * 1e3:7.1f} ms")
            print(f"   {name:30} {unit} {extra:>10} {faults[name]:>12}")
        per_copy = (times["tapegen: operand a plain array"] - base) / copies * 1e6
        print(f"   {'copy, per operand read':30} {per_copy:7.2f} us")


# --- 4. memory ------------------------------------------------------------------

def held_allocations(run):
    """``tracemalloc`` statistics of what ``run()`` allocated and its result still holds,
    leaving out numpy's array data."""
    tracemalloc.start()
    result = run()
    snapshot = tracemalloc.take_snapshot()
    tracemalloc.stop()
    no_array_data = tracemalloc.DomainFilter(inclusive=False, domain=np.lib.tracemalloc_domain)
    return snapshot.filter_traces([no_array_data]).statistics("lineno")


def memory():
    start = np.ones(1)

    def record():
        tape = tracer.GradientTape(persistent=True)
        with tape:
            x = tracer.constant(start)
            tape.watch(x)
            elementwise_chain(x, MEMORY_OPS)
        return tape

    taped = held_allocations(record)
    plain = held_allocations(lambda: elementwise_chain(start, MEMORY_OPS))
    taped_bytes = sum(stat.size for stat in taped) / MEMORY_OPS
    plain_bytes = sum(stat.size for stat in plain) / MEMORY_OPS
    per_op = taped_bytes - plain_bytes
    print(f"4. Memory: {MEMORY_OPS} ops on shape-(1,) arrays, persistent tape, array data excluded")
    print(f"   {'held per recorded op':30} {per_op:7.0f} B   (numpy alone: {plain_bytes:.0f} B/op)   "
          f"{verdict(per_op <= TARGET_BYTES_PER_OP, f'<= {TARGET_BYTES_PER_OP} B/op')}")
    print("   allocated by:")
    for stat in taped[:7]:
        frame = stat.traceback[0]
        where = f"{_short_path(frame.filename)}:{frame.lineno}"
        source = linecache.getline(frame.filename, frame.lineno).strip()
        print(f"   {stat.size / MEMORY_OPS:7.0f} B  {where:24} {source[:60]}")


def _short_path(filename):
    """The file's path from its package directory on: ``tracer/core.py``."""
    return os.path.join(*filename.split(os.sep)[-2:])


def main():
    small_ops()
    print()
    large_ops()
    print()
    plain_operands()
    print()
    memory()


if __name__ == "__main__":
    main()
