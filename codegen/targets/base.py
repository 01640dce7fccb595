"""What a code generation target is: the questions the emitter asks it.

A target is what a generated module is written for (numpy, the array API
standard, ...).  The emitter lays a graph out once and asks its target, for
each node, how the node's primitive is spelled and which helpers that
spelling calls; the module around the function asks it for the check of the
arguments at the door and for the module's text.  A target is one object;
the emitter holds no list of targets.
"""

from codegen.sizes import code_name
from ir.primitive import PRIMITIVES, Unspellable
from ir.size_questions import spelled_as


def primitive_of(node):
    """The primitive op ``node`` applies: the one place ``codegen`` reads a node's
    primitive off its name (a graph's node keeps the name, which JSON can hold)."""
    return PRIMITIVES[node.op]


class Target:
    """A target: ``name`` is what ``target=`` says; ``general_check`` whether its
    ``_check_inputs`` is the one that binds sizes even where none is symbolic."""

    name = None
    general_check = False

    def template(self, primitive, params, shapes):
        """The expression template of ``primitive`` applied with ``params`` to arguments
        of ``shapes``: ``{0}``, ``{1}``... for the arguments.  Raises ``Unspellable``."""
        raise NotImplementedError

    def spelling(self, node, graph):
        """The template of op ``node``, with every size in its params and shapes written
        as the code that computes it (``3*n_batch``)."""
        with spelled_as(code_name):
            return self.template(primitive_of(node), node.params,
                                 [graph[i].shape for i in node.inputs])

    def helpers(self, node, template):
        """The helpers (``{name: source}``) a node's ``template`` calls, and every import
        its primitive needs."""
        return {name: text for name, text in primitive_of(node).helpers.items()
                if name in template or text.startswith(("import ", "from "))}

    def module(self, name, docstring, parameters, layout, result, guards):
        """The text of the module whose function ``name`` takes ``parameters``, runs
        ``layout`` and returns ``result``; ``guards`` are what the trace assumed of
        symbolic sizes."""
        raise NotImplementedError


__all__ = ["Target", "Unspellable", "code_name", "primitive_of"]
