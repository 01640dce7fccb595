"""Lay out a graph as the body of one straight-line Python function.

Every op node the outputs need becomes part of a statement: nodes used once,
within the same user line (or the same adjoint group), are folded into their
user's expression, so ``z = x @ W + b`` stays one line; the rest get a name
and a statement of their own.  Statements come in graph order under a
comment naming the user's line they compute or differentiate, and each
value is deleted right after its last use so peak memory stays low.
Expressions are Python ASTs built from each primitive's spelling and
written out with astor.
"""

import ast
import copy
import functools
import re
from dataclasses import dataclass, field

import astor
import numpy as np

from codegen.literals import literal_ast
from codegen.names import Namer, assignment_target, identifier, op_name
from ir.primitive import PRIMITIVES

INLINE_CONSTANT_SIZE = 16
"""Captured arrays up to this many elements are written inline; larger ones are parameters."""


class CodegenError(ValueError):
    """A graph holds something that cannot be written as standalone numpy code."""


@dataclass
class Layout:
    """A function body laid out: its parameters, statement lines and the helpers they call."""

    params: list
    lines: list
    helpers: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)

    def expression(self, node_id, graph):
        """Source of an output: its name, or a literal for a constant."""
        if node_id is None:
            return ast.Constant(None)
        if node_id in self.names:
            return ast.Name(self.names[node_id])
        return literal_ast(graph[node_id].value)


def lay_out(graph, seeds=()):
    """The ``Layout`` of ``graph`` computing ``graph.outputs``.

    ``seeds`` are input node ids that come last among the parameters, in order.
    """
    return _Emitter(graph, tuple(seeds)).run()


