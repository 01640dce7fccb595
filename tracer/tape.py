"""``GradientTape``: TensorFlow's tape semantics over numpy.

The tape pushes its ``Recording`` on the thread's stack while its context is
active; ``gradient`` hands the recorded ops to ``ir.backward``.  When no tape
is recording, the backward pass runs on plain arrays (nothing could record
it); otherwise it runs on tensors, so outer tapes (or this one, if it is
persistent and still recording) record the gradient computation: that is
how nested tapes give higher-order derivatives.
"""

import contextlib
import enum
import warnings

import numpy as np

import ir
from ir.autodiff.batching import Batched
from ir.primitive import TRAINABLE_KINDS, is_trainable
from ir.primitives.elementwise import add
from ir.primitives.shape import cast
from tracer.core import OpRecord, Tensor, concrete_shape, record_values, value_of, wrap
from tracer.errors import GradientTapeWarning, TapeStateError
from tracer.diagnostics.explain import explain, warn_of_escapes
from tracer.specialised import warn_for_module
from tracer.jacobian_rows import jacobian_rows, one_hot_seeds
from tracer.recorded_graph import build_graph
from tracer.recording import Recording
from tracer.sizes.tracing import default_seed, recorded_twins, sized_loops
from tracer.state import accumulator_stack, active_recordings
from ir.structure import flatten, pack_as
from tracer.variable import Variable, mark_read


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


_GIVEN = {UnconnectedGradients.NONE: "None", UnconnectedGradients.ZERO: "zeros"}
"""What a source the target does not depend on gets, as a warning words it."""


def unconnected_choice(value):
    """``value`` as an ``UnconnectedGradients`` member, or a ValueError naming the choices."""
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; "
                         "use UnconnectedGradients.NONE or UnconnectedGradients.ZERO") from None


