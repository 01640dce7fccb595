"""tapegen's code generator: gradient graphs as standalone, readable numpy modules.

    import codegen
    source = codegen.gradient_source(tape, loss, [W, b], name="loss_grad", with_value=True)
    module = codegen.load(source)
    loss, (d_W, d_b) = module.loss_grad(*arguments)
"""

from codegen.emit import CodegenError
from codegen.function_module import function_source
from codegen.module import (gradient_source, hessian_source, hvp_source, jacobian_source, load,
                            write)

__all__ = ["CodegenError", "function_source", "gradient_source", "hessian_source", "hvp_source",
           "jacobian_source", "load", "write"]


def __dir__():
    """The public API: what ``dir(codegen)`` shows, without the internal submodules."""
    return __all__
