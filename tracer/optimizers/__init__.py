"""Keras 3's optimizers for custom training loops over ``tracer.Variable``s:
``optimizer.apply_gradients(zip(grads, variables))`` after ``tape.gradient``, as in
TensorFlow's guide.  Names, arguments, defaults and update formulas are Keras 3's; the
updates run in numpy, off every tape."""

from tracer.optimizers import schedules
from tracer.optimizers.adagrad import Adagrad
from tracer.optimizers.adam import Adam, AdamW
from tracer.optimizers.base import Optimizer
from tracer.optimizers.rmsprop import RMSprop
from tracer.optimizers.sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "SGD", "schedules"]
