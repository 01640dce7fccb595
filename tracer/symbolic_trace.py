"""What a recording knows of symbolic sizes (``ir.dims``): the symbolic shapes of the
values it records, the params that hold sizes, the sizes used as numbers, and the
guards taken.

A recording gets one when a tensor with declared symbolic axes meets it or a
guard is taken while it records; recordings of concrete values never do, so
recording costs nothing more for them.  Shapes are inferred lazily, from the
records through each primitive's shape rule (``ir.shape_rules``), when a
shape is read or the recording's graph is built.
"""

from ir.guards import Guarding, guarding
from ir.shape_rules import has_sizes


class SymbolicTrace:
    """The symbolic side of one recording."""

    __slots__ = ("guarding", "shapes", "params", "sizes", "done")

    def __init__(self):
        self.guarding = Guarding({})
        self.shapes = {}  # serial -> shape holding ``Size``s, for values with a symbolic axis
        self.params = {}  # serial of a record's result -> its params, holding ``Size``s
        self.sizes = {}  # serial of a 0-d tensor that is a size used as a number -> its Size
        self.done = 0  # records whose shapes are inferred

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
        return self.shapes.get(tensor._serial)

    def update(self, records):
        """Infer the symbolic shapes of the records not yet seen."""
        with guarding(self.guarding):
            for record in records[self.done:]:
                self._infer(record)
        self.done = len(records)

    def _infer(self, record):
        params = self.params.get(record.out_id, record.params)
        avals = [self._aval(arg) for arg in record.args]
        if has_sizes(avals, params):
            shape, _ = record.prim.abstract(avals, params)
            if has_sizes([(shape, None)], {}):
                self.shapes[record.out_id] = tuple(shape)

    def _aval(self, arg):
        serial = getattr(arg, "_serial", None)
        if serial is None:
            return arg if isinstance(arg, (int, float, complex, bool)) else (
                getattr(arg, "shape", ()), getattr(arg, "dtype", None))
        declared = getattr(arg, "_dims", None)
        if declared is not None and serial not in self.shapes:
            self.declare(arg, declared)
        value = arg._value
        return self.shapes.get(serial, value.shape), value.dtype


def trace_of(recording):
    """``recording``'s ``SymbolicTrace``, made on first use."""
    if recording.symbolic is None:
        recording.symbolic = SymbolicTrace()
    return recording.symbolic
