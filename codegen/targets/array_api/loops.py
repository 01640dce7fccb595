"""Loops and branches in array-API modules, written so that ``jax.jit`` traces them and
Dask keeps them lazy.

A numpy module's while loop tests a value at each step and stops; a traced value has
none.  A loop with ``maximum_iterations`` becomes a Python loop of that many steps, as
XLA runs a bounded loop: the test only marks whether the loop is still running, the
carries keep their values once it is not (``where``), and the steps counted are the
running ones.  Where the test's value can be read (not under ``jax.jit``, not on Dask's
lazy arrays), the loop stops as soon as it fails (``_stopped``).  The reverse loop of
its gradient, a reverse scan over the steps it kept, then runs over every kept step,
and a step after the last running one hands its cotangents through unchanged.  A
loop without a bound still stops when its test fails, and says why when ``jax.jit``
meets it (``_decided``).  A ``cond`` computes both branches and chooses with
``where``.  A use of a bounded loop's kept steps that cannot be masked so is refused.
"""

import numpy as np

from codegen.emit import CodegenError
from codegen.targets.array_api.helpers import helper_source
from codegen.targets.array_api.syntax import DEVICE
from codegen.targets.blocks import INDENT, Blocks, indented, shape_text
from ir.primitives.while_loop import while_arguments, while_result_positions


class ArrayApiBlocks(Blocks):
    """The array API standard's statements for loops and branches."""

    stack_reads = frozenset((DEVICE, "xpx"))

    def assign(self, names, sources):
        if len(names) < 2:
            return super().assign(names, sources)
        return [f"{', '.join(names)} = ({', '.join(sources)})"]

    def length(self, stack):
        return f"{stack}.shape[0]"  # (the standard defines no len of an array)

    def empty(self, shape, dtype):
        return (f"xp.empty({shape_text(shape)}, device={DEVICE}, "
                f"dtype=xp.{np.dtype(dtype).name})")

    def step_read(self, stack, step):
        return f"{stack}[{step}, ...]"  # (the standard wants every axis named)

    def step_written(self, stack, step, value):
        """``array_api_extra.at`` writes in place where the array allows, else into a new
        array (JAX)."""
        return f"{stack} = xpx.at({stack}, ({step}, ...)).set({value})"

    def stacked(self, name):
        return f"xp.stack({name})"

    def scan_carries(self, node, scope, step, stacks, carries, sources):
        """A reverse scan over the kept steps of a bounded while loop holds its carries
        at a step past the loop's running ones."""
        loop = _loop_masking(node, scope)
        if loop is None:
            return super().scan_carries(node, scope, step, stacks, carries, sources)
        if stacks:
            raise _refused(loop, "its reverse loop writes stacked values", scope.graph)
        steps = scope.notes[loop.id]
        return self.assign(carries, [f"xp.where({step} < {steps}, {source}, {carry})"
                                     for carry, source in zip(carries, sources)])

    def stopping_test(self, loop):
        """An unbounded loop's test read through ``_decided``, which names the loop and
        ``maximum_iterations`` when ``jax.jit`` has no value to read."""
        if loop.maximum is None:
            return f"if not _decided({loop.tested}, {user_line(loop.node, loop.graph)!r}):"
        return super().stopping_test(loop)

    def while_loop(self, loop, scope):
        if loop.maximum:
            return _masked_while(self, loop, scope)
        lines, helpers = super().while_loop(loop, scope)
        if loop.kept:  # (stacked, or made empty on the device)
            scope.reads.add(DEVICE)
        return lines, _helpers("_decided") if loop.maximum is None else helpers

    def cond(self, branch, scope):
        """Both branches computed, one after the other, and their results chosen with
        ``xp.where``: a branch chosen by a traced or lazy predicate is what ``jax.jit``
        and Dask cannot do, and what ``where`` can."""
        (true, true_values), (false, false_values) = branch.branches
        chosen = [scope.claim(f"{name}_if_true") for name in branch.results]
        lines = true + self.assign(chosen, true_values)
        lines += false + self.assign(branch.results, false_values)
        lines += [f"{name} = xp.where({branch.predicate}, {value}, {name})"
                  for name, value in zip(branch.results, chosen)]
        return lines, {}


