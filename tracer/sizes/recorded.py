"""What a recording knows of symbolic sizes (``ir.sizes.dims``): the symbolic shapes of the
values it records, the params that hold sizes, the sizes used as numbers, and the
guards taken.

A recording gets one when a tensor with declared symbolic axes meets it or a
guard is taken while it records; recordings of concrete values never do, so
recording costs nothing more for them.  Shapes are inferred lazily, from the
records through each primitive's shape rule (``ir.sizes.shape_rules``), when a
shape is read or the recording's graph is built.
"""

from ir.sizes.guards import Guarding, guarding
from ir.primitives.results import result
from ir.sizes.shape_rules import has_sizes


class SymbolicTrace:
    """The symbolic side of one recording."""

    __slots__ = ("guarding", "shapes", "params", "dims", "sizes", "done", "outer", "loops")

    def __init__(self):
        self.guarding = Guarding({})
        self.shapes = {}  # serial -> shape holding ``Size``s, for values with a symbolic axis
        self.params = {}  # serial of a record's result -> its params, holding ``Size``s
        self.dims = {}  # the same, as applied: holding ``Dim``s, for derivative rules
        self.sizes = {}  # serial of a 0-d tensor that is a size used as a number -> its Size
        self.done = 0  # records whose shapes are inferred
        self.outer = None  # a loop body's: the traces of the recordings around it
        self.loops = {}  # serial of a loop or branch with symbolic params -> (prim, params)

    def follow(self, outer, shapes):
        """Trace a loop body symbolically inside the recordings whose traces are
        ``outer``: their sizes, the shapes of what the body closes over, and the
        placeholders' ``shapes`` (by serial)."""
        self.outer = outer
        for trace in outer:
            self.guarding.hints.update(trace.guarding.hints)
        self.shapes.update(shapes)

    def shape_of(self, serial):
        """The symbolic shape known for ``serial`` here or, in a body, around it."""
        shape = self.shapes.get(serial)
        for trace in self.outer or ():
            if shape is not None:
                break
            shape = trace.shape_of(serial)
        return shape

    def declare(self, tensor, sizes):
        """Note that ``tensor`` has the symbolic shape ``sizes``; its concrete shape gives
        the traced size of each symbol, which every other use must agree with."""
        hints = self.guarding.hints
        for axis, (size, value) in enumerate(zip(sizes, tensor._value.shape)):
            for name in getattr(size, "symbols", ()):
                if hints.setdefault(name, value) != value:
                    label = f"'{tensor.name}'" if tensor.name else "a tensor"
                    raise ValueError(
                        f"{label}: axis {axis} has size {value}, but the symbolic size {name} "
                        f"is {hints[name]} on another tensor this tape records; tensors that "
                        "share a size name must have equal sizes on those axes")
        self.shapes[tensor._serial] = sizes

    def shape(self, tensor, records):
        """``tensor``'s symbolic shape, or ``None`` if it has no symbolic axis here."""
        if self.done < len(records):
            self.update(records)
        return self.shape_of(tensor._serial)

    def update(self, records):
        """Infer the symbolic shapes of the records not yet seen."""
        with guarding(self.guarding):
            for record in records[self.done:]:
                self._infer(record)
        self.done = len(records)

    def _infer(self, record):
        params = self.params.get(record.out_id, record.params)
        if record.prim is result and record.args[0]._serial in self.loops:
            params = self._result_params(record)
        avals = [self._aval(arg) for arg in record.args]
        if has_sizes(avals, params):
            shape, _ = record.prim.abstract(avals, params)
            if has_sizes([(shape, None)], {}):
                self.shapes[record.out_id] = tuple(shape)
            if record.prim.results is not None and params is not record.params:
                self.loops[record.out_id] = (record.prim, params)

    def _result_params(self, record):
        """A result of a loop or branch with symbolic params: the result's symbolic
        shape, as its primitive gives it."""
        prim, params = self.loops[record.args[0]._serial]
        types = prim.results.types(None, _Node(params))
        shape = tuple(types[record.params["index"]][0])
        sized = {**record.params, "shape": shape}
        if has_sizes([(shape, None)], {}):
            self.params[record.out_id] = sized
        return sized

    def _aval(self, arg):
        serial = getattr(arg, "_serial", None)
        if serial is None:
            return arg if isinstance(arg, (int, float, complex, bool)) else (
                getattr(arg, "shape", ()), getattr(arg, "dtype", None))
        declared = getattr(arg, "_dims", None)
        if declared is not None and serial not in self.shapes:
            self.declare(arg, declared)
        value = arg._value
        return self.shape_of(serial) or value.shape, value.dtype


class _Node:
    """What a primitive's ``results.types`` reads of a node: its params."""

    __slots__ = ("params",)

    def __init__(self, params):
        self.params = params


def trace_of(recording):
    """``recording``'s ``SymbolicTrace``, made on first use."""
    if recording.symbolic is None:
        recording.symbolic = SymbolicTrace()
    return recording.symbolic