class _Emitter:
    def __init__(self, graph, seeds):
        self.graph = graph
        self.seeds = seeds
        self.needed = _needed(graph)
        self.uses = _use_counts(graph, self.needed)
        self.outputs = {o for o in graph.outputs if o is not None}
        self.names = {}
        self.base_names = {}
        self.namer = Namer()
        self.helpers = {}

    def run(self):
        params = self._name_parameters()
        self._name_values()
        statements = [(node, *self._statement(node)) for node in self.graph
                      if node.id in self.needed and node.kind == "op" and node.id in self.names]
        last_use = {}
        for index, (_, _, refs) in enumerate(statements):
            for ref in refs:
                last_use[ref] = index
        lines = []
        group = None
        for index, (node, statement, _) in enumerate(statements):
            node_group = self._group(node)
            if node_group != group:
                if group is not None and group[0] != node_group[0]:
                    lines.append("")
                comment = self._comment(node)
                if comment:
                    lines.append(comment)
                group = node_group
            lines.append(astor.to_source(statement).rstrip())
            dead = [ref for ref, last in last_use.items()
                    if last == index and self._deletable(ref)]
            if dead:
                lines.append("del " + ", ".join(self.names[ref] for ref in sorted(dead)))
        return Layout(params, lines, self.helpers, self.names)

    # --- names -------------------------------------------------------------------

    def _name_parameters(self):
        leaves = [n for n in self.graph if n.id in self.needed and n.kind != "op"
                  and not self._inline_constant(n)]
        for k, seed in enumerate(self.seeds):
            self.names[seed] = self.namer.claim("seed" if k == 0 else f"seed_{k}")
        ordered = [n for n in leaves if n.id not in self.seeds]
        fallback = {"input": "x", "variable": "v", "constant": "data"}
        for node in ordered:
            self.names[node.id] = self.namer.claim(identifier(node.name, fallback[node.kind]))
        params = ordered + [self.graph[s] for s in self.seeds if s in self.needed]
        for node in params:
            self.base_names[node.id] = self.names[node.id]
        return [(self.names[n.id], n) for n in params]

    def _name_values(self):
        last_on_line = {}
        for node in self.graph:
            if node.kind == "op" and "adjoint_of" not in node.meta and node.source is not None:
                last_on_line[(node.source.file, node.source.line)] = node.id
        for node in self.graph:
            if node.kind != "op" or node.id not in self.needed:
                continue
            base, named = self._base_name(node, last_on_line)
            self.base_names[node.id] = base
            if named or not self._inlinable(node):
                self.names[node.id] = self.namer.claim(base)

    def _base_name(self, node, last_on_line):
        """A node's name, and whether that name deserves a statement of its own."""
        of = node.meta.get("cotangent_of")
        if of is not None:
            return f"d_{self.base_names.get(of) or self._forward_name(of)}", True
        if "adjoint_of" not in node.meta and node.source is not None:
            place = (node.source.file, node.source.line)
            target = assignment_target(node.source.text)
            if target and last_on_line.get(place) == node.id:
                return identifier(target, op_name(node.op)), True
        return op_name(node.op), False

    def _forward_name(self, node_id):
        node = self.graph[node_id]
        return identifier(node.name, op_name(node.op))

    def _inlinable(self, node):
        if node.id in self.outputs or self.uses.get(node.id, 0) != 1:
            return False
        user = self._single_user[node.id]
        return self._group(user) == self._group(node)

    @functools.cached_property
    def _single_user(self):
        users = {}
        for node in self.graph:
            if node.id in self.needed and node.kind == "op":
                for i in node.inputs:
                    users[i] = node
        return users

    def _deletable(self, node_id):
        node = self.graph[node_id]
        return node.kind == "op" and node_id not in self.outputs

    def _inline_constant(self, node):
        if node.kind != "constant":
            return False
        value = np.asarray(node.value)
        return (value.size <= INLINE_CONSTANT_SIZE or "adjoint_of" in node.meta
                or _uniform(value))

    # --- statements --------------------------------------------------------------

    def _statement(self, node):
        refs = set()
        value = self._expression(node, refs, top=True)
        target = ast.Name(self.names[node.id], ctx=ast.Store())
        return ast.Assign(targets=[target], value=value, lineno=0), refs

    def _expression(self, node, refs, top=False):
        if not top and node.id in self.names:
            refs.add(node.id)
            return ast.Name(self.names[node.id])
        if node.kind != "op":
            return literal_ast(node.value)
        prim = PRIMITIVES[node.op]
        try:
            template = prim.spelling(node.params, [self.graph[i].shape for i in node.inputs])
        except NotImplementedError:
            raise CodegenError(self._unspellable(node)) from None
        self.helpers.update(prim.helpers)
        args = [self._expression(self.graph[i], refs) for i in node.inputs]
        return _fill(template, args)

    def _unspellable(self, node):
        where = f" recorded at {node.source}" if node.source else ""
        if node.op == "custom_gradient":
            return (f"cannot generate code for custom_gradient function "
                    f"{node.params.get('function')!r}{where}: its gradient is Python code that "
                    "tapegen cannot see into. Write the function with numpy operations tapegen "
                    "differentiates, or differentiate it eagerly with tape.gradient.")
        return f"primitive {node.op!r}{where} has no source spelling"

    # --- grouping ------------------------------------------------------------------

    def _group(self, node):
        of = node.meta.get("adjoint_of")
        if of is not None:
            source = self.graph[of].source
            return ("adjoint", _place(source) if source else of)
        return ("forward", _place(node.source) if node.source else None)

    def _comment(self, node):
        of = node.meta.get("adjoint_of")
        source = self.graph[of].source if of is not None else node.source
        if source is None:
            return None
        text = source.text
        head = f"# adjoint of {source}" if of is not None else f"# {source}"
        return f"{head}  {text}" if text else head


def _place(source):
    return source.file, source.line


def _needed(graph):
    needed = set()
    stack = [o for o in graph.outputs if o is not None]
    while stack:
        node_id = stack.pop()
        if node_id in needed:
            continue
        needed.add(node_id)
        stack.extend(graph[node_id].inputs)
    return needed


def _use_counts(graph, needed):
    counts = {}
    for node in graph:
        if node.id in needed and node.kind == "op":
            for i in node.inputs:
                counts[i] = counts.get(i, 0) + 1
    for o in graph.outputs:
        if o is not None:
            counts[o] = counts.get(o, 0) + 1
    return counts


def _uniform(value):
    return value.size > 0 and bool(np.all(value == value.flat[0]))


_SLOT = re.compile(r"\{(\d+)\}")


@functools.lru_cache(maxsize=None)
def _template_tree(template):
    return ast.parse(_SLOT.sub(r"__slot_\1__", template), mode="eval").body


class _FillSlots(ast.NodeTransformer):
    def __init__(self, args):
        self.args = args

    def visit_Name(self, node):
        match = re.fullmatch(r"__slot_(\d+)__", node.id)
        return self.args[int(match.group(1))] if match else node


def _fill(template, args):
    """The expression ``template`` with argument expressions in its ``{k}`` slots."""
    return _FillSlots(args).visit(copy.deepcopy(_template_tree(template)))
