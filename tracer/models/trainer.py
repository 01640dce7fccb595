"""Keras 3's training loop: ``compile``, ``fit``, ``evaluate``, ``predict`` and the steps
they run, over tapegen's tape and optimizers.

A step is the code of Keras' guide "Customizing what happens in fit()": a
``GradientTape`` around ``self(x, training=True)``, ``compute_loss``,
``tape.gradient``, ``optimizer.apply_gradients``, then the metrics.  Unless
``run_eagerly``, each kind of step runs through ``tracer.function`` with
``reduce_retracing``: it is traced once and runs as one generated module, a
short last batch included.  A subclass overrides ``train_step``/``test_step``
as in that guide and its steps are compiled the same way.
"""

import numpy as np

from tracer.callbacks.callback_list import CallbackList
from tracer.losses.lookup import get as loss_named
from tracer.losses.lookup import resolve as resolve_loss
from tracer.metrics.lookup import get as metric_named
from tracer.metrics.lookup import resolve as resolve_metric
from tracer.metrics.reduction import Mean
from tracer.optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from ir.structure import flatten
from tracer.core import Tensor
from tracer.graph_mode.function import function
from tracer.models.data import batches, split_off_validation, unpack
from tracer.tape import GradientTape

OPTIMIZERS = {"adam": Adam, "adamw": AdamW, "sgd": SGD, "rmsprop": RMSprop,
              "adagrad": Adagrad}