class GradientTape:
    """Records operations on watched tensors and variables, for reverse-mode gradients.

    ``persistent=False`` tapes answer one ``gradient``/``jacobian`` call and
    then free what they held; persistent ones answer any number.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed_variables = bool(watch_accessed_variables)
        self._recording = None
        self._on_stack = False
        self._consumed = False
        self._released_variables = ()

    # --- context ------------------------------------------------------------

    def __enter__(self):
        if self._on_stack:
            raise TapeStateError("Tape is still recording: a tape cannot be re-entered inside its "
                                 "own `with` block. Use a new GradientTape for a nested tape.")
        self._ensure_recording()
        self._push()
        return self

    def __exit__(self, *exc_info):
        if self._on_stack:
            self._pop("__exit__")
        return False

    def _ensure_recording(self):
        if self._recording is None:
            self._recording = Recording(self._watch_accessed_variables)
            self._consumed = False
        return self._recording

    def _push(self, position=None):
        stack = active_recordings()
        stack.insert(len(stack) if position is None else position, self._recording)
        self._on_stack = True

    def _pop(self, what):
        """Take this tape off the stack; returns where it was, to put it back there."""
        if not self._on_stack:
            raise TapeStateError(f"Tape is not recording: {what}() works only inside the tape's "
                                 "`with` block, and not inside its stop_recording().")
        stack = active_recordings()
        position = len(stack) - 1
        while stack[position] is not self._recording:
            position -= 1
        del stack[position]
        self._on_stack = False
        return position

    @contextlib.contextmanager
    def stop_recording(self):
        """A block in which this tape records nothing; its results are constants afterwards."""
        position = self._pop("stop_recording")
        try:
            yield
        finally:
            if self._recording is not None:
                self._push(position)

    def reset(self):
        """Forget everything recorded and watched so far, and keep recording."""
        position = self._pop("reset")
        self._recording = Recording(self._watch_accessed_variables)
        self._push(position)

    # --- watching -----------------------------------------------------------

    def watch(self, tensor):
        """Track a tensor, variable, or nested structure of them."""
        leaves = flatten(tensor)
        for leaf in leaves:
            if not isinstance(leaf, (Tensor, Variable)):
                raise ValueError(
                    f"Passed in object {leaf!r} of type {type(leaf).__name__!r}, not a "
                    "tracer.Tensor or tracer.Variable; wrap arrays with tracer.constant first.")
        if self._consumed:
            raise TapeStateError(
                "watch() on a non-persistent tape that has answered its one gradient or "
                "jacobian call: enter it again (`with tape:`) to record anew, or use a new "
                "GradientTape")
        recording = self._ensure_recording()
        for leaf in leaves:
            trainable = is_trainable(leaf.dtype)
            if not trainable:
                warnings.warn(f"The dtype of the watched tensor must be floating-point or "
                              f"complex, got {leaf.dtype}: no gradient will flow to it",
                              GradientTapeWarning, stacklevel=2)
            if isinstance(leaf, Variable):
                recording.variables[leaf._serial] = leaf
                mark_read(recording, leaf, leaf._value)
            else:
                recording.watched[leaf._serial] = leaf
                if trainable:
                    recording.tracked.add(leaf._serial)

    def watched_variables(self):
        """The variables this tape watches, in the order they were created."""
        if self._recording is None:
            return self._released_variables
        return tuple(sorted(self._recording.variables.values(), key=lambda v: v._serial))

    # --- results ------------------------------------------------------------

    @property
    def graph(self):
        """What the tape recorded, as an ``ir.Graph`` (``.nx`` is the networkx view)."""
        return build_graph(self._usable("graph"))[0]

    def graph_of(self, target, sources, constant_targets=False):
        """The recorded graph with the node ids of ``target`` and ``sources``, for tools
        (code generation) that differentiate the graph themselves.

        Returns ``(graph, target_ids, source_groups, pack)``: a node id per
        flattened target; per flattened source a tuple of node ids whose
        gradients add up to its gradient (a variable has one per version
        read; an empty tuple means not connected); and ``pack(leaves)``,
        which puts one leaf per source back into the structure of ``sources``.
        With ``constant_targets``, a target the tape did not record is a constant node.
        """
        recording = self._usable("graph_of")
        targets = _check_values(flatten(target), "target")
        source_list = _check_values(flatten(sources), "sources")
        graph, node_of = build_graph(recording)
        target_ids = []
        for value in targets:
            tensor = value._value if isinstance(value, Variable) else value
            if tensor._serial not in node_of and constant_targets:
                node_of[tensor._serial] = graph.add_node(
                    "constant", "constant", (), {}, tensor._value.shape, tensor.dtype,
                    name=tensor.name, value=tensor._value).id
            if tensor._serial not in node_of:
                raise ValueError(f"the target {value!r} was not recorded on this tape: compute "
                                 "it inside the tape's `with` block from watched values")
            target_ids.append(node_of[tensor._serial])
        groups = [tuple(node_of[i] for i in recording.ids_of(s) if i in node_of)
                  for s in source_list]
        return graph, target_ids, groups, lambda leaves: pack_as(sources, leaves)

    def warn_of_conversions(self, target, sources, gradients, by, given="None"):
        """For code generators: ``tracer.specialised.warn_for_module``; its docstring line."""
        return warn_for_module(self._usable("warn_of_conversions"), flatten(target),
                               flatten(sources), gradients, by, given)

    def explain(self, target, source):
        """Why the gradient of ``target`` with respect to ``source`` is None (or why it is
        not): an ``Explanation`` whose ``str()`` names the user's line where the path broke.

        ``target`` may be any value, since a target that is a plain numpy
        value (it left the trace) is one of the things to explain.
        """
        recording = self._usable("explain")
        source = _check_values([source], "source")[0]
        return explain(recording, target, source, recording.ids_of(source))

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d sum(target) / d source for each source, in the structure of ``sources``.

        A list of targets is summed; ``output_gradients`` gives each target's
        upstream gradient instead of ones (a vector-Jacobian product).
        """
        recording = self._usable("gradient")
        if target is None:
            raise TypeError("Argument `target` should be a tensor, variable or nested structure "
                            "of them to be differentiated, but received None.")
        unconnected = unconnected_choice(unconnected_gradients)
        targets = _check_values(flatten(target), "target")
        source_list = _check_values(flatten(sources), "sources")
        seeds = _output_gradients(output_gradients, targets)
        self._begin_gradient_call()
        try:
            grads = _gradients(recording, targets, source_list, seeds)
        finally:
            self._end_gradient_call()
        warn_of_escapes(recording, targets, source_list, grads, _GIVEN[unconnected])
        return pack_as(sources, [_fill(g, s, (), unconnected) for g, s in zip(grads, source_list)])

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target / d source, of shape ``target.shape + source.shape`` for each source."""
        recording = self._usable("jacobian")
        unconnected = unconnected_choice(unconnected_gradients)
        target = _check_values([target], "target")[0]
        source_list = _check_values(flatten(sources), "sources")
        self._begin_gradient_call()
        try:
            grads = jacobian_rows(
                lambda seeds: _gradients(recording, [target], source_list, [seeds]),
                one_hot_seeds(concrete_shape(target), target.dtype), experimental_use_pfor)
        finally:
            self._end_gradient_call()
        warn_of_escapes(recording, [target], source_list, grads, _GIVEN[unconnected],
                        "tape.jacobian")
        results = []
        for grad, source in zip(grads, source_list):
            if grad is not None:
                grad = np.reshape(grad, concrete_shape(target) + concrete_shape(source))
            results.append(_fill(grad, source, concrete_shape(target), unconnected))
        return pack_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: ``[b, y...]`` by ``[b, x...]`` gives ``[b, y..., x...]``.

        Assumes row ``i`` of the target depends only on row ``i`` of the
        source.  An unconnected source gives zeros, as in TensorFlow.
        """
        recording = self._usable("batch_jacobian")
        unconnected_choice(unconnected_gradients)
        target, source = _check_values([target, source], "target and source")
        target_shape, source_shape = concrete_shape(target), concrete_shape(source)
        for shape in (target_shape, source_shape):
            if len(shape) < 2:
                raise ValueError(f"Shape {shape} must have rank at least 2")
        if target_shape[0] != source_shape[0]:
            raise ValueError(f"Need first dimension of target shape ({target_shape}) and source "
                             f"shape ({source_shape}) to match.")
        batch, inner = target_shape[0], target_shape[1:]
        self._begin_gradient_call()
        try:
            one_hot = one_hot_seeds(inner, target.dtype)
            seeds = Batched(np.broadcast_to(one_hot.value[:, None], (one_hot.size, batch) + inner),
                            one_hot.size)
            (grad,) = jacobian_rows(
                lambda seeds: _gradients(recording, [target], [source], [seeds]), seeds,
                experimental_use_pfor)
        finally:
            self._end_gradient_call()
        if grad is None:
            return wrap(np.zeros((batch,) + inner + source_shape[1:], source.dtype))
        # grad's axes: the target's inner element, then the source's (batch first).
        return np.reshape(np.moveaxis(grad, 0, 1), (batch,) + inner + source_shape[1:])

    # --- lifecycle of one call ------------------------------------------------

    def _usable(self, what):
        if self._recording is None:
            if self._consumed:
                raise TapeStateError(
                    "A non-persistent GradientTape can only be used to compute one set of "
                    "gradients (or jacobians); create it with GradientTape(persistent=True) "
                    f"to call {what}() more than once.")
            raise TapeStateError(f"GradientTape.{what}() called on a tape that has not "
                                 "recorded anything: compute the target inside `with tape:` "
                                 "first.")
        return self._recording

    def _begin_gradient_call(self):
        if not self._on_stack:
            return
        if not self._persistent:
            self._pop("gradient")
            return
        warnings.warn(
            "Calling gradient on a persistent tape inside its context records the gradient "
            "computation on the tape, which costs time and memory. Call it after the `with` "
            "block unless you want to differentiate the gradient again.",
            GradientTapeWarning, stacklevel=3)

    def _end_gradient_call(self):
        if not self._persistent:
            self._released_variables = self.watched_variables()
            self._recording = None
            self._consumed = True


