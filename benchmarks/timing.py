"""Timing shared by the benchmarks: interleaved repeats, minimum times, verdicts."""

import time


def interleaved_min(variants, repeats, number):
    """Seconds per call of each variant: the minimum over ``repeats`` rounds of ``number`` calls.

    Every round runs each variant once, so slow phases of the machine hit all alike.
    """
    for run in variants.values():
        run()
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(repeats):
        for name, run in variants.items():
            start = time.perf_counter()
            for _ in range(number):
                run()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def verdict(met, target):
    """``ok`` or ``MISS`` beside the target a figure was measured against."""
    return f"{'ok  ' if met else 'MISS'} {target}"
