"""Models whose generated modules show how values are named, one naming rule each.

Return lines are named from the calls of their function in this file, so the
models and the calls that record them live here, apart from the tests: a
call elsewhere would not change what they are called.  Each ``record_*``
function returns ``(tape, target, sources, values)``: what
``codegen.gradient_source`` takes, and the arrays to call the result with,
by parameter name.
"""

import numpy as np

import tracer


def _tensors(rng, **shapes):
    return {name: tracer.constant(rng.normal(size=shape), name=name)
            for name, shape in shapes.items()}


def _recorded(build, **shapes):
    """Record ``build`` on watched tensors of ``shapes``: ``(tape, target, sources, values)``."""
    tensors = _tensors(np.random.default_rng(len(shapes)), **shapes)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(list(tensors.values()))
        target = build(**tensors)
    return tape, target, list(tensors.values()), {n: t.numpy() for n, t in tensors.items()}


def record_assignments():
    def build(x, W, b):
        logits = x @ W + b
        probabilities = np.exp(logits) / np.sum(np.exp(logits), axis=-1, keepdims=True)
        loss = np.sum(probabilities[:, 0] ** 2)
        return loss
    return _recorded(build, x=(5, 3), W=(3, 4), b=(4,))


def record_wrapped_statement():
    def build(x):
        product = (np.sin(x)
                   * np.cos(x))
        total = np.sum(
            product ** 2,
        )
        return total
    return _recorded(build, x=(4,))


def model(W, x):
    hidden = np.tanh(x @ W)
    return hidden @ W.T


def mean_squared_error(prediction, target):
    return np.mean((prediction - target) ** 2)


def objective(prediction, y):
    return mean_squared_error(prediction, y)


def record_calls_assigned_to_names():
    """``logits = model(...)`` names ``model``'s result; ``loss = objective(...)`` names
    ``mean_squared_error``'s, through ``return mean_squared_error(...)``."""
    def build(W, x, y):
        logits = model(W, x)
        loss = objective(logits, y)
        return loss
    return _recorded(build, W=(3, 3), x=(4, 3), y=(4, 3))


def compute_energy(q):
    return np.sum(np.cos(q) * q)


def potential_fn(q):
    return np.sum(np.sin(q) ** 2)


def penalty(q):
    return np.sum(q ** 4)


def record_returns():
    """Results no call in this file assigns to one name: ``compute_energy`` and
    ``potential_fn`` are passed as values, ``penalty`` called twice under two names."""
    def build(q):
        first, second = (f(q) for f in (compute_energy, potential_fn))
        small = penalty(q)
        large = penalty(q * 2)
        loss = first * second + small + large
        return loss
    return _recorded(build, q=(3,))


def record_augmented_assignments():
    def build(x):
        acc = np.sin(x)
        acc += np.cos(x) * x
        acc *= x
        loss = np.sum(acc)
        return loss
    return _recorded(build, x=(3,))


def record_collisions():
    """Names taken by a parameter, by another value, by a Python builtin and by the
    module itself (``INPUTS``; ``seed``, a parameter here): each value gets its own."""
    def build(x, seed):
        x = np.sin(x) * seed
        x = np.exp(x)
        sum = np.sum(x)
        INPUTS = sum * 2
        return INPUTS
    return _recorded(build, x=(3,), seed=(3,))


def record_unrolled_loop(steps=3):
    def build(W, h, xs):
        for t in range(steps):
            h = np.tanh(h @ W + xs[t])
        loss = np.sum(h ** 2)
        return loss
    return _recorded(build, W=(2, 2), h=(2,), xs=(steps, 2))


def record_repeated_statement(steps=3):
    """A loop whose statement reads no value an earlier run of it left."""
    def build(xs):
        total = 0.0
        for t in range(steps):
            y = np.sin(xs[t])
            total = total + y
        loss = np.sum(total)
        return loss
    return _recorded(build, xs=(steps, 2))


def record_look_alike_runs(steps=2):
    """Statements whose ops, in one run, repeat (``add``, ``add``): each loop step is one
    run, not two."""
    def build(h, a, b):
        for _ in range(steps):
            h = h + a + b
            h = np.tanh(np.tanh(h))
            h += a * b
        loss = np.sum(h)
        return loss
    return _recorded(build, h=(2,), a=(2,), b=(2,))


def record_tuple_targets():
    def build(x):
        a, b = np.sin(x), np.cos(x) * 2
        loss = np.sum(a * b)
        return loss
    return _recorded(build, x=(3,))


def record_scan_body(steps=4, size=3):
    """A recurrent cell scanned: its body names ``z`` and ``h``; ``step`` names nothing."""
    def build(W, h0, xs):
        def step(h, x):
            z = h @ W + x
            h = np.tanh(z)
            return h, h
        _, hs = tracer.scan(step, h0, xs)
        loss = np.sum(hs ** 2)
        return loss
    return _recorded(build, W=(size, size), h0=(size,), xs=(steps, size))


def record_cond_branches(size=3):
    """Both branches of a ``cond`` assign ``y``."""
    def build(x, w):
        def grow():
            y = np.sin(x) * w
            return y * y
        def shrink():
            y = np.cos(x) - w
            return y / 2.0
        chosen = tracer.cond(np.sum(x) > 0.0, grow, shrink)
        loss = np.sum(chosen)
        return loss
    return _recorded(build, x=(size,), w=(size,))


def record_while_body(size=3):
    """A ``while_loop`` whose body names ``damped`` and whose test names ``energy``."""
    def build(v, w):
        def running(n, v):
            energy = np.sum(v * v)
            return (energy < 1e6) & (n < 3)
        def body(n, v):
            damped = np.sin(v) * w + v
            return n + 1, damped
        _, v = tracer.while_loop(running, body, (0, v), maximum_iterations=5)
        loss = np.sum(v ** 2)
        return loss
    return _recorded(build, v=(size,), w=(size,))


def record_body_collisions(steps=3):
    """The names a scan body assigns, ``h`` and ``x``, are taken outside it too."""
    def build(W, x):
        h = np.cos(x)

        def step(carry, row):
            h = np.tanh(carry @ W + row)
            x = h * 2.0
            return x, h
        last, hs = tracer.scan(step, h, np.stack([x] * steps))
        loss = np.sum(hs ** 2) + np.sum(last * h)
        return loss
    return _recorded(build, W=(2, 2), x=(2,))
