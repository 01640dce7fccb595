"""The statements a target writes for loops and branches: numpy's, which other targets
override where their spelling differs.

``codegen.loop_blocks`` lays out each body and names each value of a loop or branch
(the carries, the stacks, the step, the count of steps), then asks its target's
``Blocks`` how a scan's number of steps is read, how a stack of steps is made, read
and written, how carries take their values, and how a while loop and a cond are
written around their laid-out bodies.  numpy's answers are plain Python: a ``for``
loop writing stacks made before it with ``np.empty``, a ``while`` loop appending to
lists stacked after it, and an ``if``/``else``.
"""

from dataclasses import dataclass

import numpy as np

INDENT = "    "


@dataclass
class WhileParts:
    """A while loop laid out: ``carries`` named and given their ``initial`` values; the
    count of steps named ``steps`` (``steps_read``: a result the function reads); the
    ``test``'s lines and the source of its value, ``tested``; the ``body``'s lines and
    the sources of the carries' ``new_values``; ``kept``, each stack's name to the
    source of the value it keeps and that value's ``(shape, dtype)``; ``maximum``, the
    bound on the steps or ``None``.  ``node`` is the loop's node in ``graph``."""

    node: object
    graph: object
    carries: list
    initial: list
    steps: str
    steps_read: bool
    test: list
    tested: str
    body: list
    new_values: list
    kept: dict
    maximum: object


@dataclass
class CondParts:
    """A cond laid out: its ``results`` named, the source of its ``predicate``, and each
    branch (true, then false) as its lines and the sources of its results."""

    node: object
    graph: object
    results: list
    predicate: str
    branches: list


class Blocks:
    """numpy's statements for loops and branches."""

    stack_reads = frozenset()
    """The module's names that making and writing a scan's stacks reads (numpy's are
    read by every module)."""

    def assign(self, names, sources):
        """One statement giving several names their values at once (a step's new carries
        read the old ones)."""
        if not names:
            return []
        return [f"{', '.join(names)} = {', '.join(sources)}"]

    def length(self, stack):
        """The number of steps of a scan over ``stack``."""
        return f"len({stack})"

    def empty(self, shape, dtype):
        """An array of ``shape`` (its sizes may be expressions) and ``dtype``, to be
        written a step at a time."""
        return f"np.empty({shape_text(shape)}, np.{np.dtype(dtype).name})"

    def step_read(self, stack, step):
        """The value of step ``step`` of ``stack``."""
        return f"{stack}[{step}]"

    def step_written(self, stack, step, value):
        """The statement writing ``value`` as step ``step`` of ``stack``."""
        return f"{stack}[{step}] = {value}"

    def scan_carries(self, node, scope, step, stacks, carries, sources):
        """The statement ending step ``step`` of scan ``node`` (which writes ``stacks``):
        the ``carries`` take their new values, ``sources``."""
        return self.assign(carries, sources)

    def stopping_test(self, loop):
        """The line that ends while loop ``loop`` where its test fails."""
        return f"if not {loop.tested}:"

    def while_loop(self, loop, scope):
        """``(lines, helpers)`` of while loop ``loop`` (``WhileParts``)."""
        lines = self.assign(loop.carries, loop.initial)
        lines += [f"{name} = []" for name in loop.kept] + [f"{loop.steps} = 0"]
        inner = loop.test + [self.stopping_test(loop), INDENT + "break"] + loop.body
        inner += [f"{name}.append({value})" for name, (value, _) in loop.kept.items()]
        inner += self.assign(loop.carries, loop.new_values)
        inner.append(f"{loop.steps} += 1")
        head = ("while True:" if loop.maximum is None
                else f"while {loop.steps} < {loop.maximum}:")
        return lines + [head] + indented(inner) + self.kept_stacked(loop), {}

    def kept_stacked(self, loop):
        """The statements stacking each list a while loop kept, empty or not."""
        return [f"{name} = {self.stacked(name)} if {name} else "
                f"{self.empty((0, *shape), dtype)}"
                for name, (_, (shape, dtype)) in loop.kept.items()]

    def stacked(self, name):
        """The values of list ``name`` stacked into one array."""
        return f"np.stack({name})"

    def cond(self, branch, scope):
        """``(lines, helpers)`` of cond ``branch`` (``CondParts``)."""
        lines = [f"if {branch.predicate}:"]
        for keyword, (body, sources) in zip((None, "else:"), branch.branches):
            inner = body + self.assign(branch.results, sources)
            lines += ([keyword] if keyword else []) + indented(inner or ["pass"])
        return lines, {}


def indented(lines):
    """``lines`` one level deeper (a blank line stays blank)."""
    return [INDENT + line if line else line for line in lines]


def shape_text(shape):
    """A shape as a tuple display; its sizes may be expressions (``len(xs)``)."""
    return f"({', '.join(str(d) for d in shape)}{',' if len(shape) == 1 else ''})"


NUMPY_BLOCKS = Blocks()
