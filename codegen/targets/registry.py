"""The targets generated modules are written for, by the name ``target=`` gives them.

To add one, write a ``Target`` (``codegen.targets.base``) in a module of this
package and list it here.
"""

from codegen.targets.array_api import ARRAY_API
from codegen.targets.numpy import NUMPY

TARGETS = {target.name: target for target in (NUMPY, ARRAY_API)}
"""Every target, by name."""


def target_named(name):
    """The target called ``name``; a ValueError naming the targets for any other."""
    target = TARGETS.get(name) if isinstance(name, str) else None
    if target is None:
        raise ValueError(f"target={name!r}: generated modules are written for "
                         f"{' or '.join(map(repr, TARGETS))}")
    return target
