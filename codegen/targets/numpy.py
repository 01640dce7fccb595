"""The numpy target, the default: a module that imports numpy (and what a primitive's
helpers import, such as ``scipy.special``) and spells each primitive as its numpy
spelling says (``Primitive.spelling``)."""

from codegen.module_text import module_text
from codegen.targets.base import Target


class NumpyTarget(Target):
    """Modules of plain numpy."""

    name = "numpy"

    def template(self, primitive, params, shapes):
        return primitive.spelling(params, shapes)

    def module(self, name, docstring, parameters, layout, result, guards):
        return module_text(name, docstring, parameters, layout, result, guards,
                           door=self.door)


NUMPY = NumpyTarget()