def _masked_while(blocks, loop, scope):
    """``(lines, helpers)`` of a bounded while loop as ``maximum`` steps, masked once its
    test fails; its count of running steps is recorded for its reverse scans."""
    _refuse_unmasked_reads(loop)
    running = scope.claim("running")
    steps = scope.claim("steps") if loop.steps_read else loop.steps
    scope.notes[loop.node.id] = steps
    scope.reads.add(DEVICE)
    lines = blocks.assign(loop.carries, _arrays_for_numbers(loop))
    lines += [f"{name} = []" for name in loop.kept]
    lines += [f"{steps} = 0", f"{running} = xp.asarray(True, device={DEVICE})"]
    inner = loop.test + [f"{running} = xp.logical_and({running}, {loop.tested})",
                         f"if _stopped({running}):", INDENT + "break"] + loop.body
    inner += [f"{name}.append({value})" for name, (value, _) in loop.kept.items()]
    held = zip(loop.carries, loop.new_values)
    inner += blocks.assign(loop.carries, [f"xp.where({running}, {value}, {carry})"
                                          for carry, value in held])
    inner.append(f"{steps} = {steps} + xp.astype({running}, xp.int64)")
    lines += [f"for _ in range({loop.maximum}):"] + indented(inner) + blocks.kept_stacked(loop)
    if loop.steps_read:  # (the function may delete its name before the reverse scans)
        lines.append(f"{loop.steps} = {steps}")
    return lines, _helpers("_stopped")


def _arrays_for_numbers(loop):
    """The initial carries with each Python number an array, which ``where`` can mask."""
    test, body = loop.node.params["test"], loop.node.params["body"]
    carry_ids = while_arguments(test, body, loop.node.inputs)[0]
    return [f"xp.asarray({source}, device={DEVICE})" if _is_number(loop.graph[i]) else source
            for i, source in zip(carry_ids, loop.initial)]


def _is_number(node):
    return node.kind == "constant" and type(node.value) in (bool, int, float, complex)


def _refuse_unmasked_reads(loop):
    """Refuse a bounded loop whose kept steps are read other than as the steps of a
    reverse scan, which alone is masked by the count of running steps."""
    body, keep = loop.node.params["body"], loop.node.params["keep"]
    _, _, positions = while_result_positions(body, keep)
    graph = loop.graph
    kept = {user.id for user in graph if user.op == "result"
            and user.inputs[0] == loop.node.id and user.params["index"] in positions}
    if not kept:
        return
    needed = graph.upstream(graph.outputs)
    unmasked = bool(kept & set(graph.outputs))
    for user in graph:
        if user.id in needed and user.kind == "op" and kept & set(user.inputs):
            unmasked = unmasked or not _scans_steps_of(user, kept)
    if unmasked:
        raise _refused(loop.node, "its kept steps are read where they cannot be masked",
                       graph)


def _scans_steps_of(node, stacks):
    """Whether ``node`` is a reverse scan that reads ``stacks`` as its steps alone."""
    if node.op != "scan" or not node.params["reverse"]:
        return False
    carry_ids, _, invariant_ids = node.params["body"].split_inputs(node.inputs)
    return not stacks & {*carry_ids, *invariant_ids}


def _loop_masking(scan, scope):
    """The bounded while loop whose kept steps ``scan`` reads, or ``None``."""
    graph, counts = scope.graph, scope.notes
    _, x_ids, _ = scan.params["body"].split_inputs(scan.inputs)
    return next((graph[graph[x].inputs[0]] for x in x_ids if graph[x].op == "result"
                 and graph[x].inputs[0] in counts), None)


def user_line(loop, graph):
    """The user's line a while loop computes: its test's first line, or its body's, or
    its own."""
    for body in (loop.params["test"], loop.params["body"]):
        for node in body.graph:
            line = node.kind == "op" and line_of(node, body.graph)
            if line:
                return line
    return line_of(loop, graph) or "an unknown line"


def line_of(node, graph):
    """The user's line ``node`` computes or differentiates (``file.py:12``), or ``None``."""
    source = node.source or node.meta.get("adjoint_source") or node.meta.get("jvp_source")
    of = node.meta.get("adjoint_of", node.meta.get("jvp_of"))
    if source is None and of is not None:
        source = graph[of].source
    return str(source.statement) if source else None


def _helpers(*names):
    return {name: helper_source(name) for name in names}


def _refused(loop, reason, graph):
    return CodegenError(
        f"cannot generate code for the while_loop computing {user_line(loop, graph)}: it has "
        f"no spelling for target='array_api': {reason}. Generate the numpy target for "
        "this computation")


ARRAY_API_BLOCKS = ArrayApiBlocks()
