"""Learning rates that change with the step, as Keras 3's ``keras.optimizers.schedules``:
each is called with the optimizer's step count (its updates so far) and gives the rate.

They compute with numpy's functions, not Python's branches, so the step may also be a
tensor of a function traced for graph mode: the schedule is then part of the graph.
"""

import numpy as np


class LearningRateSchedule:
    """A learning rate as a function of the step; ``get_config`` gives its arguments."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class _DecayBySteps(LearningRateSchedule):
    """A rate that decays with ``step / decay_steps`` (an integer with ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        if decay_steps <= 0:
            raise ValueError(f"decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name or type(self).__name__

    def __call__(self, step):
        progress = step / self.decay_steps
        return self._decayed(np.floor(progress) if self.staircase else progress)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_DecayBySteps):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``, the exponent an integer
    with ``staircase``."""

    def _decayed(self, progress):
        return self.initial_learning_rate * self.decay_rate ** progress


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` up to ``boundaries[0]`` (inclusive), ``values[1]`` up to
    ``boundaries[1]``, ..., and ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"values must have one more element than boundaries: "
                             f"{len(values)} values for {len(boundaries)} boundaries")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        rate = np.float64(self.values[-1])
        for boundary, value in reversed(list(zip(self.boundaries, self.values))):
            rate = np.where(step <= boundary, np.float64(value), rate)
        return rate

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """A linear warm-up from ``initial_learning_rate`` to ``warmup_target`` over
    ``warmup_steps`` (when a target is given), then a cosine from there down to ``alpha``
    times it over ``decay_steps``, constant after."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        if decay_steps <= 0:
            raise ValueError(f"decay_steps must be > 0, got {decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decayed(self, step, start):
        cosine = 0.5 * (1.0 + np.cos(np.pi * step / self.decay_steps))
        return start * ((1 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        if self.warmup_target is None:
            return self._decayed(np.minimum(step, self.decay_steps), self.initial_learning_rate)
        step = np.minimum(step, self.decay_steps + self.warmup_steps)
        decayed = self._decayed(step - self.warmup_steps, self.warmup_target)
        if not self.warmup_steps:
            return decayed
        rise = self.warmup_target - self.initial_learning_rate
        warming = rise * step / self.warmup_steps + self.initial_learning_rate
        return np.where(step < self.warmup_steps, warming, decayed)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class InverseTimeDecay(_DecayBySteps):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``, the ratio an
    integer with ``staircase``."""

    def _decayed(self, progress):
        return self.initial_learning_rate / (1 + self.decay_rate * progress)


SCHEDULES = {cls.__name__: cls for cls in (ExponentialDecay, PiecewiseConstantDecay,
                                           CosineDecay, InverseTimeDecay)}


def serialize(schedule):
    """A schedule as plain data: ``{"class_name": ..., "config": {...}}``."""
    return {"class_name": type(schedule).__name__, "config": schedule.get_config()}


def deserialize(config):
    """The schedule ``serialize`` wrote."""
    name = config.get("class_name")
    if name not in SCHEDULES:
        raise ValueError(f"unknown learning rate schedule {name!r}; known: "
                         f"{', '.join(sorted(SCHEDULES))}")
    return SCHEDULES[name].from_config(config["config"])
