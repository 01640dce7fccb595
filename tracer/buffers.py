"""Recycled memory for the large results of elementwise tensor operations.

A tape keeps the values its gradient will read, so a recorded computation
cannot hand memory back as it goes the way plain numpy code does: every value
it keeps is fresh memory.  The C library returns large freed blocks to the
operating system, so at the next recording (the next step of a training
loop) the kernel faults in and zeroes those pages again, which costs far
more than a tape's bookkeeping.  Here a large elementwise result is computed
into a block of memory (a slab) from a pool instead; once nothing can reach
the block, it goes back to the pool for the next result of its size.
Allocators of other frameworks cache memory for the same reason.

A result is made with ``np.frombuffer``, which gives it a ``memoryview`` of
its slab, made for that result alone.  numpy makes every view of the result,
however derived, keep that memoryview alive (the base of an array is the
first object that is not an array), and so does every buffer exported from
them; the memoryview's death is therefore the moment no array can reach the
slab, and a weak reference to it returns the slab.  That return may run inside a garbage collection at
any point, even while the pool's lock is held, so it only queues the slab;
the pool files queued slabs when it next lends one.

Which idle slab a result gets matters on machines whose caches hold a few
such blocks: a short-lived result takes the slab returned last, still in the
caches, and a result a tape will keep (its derivative reads it) the slab idle
the longest, so that the few hot slabs keep serving short-lived values, as
they would in plain numpy.  The pool never holds
more memory, lent and idle together, than its results used at once;
``release_memory()`` frees the idle part.
"""

import collections
import os
import threading
import weakref

import numpy as np

MIN_BYTES = 1 << 22
"""Elementwise results with an argument of at least this many bytes (4 MiB) are
computed into slabs.  Smaller blocks the C library keeps and reuses itself, and
the few microseconds of bookkeeping here would show next to the operation."""

MIN_STATE_BYTES = 1 << 19
"""New values of variables a compiled step writes (``tracer.graph_mode``) are
written into slabs from this many bytes (512 KiB): they outlive the step, and
blocks of that size the C library hands back to the system when the step frees
the values they replace, then faults in again (an MLP's 800 KiB weights and
moments: some 180 page faults a step).  Smaller blocks it reuses, still in the
caches, and a slab would cost more than it saves."""

_SCALAR_TYPES = (float, int, complex, bool)


class SlabPool:
    """Slabs lent out (by the weak reference to the memoryview each result is made
    over), slabs returned but not yet filed, and idle ones (by size in bytes)."""

    def __init__(self):
        self._lent = {}
        self._returned = collections.deque()
        self._idle = {}
        self._lent_bytes = 0
        self._idle_bytes = 0
        self._peak_bytes = 0
        self._lock = threading.Lock()
        self.reused = 0
        """How many arrays were made in a slab that served before."""

    def array(self, shape, dtype, kept=False):
        """An uninitialised C-ordered array whose memory returns to the pool once
        nothing refers to it any more; one to be ``kept`` (by a tape) gets the slab
        idle the longest, the others the one returned last, still in the caches."""
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        slab = self._take(nbytes, kept)
        if slab is None:
            slab = np.empty(nbytes, np.uint8)
        flat = np.frombuffer(memoryview(slab), dtype)
        # numpy made ``flat.base`` for this array: a memoryview of the slab that
        # every array over the slab, however derived, keeps alive.
        watcher = weakref.ref(flat.base, self._on_return)
        self._lent[id(watcher)] = (watcher, slab)
        return flat.reshape(shape)

    def _on_return(self, watcher):
        # Runs when the last array over the slab is gone, possibly inside a garbage
        # collection that interrupted this pool: no lock, just a thread-safe queue.
        self._returned.append(self._lent.pop(id(watcher))[1])

    def _take(self, nbytes, oldest):
        """An idle slab of ``nbytes``, or ``None`` after making room for a new one."""
        with self._lock:
            self._file_returned()
            self._lent_bytes += nbytes
            if nbytes in self._idle:
                self.reused += 1
                return self._pop_idle(nbytes, oldest)
            self._peak_bytes = max(self._peak_bytes, self._lent_bytes)
            while self._idle_bytes + self._lent_bytes > self._peak_bytes:
                self._pop_idle(next(iter(self._idle)))
            return None

    def _file_returned(self):
        while self._returned:
            slab = self._returned.popleft()
            self._lent_bytes -= slab.nbytes
            self._idle.setdefault(slab.nbytes, collections.deque()).append(slab)
            self._idle_bytes += slab.nbytes

    def _pop_idle(self, nbytes, oldest=False):
        slabs = self._idle[nbytes]
        if len(slabs) == 1:
            del self._idle[nbytes]
        self._idle_bytes -= nbytes
        return slabs.popleft() if oldest else slabs.pop()

    def release(self):
        """Free the idle slabs; returns the bytes they held."""
        with self._lock:
            self._file_returned()
            freed = self._idle_bytes
            self._idle.clear()
            self._idle_bytes = 0
            self._peak_bytes = self._lent_bytes
        return freed

    def idle_bytes(self):
        """Bytes held by idle slabs (returned ones included)."""
        with self._lock:
            self._file_returned()
            return self._idle_bytes

    def _after_fork(self):
        self._lock = threading.Lock()


