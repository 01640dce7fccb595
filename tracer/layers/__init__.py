"""Keras 3's layers over tapegen's variables: weights built from the first input's shape,
``call`` written in numpy, so tapes record it and ``tracer.function`` compiles it."""

from tracer.layers.base import Layer
from tracer.layers.core import Activation, Dense, Embedding, Flatten
from tracer.layers.dropout import Dropout
from tracer.layers.normalization import BatchNormalization, LayerNormalization
from tracer.layers.recurrent import SimpleRNN
from tracer.layers.seed_generator import SeedGenerator

__all__ = ["Activation", "BatchNormalization", "Dense", "Dropout", "Embedding", "Flatten",
           "Layer", "LayerNormalization", "SeedGenerator", "SimpleRNN"]
