"""``Optimizer``: what Keras 3's optimizers share, over ``tracer.Variable``s and numpy.

``apply_gradients`` filters out ``None`` gradients (warning once per variable), checks
each gradient against its variable, clips them, applies the decoupled weight decay,
runs each optimizer's ``update_step`` with the step's learning rate, and counts the
step, in Keras' order.  State is made lazily per variable, in its dtype, as
non-trainable variables (``optimizer.variables``).  An update reads and assigns
values without reading the variables through a tape, so no tape records it, and it
keeps numpy arrays alone: nothing that would hold a tape's memory.  In a function
traced for graph mode (``tracer.function``) the same code reads the variables as the
trace's values instead, so the update, its learning rate and its step count are part
of the graph.
"""

import inspect
import re
import warnings

import numpy as np

from tracer.core import Tensor, concrete_shape, value_of
from tracer.optimizers.clipping import clipped
from tracer.optimizers.schedules import LearningRateSchedule, deserialize, serialize
from tracer.recording import graph_recording
from tracer.variable import Variable


class Optimizer:
    """The base of the optimizers: learning rate, clipping, weight decay, state."""

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None):
        given = {"clipnorm": clipnorm, "clipvalue": clipvalue,
                 "global_clipnorm": global_clipnorm}
        if sum(value is not None for value in given.values()) > 1:
            raise ValueError("Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
                             f"be set. Received: {given}")
        self.name = name or re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", type(self).__name__).lower()
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self._iterations = Variable(np.int64(0), trainable=False, name="iteration")
        self._learning_rate = _held_learning_rate(learning_rate)
        self._slots = {}  # (variable serial: {slot name: slot variable})
        self._slot_variables = []
        self._warned = set()
        self._excluded_names = ()
        self._excluded_serials = set()

    # --- the learning rate and the step -------------------------------------------

    @property
    def iterations(self):
        """How many updates ``apply_gradients`` has made: a non-trainable int64 variable."""
        return self._iterations

    @property
    def learning_rate(self):
        """The learning rate of the next update."""
        return self._current_learning_rate()

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(self._learning_rate, Variable) and not callable(value):
            self._learning_rate.assign(np.float64(value))
        elif isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError("This optimizer was created with a LearningRateSchedule; its "
                            "learning rate cannot be set. Make a new optimizer instead.")
        else:
            self._learning_rate = _held_learning_rate(value)

    def _current_learning_rate(self):
        tracing = graph_recording() is not None
        step = self._iterations._read() if tracing else int(value_of(self._iterations))
        rate = self._learning_rate
        if isinstance(rate, Variable):
            return rate._read() if tracing else float(value_of(rate))
        if isinstance(rate, LearningRateSchedule):
            return rate(step)
        takes_step = len(inspect.signature(rate).parameters) > 0
        return rate(step) if takes_step else rate()

    # --- state --------------------------------------------------------------------

    @property
    def variables(self):
        """The state: the step count, the learning rate (when it is a number), then each
        variable's slots in the order they were made."""
        held = [self._learning_rate] if isinstance(self._learning_rate, Variable) else []
        return [self._iterations, *held, *self._slot_variables]

    def build(self, var_list):
        """Make the state of each variable of ``var_list`` now (before restoring it)."""
        for variable in var_list:
            self._state(_checked_variable(variable))

    def build_slots(self, variable):
        """``{slot name: initial value}`` of ``variable``'s state (none by default); each
        slot is an array of the variable's shape and dtype."""
        return {}

    def _state(self, variable):
        state = self._slots.get(variable._serial)
        if state is None:
            state = {}
            for slot, initial in self.build_slots(variable).items():
                state[slot] = Variable(np.full(variable.shape, initial, dtype=variable.dtype),
                                       trainable=False,
                                       name=f"{variable.name or 'variable'}_{slot}")
                self._slot_variables.append(state[slot])
            self._slots[variable._serial] = state
        return state

    def save_own_variables(self, store):
        """Write the state into ``store`` (a dict, say for ``np.savez``): ``store["0"]``,
        ``store["1"]``, ... as numpy arrays, in the order of ``variables``."""
        for k, variable in enumerate(self.variables):
            store[str(k)] = np.array(value_of(variable))

    def load_own_variables(self, store):
        """Read the state ``save_own_variables`` wrote. Build the state first
        (``build(var_list)``, with the variables in the order they were first updated)."""
        if len(store) != len(self.variables):
            raise ValueError(
                f"the stored state has {len(store)} arrays but this optimizer has "
                f"{len(self.variables)} variables: call build(var_list) with the variables "
                "the saved optimizer updated, in the same order, before loading")
        for k, variable in enumerate(self.variables):
            variable.assign(np.asarray(store[str(k)]))

    def get_config(self):
        """The arguments that make this optimizer again (``from_config``), as plain data."""
        rate = self._learning_rate
        if isinstance(rate, LearningRateSchedule):
            rate = serialize(rate)
        elif isinstance(rate, Variable):
            rate = float(value_of(rate))
        else:
            raise ValueError("a learning rate given as a function cannot be written into a "
                             "config: give a LearningRateSchedule from "
                             "tracer.optimizers.schedules instead")
        return {"name": self.name, "learning_rate": rate, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = deserialize(config["learning_rate"])
        return cls(**config)

    # --- weight decay -------------------------------------------------------------

    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Leave these variables (or those whose names contain one of ``var_names``) out
        of the weight decay."""
        self._excluded_serials |= {v._serial for v in var_list or ()}
        self._excluded_names = tuple(var_names or ())

    def _decays(self, variable):
        return (self.weight_decay is not None
                and variable._serial not in self._excluded_serials
                and not any(n in (variable.name or "") for n in self._excluded_names))

    # --- the update ---------------------------------------------------------------

    def apply_gradients(self, grads_and_vars):
        """Update each variable with its gradient, in place (``assign``); a ``None``
        gradient skips its variable. Returns ``iterations``."""
        pairs = [(g, _checked_variable(v)) for g, v in grads_and_vars]
        self._warn_of_missing([v for g, v in pairs if g is None])
        pairs = [(_checked_gradient(g, v), v) for g, v in pairs if g is not None]
        if not pairs:
            return self._iterations
        grads = clipped([g for g, _ in pairs], self.clipnorm, self.global_clipnorm,
                        self.clipvalue)
        rate = self._current_learning_rate()
        for _, variable in pairs:
            if self._decays(variable):
                value = current_value(variable)
                variable.assign(value - value * _cast(self.weight_decay, value)
                                * _cast(rate, value))
        for gradient, (_, variable) in zip(grads, pairs):
            self.update_step(gradient, variable, rate)
        self._iterations.assign_add(np.int64(1))
        return self._iterations

    def update_step(self, gradient, variable, learning_rate):
        """Update ``variable`` from its ``gradient`` (an array of its shape and dtype; a tensor
        of the trace in graph mode), reading values with ``current_value``."""
        raise NotImplementedError

    def minimize(self, loss, var_list, tape=None):
        """One update that lowers ``loss``: a callable (called under a new tape) or a
        value recorded on ``tape``. ``var_list`` may be a callable giving the variables."""
        from tracer.tape import GradientTape
        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif tape is None:
            raise ValueError("`tape` is required when a loss value, not a callable, is "
                             "passed to minimize: record it under a tracer.GradientTape and "
                             "pass that tape")
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def _warn_of_missing(self, variables):
        new = [v for v in variables if v._serial not in self._warned]
        if new:
            self._warned |= {v._serial for v in new}
            names = [v.name or f"<unnamed variable of shape {v.shape}>" for v in new]
            warnings.warn(f"Gradients do not exist for variables {names} when minimizing "
                          "the loss: they are left as they are. Check that the loss "
                          "depends on them.", stacklevel=3)

    # --- reading and writing values, off the tapes ---------------------------------

    def slot(self, variable, name):
        """``variable``'s slot ``name`` (``"momentum"``, ``"velocity"``, ...)."""
        return self._state(variable)[name]

    def _get(self, variable, name):
        return current_value(self.slot(variable, name))

    def _set(self, variable, name, value):
        self.slot(variable, name).assign(value)


def current_value(variable):
    """A variable's value for an update: its array, read off every tape; in a function
    traced for graph mode, a read the trace records."""
    return variable._read() if graph_recording() is not None else value_of(variable)


def _held_learning_rate(value):
    if isinstance(value, LearningRateSchedule) or callable(value):
        return value
    return Variable(np.float64(value), trainable=False, name="learning_rate")


def _checked_variable(variable):
    if not isinstance(variable, Variable):
        raise TypeError(f"optimizers update tracer.Variable objects; got "
                        f"{type(variable).__name__}. Make the parameter a tracer.Variable")
    return variable


def _checked_gradient(gradient, variable):
    """The gradient as a numpy array (a tensor of the trace in graph mode), which must
    match its variable's shape and dtype."""
    if isinstance(gradient, Tensor) and graph_recording() is not None:
        array = gradient
    else:
        array = np.asarray(value_of(gradient))
    if concrete_shape(array) != concrete_shape(variable) or array.dtype != variable.dtype:
        raise ValueError(
            f"the gradient for variable {variable.name or '(unnamed)'} is "
            f"{array.dtype}{list(concrete_shape(array))}, but the variable is "
            f"{variable.dtype}{list(concrete_shape(variable))}: pass each variable's own gradient "
            "(tape.gradient(loss, variables)), in the variable's dtype")
    return array


def _cast(number, like):
    """A hyperparameter as a scalar of ``like``'s dtype, as Keras casts them (a tensor of
    the trace, such as a scheduled rate in graph mode, by ``astype``)."""
    if isinstance(number, Tensor):
        return number if number.dtype == like.dtype else number.astype(like.dtype)
    return np.asarray(number, dtype=like.dtype)
