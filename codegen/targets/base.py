"""What a code generation target is: the questions the emitter asks it.

A target is what a generated module is written for (numpy, the array API
standard, ...).  The emitter lays a graph out once and asks its target, for
each node, how the node's primitive is spelled and which helpers that
spelling calls, and how each constant it reads or returns is written; the
module around the function asks it for the check of the arguments at the door
and for the module's text.  A target is one object;
the emitter holds no list of targets.
"""

import ast
from dataclasses import dataclass

from codegen.literals import literal_source
from codegen.sizes import code_name
from codegen.targets.blocks import NUMPY_BLOCKS
from ir.primitive import Unspellable
from ir.sizes.questions import spelled_as


def primitive_of(node):
    """The primitive op ``node`` applies, which the node holds (its ``op`` is the name)."""
    return node.primitive


@dataclass(frozen=True)
class InPlace:
    """A stack written other than by its spelling: ``after`` maps the name of each value
    it stacks to the lines written after that value's statement, ``instead`` holds
    the lines written in the stack's place, and ``reads`` the module's names they read
    beside the values (the device, a library)."""

    after: dict
    instead: list
    reads: frozenset = frozenset()


class Target:
    """A target: ``name`` is what ``target=`` says; ``door`` (``codegen.input_check.Door``)
    its own ``_check_inputs``, which binds sizes even where none is symbolic, or ``None``
    for numpy's."""

    name = None
    door = None
    blocks = NUMPY_BLOCKS
    """How it writes the statements of loops and branches (``codegen.targets.blocks``)."""
    copied = "np.copy({0})"
    """How a function returns a parameter (``{0}``): as a copy of its own."""
    as_array = "np.asarray({0})"
    """How a function returns a 0-d literal (``{0}``): as an array."""

    @property
    def laid_out_as(self):
        """The target whose spelling measures the lines of a layout, so that the
        statements are the same for every target: by default this one."""
        return self

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

    def literal(self, value):
        """Source of constant ``value``: a scalar where it is read, or an array made
        afresh where a block hands it back."""
        return literal_source(value)

    def array_read(self, name, value):
        """Source of the module's constant array ``value`` where the function reads it by
        its ``name``."""
        return name

    def helpers(self, node, template):
        """The helpers (``{name: source}``) a node's ``template`` calls, and every import
        its primitive needs."""
        called = template if isinstance(template, str) else ast.unparse(template)
        return {name: text for name, text in primitive_of(node).helpers.items()
                if name in called or text.startswith(("import ", "from "))}

    def stack_in_place(self, name, values, first):
        """How the stack ``name`` of the named ``values`` (each with a statement of its own,
        ``first`` made first) is written, as an ``InPlace``; ``None`` (by default) for
        its spelling's one statement."""
        return None

    def writes_into(self, node):
        """Whether op ``node``'s value can be written into an array the caller passes
        (``out``); by default, never."""
        return False

    def refusal(self, node, graph, refusal):
        """The message refusing op ``node`` of ``graph``, which its spelling refused
        (``refusal``, an ``Unspellable``), with the user's line it records."""
        where = f" recorded at {node.source}" if node.source else ""
        return f"cannot generate code for {refusal.what}{where}: {refusal.why}"

    def module(self, name, docstring, parameters, layout, result, guards, written=()):
        """The text of the module whose function ``name`` takes ``parameters``, runs
        ``layout`` and returns ``result``; ``guards`` are what the trace assumed of
        symbolic sizes; ``written`` names the new values it writes into the arrays a caller
        passes as ``out`` (where ``writes_into`` allowed it)."""
        raise NotImplementedError


__all__ = ["InPlace", "Target", "Unspellable", "code_name", "primitive_of"]
