"""Keras 3's models on tapegen: ``Model`` (subclassing), ``Sequential``, and the training
loop they share (``compile``, ``fit``, ``evaluate``, ``predict``)."""

from tracer.models.model import Model
from tracer.models.sequential import Input, Sequential

__all__ = ["Input", "Model", "Sequential"]