POOL = SlabPool()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POOL._after_fork)


def ufunc_result(ufunc, values, kept=False):
    """``ufunc(*values)`` computed into a pooled slab, or ``None`` when no argument
    is large or the result's shape and dtype are not plain to see.  ``kept`` says a
    tape will keep the result (see ``SlabPool.array``)."""
    for value in values:
        if value.__class__ is np.ndarray and value.nbytes >= MIN_BYTES:
            break
    else:
        return None
    shapes = []
    dtypes = []
    for value in values:
        if value.__class__ is np.ndarray:
            if not value.flags.c_contiguous:
                return None  # numpy would match the argument's layout
            shapes.append(value.shape)
            dtypes.append(value.dtype)
        elif value.__class__ in _SCALAR_TYPES:
            dtypes.append(value.__class__)
        elif isinstance(value, np.generic):
            dtypes.append(value.dtype)
        else:
            return None
    dtype = _result_dtype(ufunc, tuple(dtypes))
    if dtype is None:
        return None
    try:
        shape = np.broadcast_shapes(*shapes) if shapes.count(shapes[0]) < len(shapes) else shapes[0]
    except ValueError:  # numpy's own call will say the shapes do not broadcast
        return None
    return ufunc(*values, out=POOL.array(shape, dtype, kept))


def copy(array):
    """A C-ordered copy of ``array``, in a pooled slab when it is a large array of numbers.

    A tape copies the plain arrays its operations read (see ``snapshots.snapshot``),
    so in a loop of recordings those copies reuse the last step's memory too.
    """
    if (array.nbytes < MIN_BYTES or array.dtype.kind not in "biufc"
            or array.__class__ is not np.ndarray):
        return np.array(array, order="C", subok=True)
    result = POOL.array(array.shape, array.dtype, kept=True)
    np.copyto(result, array)
    return result


_RESULT_DTYPES = {}


def _result_dtype(ufunc, dtypes):
    """The numeric dtype ``ufunc`` gives arguments of ``dtypes``, else ``None``."""
    key = (ufunc, dtypes)
    if key not in _RESULT_DTYPES:
        if ufunc.nout != 1 or ufunc.signature is not None:
            _RESULT_DTYPES[key] = None
            return None
        try:
            dtype = ufunc.resolve_dtypes(dtypes + (None,))[-1]
        except (TypeError, ValueError):  # the call itself will raise numpy's error
            dtype = None
        # Raw memory can only be viewed as numbers (not objects, strings, times).
        _RESULT_DTYPES[key] = dtype if dtype is not None and dtype.kind in "biufc" else None
    return _RESULT_DTYPES[key]


def release_memory():
    """Free the memory tapegen keeps for reuse by large results; returns the bytes freed.

    Tensor operations on large arrays reuse the memory of results that are gone,
    so that a loop of recordings does not ask the operating system for fresh
    memory at every step.  Call this after such a loop to give that memory back.
    """
    return POOL.release()
