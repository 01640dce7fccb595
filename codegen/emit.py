"""Lay out a graph as the body of one straight-line Python function.

Every op node the outputs need becomes part of a statement: nodes used once,
within the same user line (or the same adjoint group), are folded into their
user's expression, so ``z = x @ W + b`` stays one line; the rest get a name
and a statement of their own, as do the longest folded parts of a statement
that would not fit in ``WIDTH``.  Statements come in graph order under a
comment naming the user's line they compute or differentiate, and each
value is deleted right after its last use so peak memory stays low.
Expressions are primitives' spellings filled with their arguments
(``codegen.expressions``); a loop or branch is a block of statements
(``codegen.loop_blocks``).  A constant scalar is written where it is read;
a constant array is made once at module level and read by its name
(``codegen.literals.ModuleArrays``).
"""

import ast
import functools

import numpy as np

from codegen.expressions import (NAMED, Expression, call_lines, expression_text, free_names,
                                 weak_literals, with_names)
from codegen.input_check import CHECK_NAMES
from codegen.layout import Layout
from codegen.literals import ModuleArrays
from codegen.loop_blocks import Scope, loop_block, result_name
from codegen.names import op_name, value_name
from codegen.stacks import stacks_in_place
from codegen.targets.base import primitive_of
from ir.graph import bodies_of
from ir.names import RESERVED, Namer
from ir.primitive import Unspellable
from ir.optimize.passes import effects
from ir.optimize.sums import reader_counts


WIDTH = 88
"""Longest line generated code aims for (the comment lines are cut to it)."""

MAX_FOLDED_OPS = 8
"""Most ops folded into one expression: a longer chain on one user line is split into
statements, which keeps expressions shallow and each line readable."""


class CodegenError(ValueError):
    """A graph holds something that cannot be written as standalone numpy code."""


def lay_out(graph, taken, target, arrays=None):
    """The ``Layout`` of ``graph`` computing ``graph.outputs``, spelled for ``target``
    (``codegen.targets``).

    Leaves other than constants must carry ``meta["parameter"]``, the name the
    function body knows them by; ``taken`` holds every such name.  Constant
    scalars are written inline, constant arrays named in ``arrays``, the
    ``ModuleArrays`` of the function (a new one when none is given; a loop's body
    is laid out with its function's).
    """
    if arrays is None:
        arrays = ModuleArrays(taken=CHECK_NAMES)
    return _Emitter(graph, taken, arrays, target).run()


def unspellable(node, graph, target):
    """Why op ``node`` of ``graph`` cannot be written as source for ``target``, or ``None``
    when it can: the primitive's spelling says what and why, and this adds the user's
    line."""
    if node.op == "result":
        return None
    if _is_block(node):
        for _, body in bodies_of(node):
            for inner in body.graph:
                reason = (unspellable(inner, body.graph, target) if inner.kind == "op"
                          else None)
                if reason is not None:
                    return reason
        return None
    try:
        target.spelling(node, graph)
    except Unspellable as refusal:
        return target.refusal(node, graph, refusal)
    return None


