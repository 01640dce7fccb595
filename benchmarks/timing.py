"""Timing shared by the benchmarks: interleaved repeats, minimum times, peak memory,
verdicts."""

import time
import tracemalloc


def interleaved_min(variants, repeats, number):
    """Seconds per call of each variant: the minimum over ``repeats`` rounds of ``number`` calls.

    Every round runs each variant once, so slow phases of the machine hit all alike;
    every other round runs them in the reverse order, so that no variant always runs
    right after the same other one, whose leftovers (its threads still spinning, its
    memory still being handed back) would slow it alone.
    """
    for run in variants.values():
        run()
    best = dict.fromkeys(variants, float("inf"))
    order = list(variants.items())
    for round_ in range(repeats):
        for name, run in (order if round_ % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            for _ in range(number):
                run()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def peak_bytes(run):
    """The most memory a call of ``run()`` (after a first one, which fills caches) held at
    once, numpy's array data included (tracemalloc)."""
    run()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def verdict(met, target):
    """``ok`` or ``MISS`` beside the target a figure was measured against."""
    return f"{'ok  ' if met else 'MISS'} {target}"
