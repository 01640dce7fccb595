"""``Layer``: Keras 3's layer on tapegen's variables and tapes.

A layer makes its weights when first called, from the input's shape (``build``),
then computes ``call(inputs)`` in numpy, which tapes record and ``tracer.function``
compiles.  It tracks, in the order they are assigned as attributes, the layers and
variables it holds, so its weights come in Keras' order: its own trainable ones,
its own non-trainable ones, then each sublayer's.  ``training`` reaches layers
called inside a layer's ``call`` without being passed, as in Keras.
"""

import inspect
import itertools
import threading
from collections import Counter

import numpy as np

from ir.sizes.traced import TracedSize
from tracer.layers.initializers import get as initializer_named
from tracer.layers.regularizers import get as regularizer_named
from tracer.layers.seed_generator import SeedGenerator
from tracer.module import Module, _snake_case
from tracer.variable import Variable

_names = Counter()
_names_lock = threading.Lock()
_context = threading.local()


def unique_name(base):
    """``base``, then ``base_1``, ``base_2``... as Keras names the layers of a session."""
    with _names_lock:
        count = _names[base]
        _names[base] += 1
    return base if count == 0 else f"{base}_{count}"


class Layer(Module):
    """The base of layers: ``build(input_shape)`` makes weights (``add_weight``) and
    ``call(inputs, training=False)`` computes the outputs."""

    def __init__(self, *, trainable=True, name=None, dtype=None, input_shape=None,
                 input_dim=None):
        object.__setattr__(self, "_layers", [])
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_seed_generators", [])
        object.__setattr__(self, "_penalties", [])  # (weight, regularizer)
        super().__init__(name or unique_name(_snake_case(type(self).__name__)))
        self.trainable = trainable
        self.dtype = np.dtype(dtype or np.float64)
        self.built = False
        self._added_losses = []
        self._output_shape = None
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._declared_input_shape = None if input_shape is None else tuple(input_shape)

    # --- what a layer is made of --------------------------------------------------

    def __setattr__(self, name, value):
        for item in _layers_and_variables(value):
            tracked = (self._layers if isinstance(item, Layer) else self._seed_generators
                       if isinstance(item, SeedGenerator) else self._own_weights)
            if not any(item is t for t in tracked):
                tracked.append(item)
        object.__setattr__(self, name, value)

    def add_weight(self, shape=(), initializer=None, dtype=None, trainable=True,
                   regularizer=None, name=None):
        """A new variable of this layer: ``initializer`` by name (``"zeros"``) or as a
        callable, Glorot's uniform by default; a ``regularizer`` adds its penalty to
        ``losses``."""
        dtype = np.dtype(dtype or self.dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.kind == "f" else "zeros"
        value = initializer_named(initializer)(tuple(shape), dtype)
        variable = Variable(np.asarray(value, dtype=dtype), trainable=trainable,
                            name=f"{self.name}/{name}" if name else self.name)
        self._own_weights.append(variable)
        if regularizer is not None:
            self._penalties.append((variable, regularizer_named(regularizer)))
        return variable

    @property
    def layers(self):
        """The layers this one holds, in the order they were assigned."""
        return list(self._layers)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        own = [w for w in self._own_weights if w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.trainable_weights])

    @property
    def non_trainable_weights(self):
        own = [w for w in self._own_weights if not w.trainable or not self.trainable]
        frozen = [w for layer in self._layers for w in layer.non_trainable_weights]
        if not self.trainable:
            frozen = [w for layer in self._layers for w in layer.weights]
        return _unique(own + frozen)

    @property
    def weights(self):
        """Every weight: this layer's trainable, then non-trainable, then each
        sublayer's (Keras' order, the order of ``get_weights``)."""
        own = [w for w in self._own_weights if w.trainable] + [
            w for w in self._own_weights if not w.trainable]
        return _unique(own + [w for layer in self._layers for w in layer.weights])

    @property
    def variables(self):
        """The weights and the state that is not a weight (a ``Dropout``'s seed), as
        Keras orders them: this layer's weights, its seeds' states, then each
        sublayer's variables."""
        own = [w for w in self._own_weights if w.trainable] + [
            w for w in self._own_weights if not w.trainable]
        own += [generator.state for generator in self._seed_generators]
        return tuple(_unique(own + [v for layer in self._layers for v in layer.variables]))

    @property
    def trainable_variables(self):
        return tuple(self.trainable_weights)

    @property
    def non_trainable_variables(self):
        if not self.trainable:
            return self.variables
        own = [w for w in self._own_weights if not w.trainable] + [
            generator.state for generator in self._seed_generators]
        return tuple(_unique(own + [v for layer in self._layers
                                    for v in layer.non_trainable_variables]))

    def get_weights(self):
        """Copies of the weights' values, in ``weights``' order."""
        return [np.array(w.numpy()) for w in self.weights]

    def set_weights(self, weights):
        """Give every weight the value at its place in ``weights`` (``get_weights``'
        order): all of them or, if any count or shape differs, none."""
        own = self.weights
        weights = list(weights)
        if len(weights) != len(own):
            raise ValueError(f"{self.name} has {len(own)} weights but {len(weights)} "
                             "values were given")
        values = []
        for variable, value in zip(own, weights):
            value = np.asarray(value)
            if value.shape != tuple(variable.shape):
                raise ValueError(f"weight {variable.name} has shape {tuple(variable.shape)} "
                                 f"but the value given has shape {value.shape}")
            values.append(value.astype(variable.dtype))
        for variable, value in zip(own, values):
            variable.assign(value)

    def count_params(self):
        return int(sum(np.prod(w.shape, dtype=np.int64) for w in self.weights))

    # --- losses -------------------------------------------------------------------

    def add_loss(self, loss):
        """Add ``loss`` to ``losses`` until the next call of the outermost layer."""
        self._added_losses.append(loss)

    @property
    def losses(self):
        """The losses ``add_loss`` added during the last call, and the weights'
        regularization penalties (computed now, so a tape around this read records them)."""
        found = list(self._added_losses)
        if self.trainable:
            found.extend(regularizer(weight) for weight, regularizer in self._penalties)
        for layer in self._layers:
            found.extend(layer.losses)
        return found

    def _clear_losses(self):
        self._added_losses.clear()
        for layer in self._layers:
            layer._clear_losses()

    # --- calling ------------------------------------------------------------------

    def build(self, input_shape):
        """Make the weights for inputs of ``input_shape`` (the first call's)."""

    def call(self, inputs):
        raise NotImplementedError(f"{type(self).__name__} defines no call(inputs)")

    def __call__(self, inputs, *args, training=None, **kwargs):
        outer = getattr(_context, "training", _UNSET)
        if outer is _UNSET:  # the outermost layer: losses start afresh
            self._clear_losses()
        elif training is None:
            training = outer
        if not self.built:
            self.build(_shape_of(inputs))
            self.built = True
        if _accepts(self.call, "training"):
            kwargs["training"] = bool(training)
        _context.training = training
        try:
            outputs = self.call(inputs, *args, **kwargs)
        finally:
            if outer is _UNSET:
                del _context.training
            else:
                _context.training = outer
        self._output_shape = _shape_of(outputs)
        return outputs

    def _tracked_attributes(self):
        return [value for key, value in sorted(vars(self).items())
                if key not in ("_name", "_layers", "_own_weights", "_penalties")] + [
            self._own_weights, self._layers]

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_UNSET = object()


def _accepts(function, name):
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _shape_of(value):
    """The shape of an array, or of each array of a list, tuple or dict, as numbers: a
    symbolic size as its traced number, read without fixing it (what ``build`` and
    ``summary`` need does not depend on the batch)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_shape_of(v) for v in value)
    if isinstance(value, dict):
        return {k: _shape_of(v) for k, v in value.items()}
    return tuple(d.value if isinstance(d, TracedSize) else int(d) for d in np.shape(value))


def _unique(items):
    seen = set()
    return [x for x in items if not (id(x) in seen or seen.add(id(x)))]


def _layers_and_variables(value):
    """The layers, variables and seed generators an attribute's value holds, through
    lists, tuples and dicts, in order."""
    if isinstance(value, (Layer, Variable, SeedGenerator)):
        return [value]
    if isinstance(value, dict):
        return list(itertools.chain.from_iterable(
            _layers_and_variables(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return list(itertools.chain.from_iterable(_layers_and_variables(v) for v in value))
    return []