class _Emitter:
    """One layout: which values get statements, their names and expressions, and where
    each is deleted."""

    def __init__(self, graph, taken, arrays, target):
        self.graph = graph
        self.target = target
        self.arrays = arrays
        self.effects = set(effects(graph))
        self.needed = graph.upstream(list(graph.outputs) + list(self.effects))
        self.uses = reader_counts(graph, self.needed)
        self.outputs = {o for o in graph.outputs if o is not None}
        self.names = {}
        self.base_names = {}
        self.statements = set()
        self.expressions = {}
        self.measured = self.expressions if target.laid_out_as is target else {}
        self.reads = {}
        self.sizes = {}
        self.texts = {}
        self.free = set()
        self.block_notes = {}
        self.namer = Namer(RESERVED | set(taken))
        self.taken = set(taken)
        self.helpers = {}

    def run(self):
        order = [node for node in self.graph
                 if node.id in self.needed and node.kind != "constant"]
        for node in order:
            self._build(node)
        # Names are handed out once every statement is known, in graph order, so
        # they number up as the code reads; expressions hold placeholders for them.
        for node in order:
            if (node.kind == "op" and node.id in self.statements
                    and self.base_names[node.id] is not None):
                self.names[node.id] = self.namer.claim(self._name_base(node))
        lines = self._lines([n for n in order if n.id in self.statements])
        return Layout(lines, self.target, self.helpers, self.names, self.arrays, self.free)

    def _lines(self, statements):
        dying = self._last_uses(statements)
        after, instead, reads = stacks_in_place(
            [node for node in statements if node.op != "result" and not _is_block(node)],
            self.names, self.target)
        self.free |= reads
        lines = []
        group = None
        for index, node in enumerate(statements):
            if node.op == "result":  # its block gives it its value
                continue
            node_group = self._group(node)
            if node_group != group:
                if group is not None and group[0] != node_group[0]:
                    lines.append("")
                lines.append(_comment(node_group))
                group = node_group
            if _is_block(node):
                lines += self._block_lines(node)
            elif node.id in self.effects:  # a statement for what it does (a print)
                lines.append(self._text(node.id, self.names))
            else:
                lines += instead.get(node.id) or call_lines(
                    self.names[node.id], self._text(node.id, self.names), WIDTH)
            lines += after.get(node.id, [])
            dead = sorted(ref for ref in dying.get(index, ()) if self._deletable(ref))
            if dead:
                lines.append("del " + ", ".join(self.names[ref] for ref in dead))
        return lines

    def _last_uses(self, statements):
        """The values each statement is the last to read, by the statement's index."""
        last_use = {}
        for index, node in enumerate(statements):
            for ref in self.reads[node.id]:
                last_use[ref] = index
        dying = {}
        for ref, index in last_use.items():
            dying.setdefault(index, []).append(ref)
        return dying

    # --- names and expressions ---------------------------------------------------

    def _build(self, node):
        """Decide whether ``node`` gets a statement, splitting it if it is too long."""
        if node.kind != "op":
            self.names[node.id] = self.base_names[node.id] = _parameter_name(node)
            return
        if _is_block(node) or node.op == "result":
            self._build_block_part(node)
            return
        base, named = self._base_name(node)
        self.base_names[node.id] = base
        # A size is written where it is used: it is a name (n_batch) or a little arithmetic.
        sized = (node.op == "size" and node.id not in self.outputs
                 and node.id not in self._read_by_blocks)
        if (named or not self._inlinable(node) or node.id in self.effects) and not sized:
            self.statements.add(node.id)
        self._compose(node)
        if self.sizes[node.id] > MAX_FOLDED_OPS:
            self.statements.add(node.id)
        if node.id in self.statements:
            self._fit(node)

    def _build_block_part(self, node):
        """A loop or branch is a block of statements (``codegen.loop_blocks``) reading its
        arguments by name; each of its results read is a name the block gives a value."""
        self.statements.add(node.id)
        self.sizes[node.id] = 1
        if node.op == "result":
            self.base_names[node.id] = result_name(self.graph, node)
            self.reads[node.id] = ()
        else:
            self.base_names[node.id] = None
            self.reads[node.id] = tuple(node.inputs)

    def _block_lines(self, node):
        """The lines of the loop or branch ``node``, once every name is known."""
        results = {user.params["index"]: self.names[user.id] for user in self.graph
                   if user.op == "result" and user.inputs[0] == node.id
                   and user.id in self.names}
        taken = self.taken | set(self.names.values())

        def claim(base):  # (names a block makes are never reused after it, for clarity)
            name = self.namer.claim(base)
            taken.add(name)
            self.taken.add(name)
            return name
        scope = Scope(source=self._source, own=self._own, results=results, claim=claim,
                      taken=taken, lay_out=self._lay_out_body, text=expression_text,
                      target=self.target, graph=self.graph, reads=self.free,
                      notes=self.block_notes)
        lines, helpers = loop_block(node, scope)
        self.helpers.update(helpers)
        return lines

    def _lay_out_body(self, graph, taken):
        """A block's body, laid out for this function, which reads what it reads."""
        layout = lay_out(graph, taken, self.target, self.arrays)
        self.free |= layout.free
        return layout

    def _source(self, node_id):
        """The source of a value a block reads: its name, or a constant's (``_constant``)."""
        if node_id in self.names:
            return self.names[node_id]
        return self._noted(self._constant(node_id))

    def _own(self, node_id):
        """The source of a value a block may hand back as its result (a carry's first
        value): its name, or a constant's literal, an array made afresh at each call."""
        if node_id in self.names:
            return self.names[node_id]
        return self._noted(self.target.literal(self.graph[node_id].value))

    def _noted(self, source):
        """A constant's ``source`` handed to a block, the module's names it reads (the
        device, a library) noted as the layout's."""
        self.free |= free_names(ast.parse(source, mode="eval").body)
        return source

    def _constant(self, node_id, target=None):
        """Where a constant is read, as ``target`` (by default the layout's) writes it: a
        scalar's literal, an array made at module level and read by its name."""
        target = target or self.target
        node = self.graph[node_id]
        if np.ndim(node.value) == 0:
            return target.literal(node.value)
        return target.array_read(self.arrays.name(node.value, node.name), node.value)

    def _base_name(self, node):
        """A node's name, and whether that name deserves a statement of its own."""
        name = node.meta.get("value_name")
        if name is not None:
            return name, True
        of = node.meta.get("cotangent_of")
        if of is not None and of in self.base_names:
            return f"d_{self.base_names[of]}", False
        return op_name(node), False

    def _name_base(self, node):
        """The base of a node's name: a gradient or tangent named after a value takes
        that value's name as the code spells it (``d_h_2`` for ``h_2``), so the two
        number alike."""
        base = self.base_names[node.id]
        for key, pattern in (("cotangent_of", "d_{}"), ("tangent_of", "{}_dot")):
            of = node.meta.get(key)
            if of in self.names and base == pattern.format(value_name(self.graph[of])):
                return pattern.format(self.names[of])
        return base

    def _inlinable(self, node):
        if node.id in self.outputs or self.uses.get(node.id, 0) != 1:
            return False
        user = self._user_of[node.id]
        if _is_block(user):
            return False
        spare = user.meta.get("write_into_operand")  # (written into: by its name)
        if spare is not None and user.inputs[spare] == node.id:
            return False
        return self._group(user) == self._group(node)

    @functools.cached_property
    def _read_by_blocks(self):
        """The values a loop or branch reads: by name."""
        return {i for node in self.graph if node.id in self.needed and _is_block(node)
                for i in node.inputs}

    @functools.cached_property
    def _user_of(self):
        """A user of each value; for a value used once, its only user."""
        users = {}
        for node in self.graph:
            if node.id in self.needed and node.kind == "op":
                for i in node.inputs:
                    users[i] = node
        return users

    def _compose(self, node):
        """The ``Expression`` of ``node`` (and the one its lines are measured by), and the
        named values it reads in the order its arguments read them."""
        try:
            template = self.target.spelling(node, self.graph)
            measured = (template if self.measured is self.expressions
                        else self.target.laid_out_as.spelling(node, self.graph))
        except Unspellable:
            raise CodegenError(unspellable(node, self.graph, self.target)) from None
        self.helpers.update(self.target.helpers(node, template))
        args, measured_args, reads, size = [], [], [], 1
        for i in node.inputs:
            if i in self.statements or self.graph[i].kind not in ("op", "constant"):
                args.append(NAMED)
                measured_args.append(NAMED)
                reads.append(i)
            elif self.graph[i].kind == "constant":
                args.append(self._constant(i))
                measured_args.append(args[-1] if self.measured is self.expressions
                                     else self._constant(i, self.target.laid_out_as))
            else:
                args.append(self.expressions[i])
                measured_args.append(self.measured[i])
                reads += self.reads[i]
                size += self.sizes[i]
        for position, literal in weak_literals(self.graph, node).items():
            args[position] = self.target.literal(literal)
            measured_args[position] = self.target.laid_out_as.literal(literal)
        self.expressions[node.id] = Expression(template, tuple(args))
        self.measured[node.id] = Expression(measured, tuple(measured_args))
        self.reads[node.id] = tuple(reads)
        self.sizes[node.id] = size

    def _text(self, node_id, names, expressions=None):
        """The source of ``node_id``'s expression (of ``expressions``: by default the
        target's), the values it reads named by ``names``.

        Names are handed out only once all statements are known (until then, to
        measure lines, base names stand in), and the statements of a loop's steps
        repeat a few expressions: each distinct one is written once, with a
        placeholder for each name.
        """
        expression = (expressions or self.expressions)[node_id]
        written = self.texts.get(expression)
        if written is None:
            tree = expression.tree()
            written = self.texts[expression] = expression_text(tree), free_names(tree)
        text, free = written
        if expressions is None:  # (a statement written, not measured)
            self.free |= free
        reads = self.reads[node_id]
        return with_names(text, lambda k: names[reads[k]])

    def _fit(self, node):
        """Give the longest folded-in parts of a statement statements of their own until
        it fits in ``WIDTH`` (measured with base names, in the spelling the target lays
        out by: every target's statements are the same)."""
        base, measured = self.base_names, self.measured
        while len(f"    {base[node.id]} = {self._text(node.id, base, measured)}") > WIDTH:
            folded = {i for i in node.inputs
                      if i not in self.statements and i in self.expressions}
            if not folded:
                return
            longest = max(sorted(folded), key=lambda i: len(self._text(i, base, measured)))
            self.statements.add(longest)
            self._fit(self.graph[longest])
            self._compose(node)

    def _deletable(self, node_id):
        return self.graph[node_id].kind == "op" and node_id not in self.outputs

    # --- grouping ------------------------------------------------------------------

    def _line_of(self, node_id):
        """The user's line a node computes or differentiates, if any."""
        node = self.graph[node_id]
        source = node.source or node.meta.get("adjoint_source")
        of = node.meta.get("adjoint_of")
        if source is None and of is not None:
            source = self.graph[of].source
        return source

    def _group(self, node):
        """``(kind, source)``: the statements under one comment.  The kind is
        ``"forward"``, ``"adjoint"``, ``"tangent"``, or for adjoint code of no user
        line its role."""
        if "jvp_of" in node.meta:
            of = node.meta["jvp_of"]
            line = node.meta.get("jvp_source") or (self._line_of(of) if of is not None else None)
            return "tangent", line and line.statement
        if "adjoint_of" not in node.meta:
            return "forward", node.source and node.source.statement
        source = node.meta.get("adjoint_source")
        of = node.meta["adjoint_of"]
        if source is None and of is not None:
            source = self.graph[of].source
        if source is None:
            return node.meta.get("adjoint_role", "adjoint"), None
        return "adjoint", source.statement


_UNPLACED = {"forward": "# values recorded without a source line",
             "tangent": "# tangents of values recorded without a source line",
             "seed": "# the target's gradient with respect to itself",
             "total": "# each source's gradient, summed over the values it was read as",
             "adjoint": "# adjoint of values recorded without a source line"}
"""Comments over statements that no line of the user's computes or differentiates."""


def _is_block(node):
    """Whether ``node`` is a loop or branch, written as a block of statements."""
    facts = primitive_of(node).results if node.kind == "op" else None
    return facts is not None and bool(facts.bodies)


def _comment(group):
    """The comment over a group: the user's line it computes or differentiates."""
    kind, source = group
    if source is None:
        return _UNPLACED[kind]
    head = {"adjoint": f"# adjoint of {source}", "tangent": f"# tangent of {source}"}.get(
        kind, f"# {source}")
    text = f"{head}  {source.text}" if source.text else head
    limit = WIDTH - len("    ")
    return text if len(text) <= limit else text[:limit - 4].rstrip() + " ..."


def _parameter_name(node):
    name = node.meta.get("parameter")
    if name is None:
        raise CodegenError(f"node {node.id} ({node.kind}) is a leaf that is neither a "
                           "parameter nor a constant")
    return name
