"""autograd's miscellany: ``flatten`` and ``const_graph``."""

from autograd.misc.flatten import flatten
from autograd.misc.tracers import const_graph

__all__ = ["const_graph", "flatten"]
