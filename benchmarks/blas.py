"""Which BLAS numpy calls, with its kernel and threads: a benchmark of matrix products
says what ran them (OpenBLAS picks its kernel for the processor at run time, and the
environment can override it)."""

import ctypes

import numpy as np


def blas_in_use():
    """Which BLAS numpy calls, its kernel and threads: from threadpoolctl where it is
    installed, else asked of OpenBLAS itself, else numpy's build configuration."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        pass
    else:
        found = [f"{i['internal_api']} {i.get('version')}, kernel {i.get('architecture')}, "
                 f"{i['num_threads']} thread(s) (threadpoolctl)"
                 for i in threadpool_info() if i["user_api"] == "blas"]
        if found:
            return "; ".join(found)
    return openblas_asked() or numpy_build_blas()


def openblas_asked():
    """The loaded OpenBLAS's configuration, kernel and threads, asked through its own
    functions (plain or as scipy-openblas names them); ``None`` where it cannot be."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return None
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""),
                               ("openblas", "64_"), ("openblas", "")):
            try:
                corename = getattr(library, f"{prefix}_get_corename{suffix}")
                config = getattr(library, f"{prefix}_get_config{suffix}")
                threads = getattr(library, f"{prefix}_get_num_threads{suffix}")
            except AttributeError:
                continue
            corename.restype = config.restype = ctypes.c_char_p
            return (f"{config().decode()}; kernel in use {corename().decode()}, "
                    f"{threads()} thread(s)")
    return None


def numpy_build_blas():
    blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
    return (f"{blas.get('name')} {blas.get('version', '')} (numpy's build configuration; "
            "the kernel in use is unknown)")