def _check_values(values, what):
    for value in values:
        if not isinstance(value, (Tensor, Variable)):
            raise TypeError(f"{what} must be tracer.Tensor or tracer.Variable values (or nested "
                            f"structures of them), got {type(value).__name__}: {value!r}")
    return values


def _output_gradients(output_gradients, targets):
    if output_gradients is None:
        return [None] * len(targets)
    seeds = flatten(output_gradients)
    if len(seeds) != len(targets):
        raise ValueError(f"output_gradients has {len(seeds)} entries for {len(targets)} "
                         "targets; give one upstream gradient per target")
    for seed, target in zip(seeds, targets):
        if seed is None:
            raise ValueError("output_gradients must not contain None; give zeros for a target "
                             "that should not contribute")
        if np.shape(value_of(seed)) != concrete_shape(target):
            raise ValueError(f"an output gradient of shape {np.shape(value_of(seed))} does not "
                             f"match its target of shape {concrete_shape(target)}")
    return seeds


def _with_dims(recording, records):
    """``records`` with the params of each as applied, where they held ``Dim``s
    (``note_sized``): derivative rules that record on outer tapes then keep the sizes
    symbolic there too."""
    dims = recording.symbolic.dims if recording.symbolic is not None else None
    if not dims:
        return records[:]
    return [OpRecord(r.prim, r.args, dims[r.out_id], r.out, r.in_ids, r.site)
            if r.out_id in dims else r for r in records]