class Trainer:
    """What ``compile`` sets up and what ``fit``, ``evaluate`` and ``predict`` run."""

    compiled = False

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                run_eagerly=False, jit_compile=False):
        """Choose the optimizer (an instance or a name), the loss (an instance, a function
        or a name) and the metrics (instances or names; ``"accuracy"`` resolved from the
        loss, as Keras resolves it), and how steps run."""
        if loss_weights is not None:
            raise NotImplementedError("loss_weights (for models of several outputs) is not "
                                      "supported: weight the losses in compute_loss")
        self.optimizer = _optimizer(optimizer)
        self.loss = loss
        for metric in metrics or []:  # an unknown name is refused now, before any step
            if not (isinstance(metric, str) and metric.lower() in ("accuracy", "acc")):
                metric_named(metric)
        if loss is not None and not (isinstance(loss, str)
                                     and loss.lower() in ("crossentropy", "ce")):
            loss_named(loss)
        self._metric_identifiers = list(metrics or [])
        self._compiled_loss = None
        self._compiled_metrics = None
        self._loss_tracker = Mean(name="loss")
        self.run_eagerly = run_eagerly
        self.jit_compile = jit_compile
        self.stop_training = False
        self._steps = {}
        self.compiled = True

    # --- the steps (override these as in Keras' guide) -------------------------------

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of ``y`` and ``y_pred``, plus the model's ``losses``
        (regularization penalties, ``add_loss``)."""
        total = None
        if self.loss is not None and y is not None:
            self._compile_for(y, y_pred)
            total = self._compiled_loss(y, y_pred, sample_weight=sample_weight)
        for extra in self.losses:
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("no loss to minimize: compile the model with a loss, add losses "
                             "with add_loss, or override compute_loss or train_step")
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics with this batch; return every metric's result."""
        self._compile_for(y, y_pred)
        for metric in self._compiled_metrics:
            metric.update_state(y, y_pred, sample_weight=sample_weight)
        return self.get_metrics_result()

    def _compile_for(self, y, y_pred):
        """Make the compiled loss and metrics, once: what ``"crossentropy"`` and
        ``"accuracy"`` mean depends on the shapes of the labels and predictions."""
        if self.loss is not None and self._compiled_loss is None:
            self._compiled_loss = resolve_loss(self.loss, y, y_pred)
        if self._compiled_metrics is None:
            self._compiled_metrics = [resolve_metric(m, y, y_pred)
                                      for m in self._metric_identifiers]

    def _prepare(self, batch):
        """Before the first step: build the model and the compiled metrics from the first
        batch, as Keras builds them before its first step, so that ``metrics`` lists them
        all for a ``train_step`` of one's own."""
        if self._compiled_metrics is None:
            x, y, _ = unpack(batch)
            if y is not None:
                self._compile_for(y, self(x, training=False))

    def get_metrics_result(self):
        return {metric.name: metric.result() for metric in self.metrics}

    def train_step(self, data):
        x, y, sample_weight = unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        self._loss_tracker.update_state(loss, sample_weight=_rows(x, like=loss))
        variables = self.trainable_variables
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        x, y, sample_weight = unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight,
                                 training=False)
        self._loss_tracker.update_state(loss, sample_weight=_rows(x, like=loss))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack(data)
        return self(x, training=False)

    @property
    def metrics(self):
        """The metrics ``fit`` and ``evaluate`` report and reset at each epoch: the loss's
        mean, then the compiled ones."""
        if not self.compiled:
            return []
        return [self._loss_tracker] + list(self._compiled_metrics or [])

    def reset_metrics(self):
        for metric in self.metrics:
            metric.reset_state()

    # --- running steps ----------------------------------------------------------------

    def _step(self, kind):
        """The step of ``kind`` (``"train"``, ``"test"``, ``"predict"``), compiled unless
        ``run_eagerly``."""
        self._require_compiled(kind)
        step = getattr(self, f"{kind}_step")
        if self.run_eagerly:
            return step
        compiled = self._steps.get(kind)
        if compiled is None:
            compiled = self._steps[kind] = function(step, reduce_retracing=True,
                                                    jit_compile=self.jit_compile or None)
        return compiled

    def _require_compiled(self, kind):
        if kind != "predict" and not self.compiled:
            raise RuntimeError(f"the model must be compiled before {kind}ing: call "
                               "model.compile(optimizer, loss, metrics) first")

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, initial_epoch=0,
            sample_weight=None):
        """Train for ``epochs`` epochs; returns the ``History`` (``history.history``: each
        metric's value per epoch, ``val_`` ones for validation data)."""
        self._require_compiled("train")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = split_off_validation(
                x, y, sample_weight, validation_split)
        elif not 0 <= validation_split < 1:
            raise ValueError(f"validation_split must be in [0, 1), not {validation_split!r}")
        data = batches(x, y, sample_weight, batch_size, shuffle)
        validation = None
        if validation_data is not None:
            validation = (batches(*unpack(tuple(validation_data)), batch_size=batch_size)
                          if isinstance(validation_data, (tuple, list))
                          else batches(validation_data))
        step = self._step("train")
        callbacks = CallbackList(
            callbacks, add_history=True, add_progbar=_verbosity(verbose) != 0, model=self,
            verbose=_verbosity(verbose), epochs=epochs, steps=data.steps)
        self.stop_training = False
        callbacks.on_train_begin()
        logs, epoch_logs = {}, {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            for index, batch in enumerate(data):
                self._prepare(batch)
                callbacks.on_train_batch_begin(index)
                logs = _as_floats(step(batch))
                callbacks.on_train_batch_end(index, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(logs)
            if validation is not None:
                results = self._evaluate(validation, callbacks, verbose=0)
                epoch_logs.update({f"val_{k}": v for k, v in results.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(epoch_logs)
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 callbacks=None, return_dict=False):
        """The loss and metrics over the data: a list in ``metrics_names`` order, or with
        ``return_dict`` a dict."""
        self._require_compiled("test")
        results = self._evaluate(batches(x, y, sample_weight, batch_size), callbacks,
                                 _verbosity(verbose))
        return results if return_dict else _as_list(results)

    def _evaluate(self, data, callbacks, verbose):
        step = self._step("test")
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(
                callbacks, add_progbar=verbose != 0, model=self, verbose=verbose, epochs=1,
                steps=data.steps)
        self.reset_metrics()
        callbacks.on_test_begin()
        logs = {}
        for index, batch in enumerate(data):
            self._prepare(batch)
            callbacks.on_test_batch_begin(index)
            logs = _as_floats(step(batch))
            callbacks.on_test_batch_end(index, logs)
        callbacks.on_test_end(logs)
        return logs

    def predict(self, x, batch_size=None, verbose="auto", callbacks=None):
        """The model's outputs for every row of ``x``, batch by batch, joined."""
        step = self._step("predict")
        data = batches(x, batch_size=batch_size)
        callbacks = CallbackList(
            callbacks, add_progbar=_verbosity(verbose) != 0, model=self,
            verbose=_verbosity(verbose), epochs=1, steps=data.steps)
        callbacks.on_predict_begin()
        outputs = []
        for index, batch in enumerate(data):
            callbacks.on_predict_batch_begin(index)
            outputs.append(_as_arrays(step(batch)))
            callbacks.on_predict_batch_end(index, {"outputs": outputs[-1]})
        callbacks.on_predict_end()
        return _joined(outputs)

    def train_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One training step on one batch, the metrics reset first; the metrics as
        ``evaluate`` returns them."""
        self._prepare((x, y, sample_weight))
        self.reset_metrics()
        logs = _as_floats(self._step("train")((x, y, sample_weight)))
        return logs if return_dict else _as_list(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._prepare((x, y, sample_weight))
        self.reset_metrics()
        logs = _as_floats(self._step("test")((x, y, sample_weight)))
        return logs if return_dict else _as_list(logs)

    def predict_on_batch(self, x):
        return _as_arrays(self._step("predict")((x, None, None)))

    @property
    def metrics_names(self):
        return [metric.name for metric in self.metrics]


def _optimizer(optimizer):
    if isinstance(optimizer, Optimizer):
        return optimizer
    if isinstance(optimizer, str) and optimizer.lower() in OPTIMIZERS:
        return OPTIMIZERS[optimizer.lower()]()
    raise ValueError(f"unknown optimizer {optimizer!r}: give a tracer.optimizers instance "
                     f"or one of {', '.join(sorted(OPTIMIZERS))}")


def _verbosity(verbose):
    if verbose == "auto":
        return 1
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 'auto', 0, 1 or 2, not {verbose!r}")
    return verbose


def _rows(x, like):
    """The batch's number of rows, as an array like ``like`` (the loss): a number made of
    the size, not the size itself, so a step traced with a symbolic batch keeps it."""
    leaf = flatten(x)[0]
    return np.ones_like(like) * (leaf.shape[0] if hasattr(leaf, "shape") else len(leaf))


def _as_floats(logs):
    """A step's results as Python numbers (what callbacks and ``History`` hold)."""
    return {key: float(np.asarray(value._value if isinstance(value, Tensor) else value))
            for key, value in logs.items()}


def _as_arrays(outputs):
    if isinstance(outputs, (list, tuple)):
        return type(outputs)(_as_arrays(o) for o in outputs)
    if isinstance(outputs, dict):
        return {k: _as_arrays(v) for k, v in outputs.items()}
    return np.asarray(outputs._value if isinstance(outputs, Tensor) else outputs)


def _joined(outputs):
    first = outputs[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_joined([o[k] for o in outputs]) for k in range(len(first)))
    if isinstance(first, dict):
        return {k: _joined([o[k] for o in outputs]) for k in first}
    return np.concatenate(outputs, axis=0)


def _as_list(logs):
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
