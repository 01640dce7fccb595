"""``Module``: TensorFlow's ``tf.Module``, a named container whose variables are found.

Code that trains a model wants "all of its variables" without listing them by hand.
A module finds them by walking its attributes, as ``tf.Module`` does: attribute names
in sorted order, into lists, tuples and dicts (dict keys sorted), every variable and
every module met once; direct attributes first, then each submodule's own, so the
order is the same at every run.
"""

import re

from ir.structure import keys_in_order
from tracer.variable import Variable


class Module:
    """A named container of variables and other modules (``tf.Module``).

    ``variables``, ``trainable_variables`` and ``non_trainable_variables`` hold every
    variable reachable from the module's attributes; ``submodules`` every module.
    """

    def __init__(self, name=None):
        if name is not None and not re.fullmatch(r"[A-Za-z_][\w.-]*", name):
            raise ValueError(f"{name!r} is not a valid module name: use letters, digits, "
                             "'_', '.' and '-', starting with a letter or '_'")
        self._name = name or _snake_case(type(self).__name__)

    @property
    def name(self):
        return self._name

    @property
    def variables(self):
        """Every variable of the module and its submodules, each once."""
        return tuple(_walk(self, lambda value: isinstance(value, Variable)))

    @property
    def trainable_variables(self):
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self):
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self):
        """Every module reachable from this one's attributes, itself excluded."""
        return tuple(_walk(self, lambda value: isinstance(value, Module)))

    def _tracked_attributes(self):
        """The attributes walked for variables and modules, in the order walked."""
        return [value for key, value in sorted(vars(self).items()) if key != "_name"]

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


def _snake_case(name):
    """Keras' ``to_snake_case``: ``SimpleRNN`` -> ``simple_rnn``, ``Conv2D`` -> ``conv2d``."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower().lstrip("_") or "module"


def _walk(module, wanted, seen=None):
    """The values ``wanted`` picks among everything reachable from ``module``: its own
    attributes first, then each submodule's, walked the same way (``tf.Module``'s order)."""
    seen = {id(module)} if seen is None else seen
    submodules = []
    for value in _leaves(module._tracked_attributes()):
        if id(value) in seen:
            continue
        seen.add(id(value))
        if wanted(value):
            yield value
        if isinstance(value, Module):
            submodules.append(value)
    for submodule in submodules:
        yield from _walk(submodule, wanted, seen)


def _leaves(values):
    """The variables and modules inside ``values``, through lists, tuples and dicts."""
    for value in values:
        if isinstance(value, (Variable, Module)):
            yield value
        elif isinstance(value, dict):
            yield from _leaves(value[k] for k in keys_in_order(value))
        elif isinstance(value, (list, tuple)):
            yield from _leaves(value)