def _gradients(recording, targets, sources, seeds):
    """One backward pass: a cotangent (or None) per source, with the source's dtype.

    A ``Batched`` seed stands for many: the pass runs once over all of them
    and each gradient gains their leading axis.  User-defined gradient
    functions see one upstream value at a time, so with one of those on the
    tape the pass runs once per seed instead.
    """
    for seed in seeds:
        if isinstance(seed, Batched) and _has_user_rules(recording):
            return _gradients_per_seed(recording, targets, sources, seeds)
    keep_tensors = bool(active_recordings()) or bool(accumulator_stack())
    seed_map = {}
    for target, seed in zip(targets, seeds):
        value = target._value if isinstance(target, Variable) else target
        array = value._value
        if array.dtype.kind not in TRAINABLE_KINDS:
            continue
        if seed is None:
            seed = default_seed(value, keep_tensors)
        if isinstance(seed, Batched):
            if keep_tensors:
                seed = Batched(wrap(np.asarray(seed.value)), seed.size)
        elif not keep_tensors:
            seed = np.asarray(value_of(seed), dtype=array.dtype)
        elif not isinstance(seed, Tensor):  # a copy: outer tapes keep what they record
            seed = wrap(np.array(value_of(seed), dtype=array.dtype))
        previous = seed_map.get(value._serial)
        seed_map[value._serial] = seed if previous is None else add(previous, seed)
    ids_per_source = [recording.ids_of(s) for s in sources]
    wanted = {i for ids in ids_per_source for i in ids}
    values = record_values if keep_tensors else _array_values
    records = _with_dims(recording, recording.records) if keep_tensors else recording.records[:]
    with sized_loops(recorded_twins(recording) if keep_tensors else ()):
        cotangents = ir.backward(records, seed_map, wanted, values)
    results = []
    for source, ids in zip(sources, ids_per_source):
        parts = [cotangents[i] for i in ids if i in cotangents]
        dtype = source.dtype
        if not parts or dtype.kind not in TRAINABLE_KINDS:
            results.append(None)
            continue
        total = parts[0]
        for part in parts[1:]:
            total = add(total, part)
        if total.dtype != dtype:
            total = cast(total, dtype=dtype)
        if isinstance(total, Batched):
            total = total.value
        results.append(total if isinstance(total, Tensor) else wrap(np.asarray(total)))
    return results


def _has_user_rules(recording):
    """Whether a record's rule is a user's Python function, which sees one seed at a time."""
    return any(record.prim.python_only is not None for record in recording.records)


def _gradients_per_seed(recording, targets, sources, seeds):
    size = next(s.size for s in seeds if isinstance(s, Batched))
    rows = [_gradients(recording, targets, sources,
                       [s.value[k] if isinstance(s, Batched) else s for s in seeds])
            for k in range(size)]
    results = []
    for source, column in zip(sources, zip(*rows)):
        if all(part is None for part in column):
            results.append(None)
            continue
        parts = [np.zeros(concrete_shape(source), source.dtype) if part is None else part
                 for part in column]
        results.append(np.stack(parts))
    return results


def _array_values(entry):
    return [a._value if a.__class__ is Tensor else a for a in entry.args], entry.out._value


def _fill(result, source, leading_shape, unconnected):
    if result is not None or unconnected is UnconnectedGradients.NONE:
        return result
    return wrap(np.zeros(tuple(leading_shape) + concrete_shape(source), source.dtype))
