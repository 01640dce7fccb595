"""Gradient modules: standalone Python source files that import only numpy (and
scipy.special where the computation calls it).

``gradient_source`` differentiates a recording (a tape, or an ``ir.Graph``
such as ``tape.graph``), optimises the adjoint graph, lays it out as
one function and wraps it in a module: a docstring saying what it computes,
``INPUTS`` (the parameters' names, shapes and dtypes), the function, and a
check of its arguments at the door.  ``load`` and ``write`` round it off.

The parameters are every leaf the target depends on, in recording order:
watched tensors, each version of a variable the tape read (an ``assign``
makes a new version, which is a parameter of its own: ``v``, then ``v_1``),
and arrays captured from outside the tape.  Captured constants are written
inline when they are small or hold one repeated value, unless the user
named them (``tracer.constant(data, name="y")``): a named array is data.
"""

import ast
import dataclasses
import importlib.metadata
import keyword
import os
import textwrap
import types

import numpy as np

import ir
from codegen.emit import WIDTH, CodegenError, expression_text, lay_out, unspellable
from codegen.names import forward_names
from ir.names import LEAF_FALLBACKS, RESERVED, Namer, identifier
from ir.structure import flatten, pack_as

INLINE_CONSTANT_SIZE = 16
"""Unnamed captured arrays up to this many elements are written inline; larger ones
(unless they hold one repeated value) are parameters."""


def gradient_source(tape, target, sources, *, name="gradient", with_value=False,
                    seed_argument=False, optimize=True):
    """The source of a module whose function ``name`` returns d target / d sources.

    ``tape`` is a ``tracer.GradientTape`` that still holds its recording
    (persistent, or before its one ``gradient`` call), with ``target`` and
    ``sources`` its tensors and variables; or an ``ir.Graph``, with target and
    sources given as node ids or the names its text listing shows.  The
    function returns the gradients in the structure of ``sources`` (``None``
    for a disconnected source), ``(value, gradients)`` with ``with_value``,
    and with ``seed_argument`` takes a last parameter ``seed``: the upstream
    gradient of the target, or for a list (any nesting) of targets a list
    with one array per target, in the order ``tape.gradient`` flattens them.
    ``optimize=False`` keeps the adjoint graph as the derivative rules built it.
    """
    _check_function_name(name)
    request = _request(tape, target, sources)
    namer = Namer(RESERVED)
    forward, parameters = _prepare(request.graph, request.targets, namer)
    gradient = ir.adjoint(forward, request.targets, request.groups, seed_inputs=seed_argument)
    if seed_argument:
        parameters.append(_seed_parameter(gradient, request.single, namer))
    _name_adjoint_values(gradient, len(forward))
    gradient.outputs = list(gradient.outputs) + (request.targets if with_value else [])
    return _module(name, request, forward, parameters, gradient, optimize,
                   with_value=with_value, target=target)


def jacobian_source(tape, target, sources, *, name="jacobian", optimize=True):
    """The source of a module whose function ``name`` returns d target / d source, of shape
    ``target.shape + source.shape``, for each of ``sources`` (in their structure).

    One vectorised backward pass over a batch of one-hot seeds, one per
    element of the target: no loop.  Arguments are as for ``gradient_source``,
    with one target.
    """
    _check_function_name(name)
    request = _one_target(_request(tape, target, sources), "jacobian_source")
    namer = Namer(RESERVED)
    forward, parameters = _prepare(request.graph, request.targets, namer)
    jacobian = ir.adjoint(forward, request.targets, request.groups, jacobian=True)
    _name_adjoint_values(jacobian, len(forward))
    return _module(name, request, forward, parameters, jacobian, optimize,
                   what="Jacobian of {origin} with respect to {wrt}", output_name="jacobian")


def hessian_source(tape, target, source, *, name="hessian", optimize=True):
    """The source of a module whose function ``name`` returns the Hessian of ``target``
    (summed, if not a scalar) with respect to ``source``: an array of shape
    ``source.shape + source.shape``.

    Forward over reverse, vectorised: the gradient, then its tangents along a
    batch of one-hot directions, one per element of the source, in one pass.
    Arguments are as for ``gradient_source``, with one source.
    """
    _check_function_name(name)
    request, namer, forward, parameters, gradient = _gradient_of_one_source(
        tape, target, source, "hessian_source")
    hessian = ir.tangents(gradient, request.groups, jacobian=True)
    _name_tangent_values(hessian)
    return _module(name, request, forward, parameters, hessian, optimize,
                   what="Hessian of {origin} with respect to {wrt}", output_name="hessian")


def hvp_source(tape, target, source, *, name="hvp", optimize=True):
    """The source of a module whose function ``name`` returns the Hessian of ``target``
    (summed, if not a scalar) with respect to ``source``, times a vector ``v``.

    Forward over reverse: the tangent of the gradient along ``v``, at about
    the cost of two gradients.  ``v`` has the source's shape and dtype and is
    the last parameter, and last in ``INPUTS``.  ``tape``, ``target`` and
    ``source`` are as for ``gradient_source``, with one source.
    """
    _check_function_name(name)
    request, namer, forward, parameters, gradient = _gradient_of_one_source(
        tape, target, source, "hvp_source")
    vector = namer.claim("v")
    product = ir.tangents(gradient, request.groups, names=[vector])
    (tangent,) = [n for n in product if n.kind == "input" and "tangent_of" in n.meta]
    tangent.meta["parameter"] = vector
    parameters.append(_Parameter(vector, (_Array(vector, vector, tangent.shape,
                                                 tangent.dtype),)))
    _name_tangent_values(product)
    return _module(name, request, forward, parameters, product, optimize,
                   what="Hessian of {origin} with respect to {wrt}, times " + vector)


def _name_outputs(graph, forward, request, base):
    several = len(request.groups) > 1
    for k, (output, group) in enumerate(zip(graph.outputs, request.groups)):
        node = graph[output] if output is not None else None
        if node is not None and node.kind == "op":
            source = _source_name(forward, group, k)
            node.meta["value_name"] = f"{base}_{source}" if several else base


def _gradient_of_one_source(tape, target, source, what):
    """What second-derivative modules start from: the request, the namer, the prepared
    forward graph, its parameters, and the adjoint graph of the one source's gradient."""
    request = _request(tape, target, source)
    if len(request.groups) != 1:
        raise ValueError(f"{what} differentiates by one source; call it once per source")
    namer = Namer(RESERVED)
    forward, parameters = _prepare(request.graph, request.targets, namer)
    gradient = ir.adjoint(forward, request.targets, request.groups)
    _name_adjoint_values(gradient, len(forward))
    return request, namer, forward, parameters, gradient


def _one_target(request, what):
    if len(request.targets) != 1:
        raise ValueError(f"{what} differentiates one target; call it once per target")
    return request


def _module(name, request, forward, parameters, graph, optimize, *, what=None,
            with_value=False, target=None, output_name=None):
    """Optimise ``graph`` (its outputs: one per source, then any values), lay it out as
    the function ``name`` and wrap it in a module.  ``output_name`` names what is
    returned for each source (``hessian``; ``jacobian_x`` with several sources)."""
    if optimize:
        graph = ir.optimize(graph)
    if output_name is not None:
        _name_outputs(graph, forward, request, output_name)
    layout = lay_out(graph, [array.body for p in parameters for array in p.arrays])
    leaves = [_Leaf(layout.expression(o, graph), None if o is None else graph[o])
              for o in graph.outputs]
    count = len(request.groups)
    gradients = request.pack(leaves[:count])
    result = gradients
    if with_value:
        values = leaves[count:]
        result = (values[0] if request.single else pack_as(target, values), gradients)
    wrt = [_source_name(forward, group, k) for k, group in enumerate(request.groups)]
    if what is not None:
        what = what.replace("{wrt}", ", ".join(wrt) or "nothing")
    return _module_text(name, request, forward, parameters, layout, result, gradients, wrt,
                        what)


def write(path, source):
    """Write generated ``source`` to ``path`` (a ``.py`` file); returns the path."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    return path


def load(source_or_path, name=None):
    """Compile generated source (or the file at a path) into a module object."""
    text = str(source_or_path)
    filename = "<generated>"
    if "\n" not in text and os.path.exists(text):
        filename = text
        with open(text, encoding="utf-8") as handle:
            text = handle.read()
    module_name = name or (os.path.splitext(os.path.basename(filename))[0]
                           if filename != "<generated>" else "generated_gradient")
    module = types.ModuleType(module_name)
    module.__file__ = filename
    exec(compile(text, filename, "exec"), module.__dict__)
    return module


# --- what to differentiate -------------------------------------------------------

def _check_function_name(name):
    if not (isinstance(name, str) and name.isidentifier()) or keyword.iskeyword(name):
        raise ValueError(f"the function name {name!r} is not a Python identifier")
    if name in RESERVED or name.startswith("_"):
        raise ValueError(f"the function name {name!r} is taken by the generated module: "
                         "choose a name that does not start with an underscore and is not "
                         f"one of {', '.join(sorted(RESERVED))}")


@dataclasses.dataclass
class _Request:
    """The recorded graph, the node ids to differentiate, and how to shape the answer."""

    graph: object
    targets: list
    groups: list
    pack: object
    single: bool


def _request(tape, target, sources):
    single = not isinstance(target, (list, tuple, dict))
    if isinstance(tape, ir.Graph):
        resolve = _resolver(tape)
        return _Request(tape, [resolve(t) for t in flatten(target)],
                        [(resolve(s),) for s in flatten(sources)],
                        lambda leaves: pack_as(sources, leaves), single)
    graph_of = getattr(tape, "graph_of", None)
    if graph_of is None:
        raise TypeError(f"gradient_source needs a tracer.GradientTape or an ir.Graph, "
                        f"got {type(tape).__name__}")
    graph, targets, groups, pack = graph_of(target, sources)
    return _Request(graph, targets, groups, pack, single)


def _resolver(graph):
    by_name = {}
    for node_id, text in graph.names().items():
        by_name.setdefault(text, node_id)
    for node in graph:
        if node.name:
            by_name.setdefault(node.name, node.id)

    def resolve(ref):
        if isinstance(ref, int) and ref in graph.nodes:
            return ref
        if isinstance(ref, str) and ref in by_name:
            return by_name[ref]
        raise ValueError(f"the graph has no node {ref!r}: name nodes by id or by the names "
                         "its text listing shows (print(graph))")
    return resolve


# --- parameters ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Array:
    """One array a caller passes: its label in ``INPUTS``, its name in the body."""

    label: str
    body: str
    shape: tuple
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class _Parameter:
    """One parameter of the generated function: an array, or (``seed``) a list of them."""

    name: str
    arrays: tuple
    is_list: bool = False
    note: str = None


def _prepare(graph, targets, namer):
    """A copy of ``graph`` whose nodes carry their names in ``meta``, and its parameters
    (named by ``namer``).

    Captured arrays that become parameters turn into inputs, so no pass folds
    their recorded values into the code.
    """
    ancestors = graph.upstream(targets)
    for node in graph:
        if node.id in ancestors and node.kind == "op":
            reason = unspellable(node, graph)
            if reason is not None:
                raise CodegenError(reason)
    values = forward_names(graph)
    users = _first_users(graph)
    parameters = []
    prepared = ir.Graph()
    for node in graph:
        meta = dict(node.meta)
        changes = {}
        if node.id in ancestors and _is_parameter(node):
            name = namer.claim(identifier(node.name, LEAF_FALLBACKS[node.kind]))
            meta["parameter"] = name
            note = _captured_note(name, node, users.get(node.id))
            parameters.append(_Parameter(name, (_Array(name, name, node.shape, node.dtype),),
                                         note=note))
            if node.kind == "constant":
                changes = {"kind": "input", "op": "input"}
        elif node.id in ancestors and node.kind == "constant" and not _uniform(node.value):
            user = users.get(node.id)
            meta["inlined_data"] = str(user.source) if user and user.source else ""
        elif node.id in values:
            meta["value_name"] = values[node.id]
        prepared.nodes[node.id] = dataclasses.replace(node, meta=meta, **changes)
    prepared.outputs = list(graph.outputs)
    return prepared, parameters


def _first_users(graph):
    users = {}
    for node in graph:
        for i in node.inputs:
            users.setdefault(i, node)
    return users


def _captured_note(name, node, user):
    """Where an unnamed captured array came from: the caller must pass it again."""
    if node.kind != "constant" or _named_by_user(node):
        return None
    where = f" at {user.source}" if user is not None and user.source is not None else ""
    return (f"{name}: an array the tape captured{where}; name it (tracer.constant(..., "
            "name=...)) to name this parameter.")


def _is_parameter(node):
    if node.kind != "constant":
        return node.kind != "op"
    if _named_by_user(node):
        return True
    return np.size(node.value) > INLINE_CONSTANT_SIZE and not _uniform(node.value)


def _uniform(value):
    """True for a scalar or an array of one repeated value (seeds of ones, zeros): the
    structure of a computation more often than its data."""
    array = np.asarray(value)
    return array.ndim == 0 or array.size == 0 or bool(np.all(array == array.flat[0]))


def _named_by_user(node):
    return bool(node.name) and not node.meta.get("default_name")


def _seed_parameter(gradient, single, namer):
    """Name the seed inputs ``ir.adjoint`` added (one per target, in order) as ``seed``:
    one array for a single target, else a list whose arrays the body unpacks."""
    seeds = [node for node in gradient if "seed_of" in node.meta]
    arrays = []
    for k, node in enumerate(seeds):
        label, body = ("seed", "seed") if single else (f"seed[{k}]", namer.claim(f"seed_{k}"))
        node.meta["parameter"] = body
        arrays.append(_Array(label, body, node.shape, node.dtype))
    return _Parameter("seed", tuple(arrays), is_list=not single)


def _name_adjoint_values(gradient, forward_size):
    """Give each whole cotangent the name ``d_<value>``, and mark every node the adjoint
    pass added as adjoint code.  Nodes of no forward line are the seeds (made
    before any rule ran) or the sums that finish each source's gradient."""
    rules_ran = False
    for node in gradient:
        if node.id < forward_size or "parameter" in node.meta:
            continue
        if "adjoint_of" in node.meta:
            rules_ran = True
        else:
            node.meta.update(adjoint_of=None, adjoint_role="total" if rules_ran else "seed")
        of = node.meta.get("cotangent_of")
        name = None if of is None else _value_name(gradient[of])
        if name is not None:
            node.meta["value_name"] = f"d_{name}"


def _name_tangent_values(graph):
    """Call the tangent of a named value ``<name>_dot``, as forward-mode papers write it."""
    for node in graph:
        of = node.meta.get("tangent_of")
        if of is None or node.kind == "input":
            continue
        name = _value_name(graph[of])
        if name is not None:
            node.meta["value_name"] = f"{name}_dot"


def _value_name(node):
    return node.meta.get("value_name") or node.meta.get("parameter")


def _source_name(graph, group, index):
    for node_id in group:
        node = graph[node_id]
        name = node.meta.get("parameter") or node.meta.get("value_name") or node.name
        if name:
            return name
    return f"source {index}"


# --- the module text ----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class _Leaf:
    """One returned value: its expression, and its node (``None`` for no gradient)."""

    expression: ast.AST
    node: object

    def code(self):
        return expression_text(self.expression)

    def description(self):
        if self.node is None:
            return "None"
        return f"{self.code()}{_KEEP_TOGETHER}{_type_text(self.node.shape, self.node.dtype)}"


def _structure_text(structure, leaf_text):
    if isinstance(structure, dict):
        items = ", ".join(f"{k!r}: {_structure_text(v, leaf_text)}" for k, v in structure.items())
        return "{" + items + "}"
    if isinstance(structure, list):
        return "[" + ", ".join(_structure_text(v, leaf_text) for v in structure) + "]"
    if isinstance(structure, tuple):
        items = [_structure_text(v, leaf_text) for v in structure]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return leaf_text(structure)


def _return_text(result):
    """The return statement; a top-level tuple of two or more needs no parentheses."""
    if isinstance(result, tuple) and len(result) > 1:
        return "return " + ", ".join(_structure_text(r, _Leaf.code) for r in result)
    return "return " + _structure_text(result, _Leaf.code)


def _type_text(shape, dtype):
    """``float64[2, 3]``, its spaces kept from line breaks (see ``_wrapped``)."""
    return f"{np.dtype(dtype).name}[{', '.join(str(d) for d in shape)}]".replace(
        " ", _KEEP_TOGETHER)


def _module_text(name, request, forward, parameters, layout, result, gradients, wrt, what=None):
    docstring = _docstring(request, forward, parameters, result, gradients, wrt, what)
    arrays = [array for p in parameters for array in p.arrays]
    inputs = "".join(f'    ("{a.label}", {tuple(a.shape)!r}, "{a.dtype.name}"),\n'
                     for a in arrays)
    inputs_text = f"INPUTS = (\n{inputs})" if inputs else "INPUTS = ()"
    used = [layout.helpers[k] for k in sorted(layout.helpers)]
    imports = "".join(f"{h.strip()}\n" for h in used if _is_import(h))
    helpers = [_CHECK_INPUTS] if arrays else []
    helpers += [h for h in used if not _is_import(h)]
    function = _function_text(name, parameters, layout, result)
    definitions = "\n\n\n".join(part.rstrip("\n") for part in [function] + helpers)
    return (f'"""{docstring}"""\nimport numpy as np\n{imports}\n{inputs_text}\n\n\n'
            f'{definitions}\n')


def _is_import(helper):
    """A helper that is an import statement (``import scipy.special``) heads the module."""
    return helper.startswith(("import ", "from "))


def _function_text(name, parameters, layout, result):
    lines = [_call_text(f"def {name}", [p.name for p in parameters]) + ":"]
    if parameters:
        checked = [f"*{p.name}" if p.is_list else p.name for p in parameters]
        lines.append("    " + _call_text("_check_inputs", checked, indent="    "))
        lines += ["    " + _unpacking(p, layout) for p in parameters if p.is_list]
        lines.append("")
    lines += [f"    {line}" if line else "" for line in layout.lines]
    lines.append(f"    {_return_text(result)}")
    return "\n".join(lines)


def _unpacking(parameter, layout):
    """``seed_0, seed_1 = seed``, with ``_`` for seeds no gradient needs."""
    used = set(layout.names.values())
    names = [a.body if a.body in used else "_" for a in parameter.arrays]
    if len(names) == 1:
        return f"{names[0]} = {parameter.name}[0]"
    return f"{', '.join(names)} = {parameter.name}"


def _call_text(head, args, indent=""):
    """``head(a, b, ...)`` on one line if it fits in ``WIDTH``, else one argument a line."""
    text = f"{head}({', '.join(args)})"
    if len(indent) + len(text) + 1 <= WIDTH:
        return text
    inner = "".join(f"{indent}    {arg},\n" for arg in args)
    return f"{head}(\n{inner}{indent})"


def _docstring(request, forward, parameters, result, gradients, wrt, what=None):
    """``what`` is the first line's template, with ``{origin}`` for what was
    differentiated; by default the gradient (or vector-Jacobian product)."""
    if what is None:
        seeded = any(p.name == "seed" for p in parameters)
        what = (f"{'Vector-Jacobian product' if seeded else 'Gradient'} of {{origin}} with "
                f"respect to {', '.join(wrt) or 'nothing'}")
    inputs = ", ".join(f"{a.label}{_KEEP_TOGETHER}{_type_text(a.shape, a.dtype)}"
                       for p in parameters for a in p.arrays)
    paragraphs = [[what.format(origin=_origin(forward, request.targets)) + "."],
                  [f"Generated by tapegen {_version()} from a recorded computation; edit the "
                   "model, not this file."],
                  [f"Inputs:  {inputs or 'none'}",
                   f"Returns: {_structure_text(result, _Leaf.description)}"],
                  _notes(forward, parameters, wrt, gradients)]
    indents = [0, 0, len("Inputs:  "), 4]
    return "\n\n".join(_wrapped(lines, indent)
                        for lines, indent in zip(paragraphs, indents) if lines) + "\n"


_KEEP_TOGETHER = "\ue000"
"""Stands in for the spaces of a type (``float64[2, 3]``) while text is wrapped."""


def _wrapped(lines, indent):
    """Docstring lines wrapped to ``WIDTH``, continued lines indented by ``indent``; a
    value and its type stay on one line."""
    return "\n".join(textwrap.fill(line, WIDTH, subsequent_indent=" " * indent,
                                   break_on_hyphens=False, break_long_words=False)
                      for line in lines).replace(_KEEP_TOGETHER, " ")


def _origin(graph, targets):
    """What was differentiated, in the user's terms: the name the value was given, or the
    function that computed it, and the line."""
    node = graph[targets[0]] if targets else None
    source = node.source if node is not None else None
    name = node.meta.get("value_name") if node is not None else None
    if source is None:
        what = "the target"
    elif name is not None:
        what = f"{name} ({source})"
    elif source.function == "<module>":
        what = f"the value computed at {source}"
    else:
        what = f"{source.function} ({source})"
    if len(targets) > 1:
        return f"{len(targets)} targets (the first: {what})"
    return what


def _notes(graph, parameters, wrt, gradients):
    """Docstring lines on what a reader could not guess: variable versions, captured
    arrays (parameters, or written into the code), seed lists, sources without a
    gradient."""
    notes = []
    versions = {}
    for node in graph:
        if node.kind == "variable" and "parameter" in node.meta:
            versions.setdefault(node.meta.get("variable", node.name), []).append(
                node.meta["parameter"])
    for variable, names in versions.items():
        if len(names) > 1:
            notes.append(f"{', '.join(names)}: the versions of variable {variable} the tape "
                         "read, oldest first (each assign makes a new one).")
    for parameter in parameters:
        if parameter.note:
            notes.append(parameter.note)
        if parameter.is_list:
            count = len(parameter.arrays)
            notes.append(f"{parameter.name}: a list of {count} array{'s' if count > 1 else ''}, "
                         "the upstream gradient of each target in order.")
    inlined = [node.meta["inlined_data"] for node in graph if "inlined_data" in node.meta]
    if inlined:
        places = sorted({place for place in inlined if place})
        where = f" (captured at {', '.join(places)})" if places else ""
        notes.append(f"Written into the code: {len(inlined)} captured "
                     f"array{'s' if len(inlined) > 1 else ''}{where}, as recorded; pass data "
                     "that changes as named tensors (tracer.constant(..., name=...)) to make "
                     "it a parameter.")
    missing = [w for w, leaf in zip(wrt, flatten(gradients)) if leaf.node is None]
    if missing:
        notes.append(f"No gradient (None): {', '.join(missing)}.")
    return notes


def _version():
    try:
        return importlib.metadata.version("tapegen")
    except importlib.metadata.PackageNotFoundError:
        return "(development)"


_CHECK_INPUTS = '''def _check_inputs(*args):
    """Refuse arguments whose number, kind, shape or dtype differs from INPUTS."""
    if len(args) != len(INPUTS):
        names = ", ".join(name for name, _, _ in INPUTS)
        raise ValueError(f"expected {len(INPUTS)} arrays ({names}), got {len(args)}")
    for (name, shape, dtype), value in zip(INPUTS, args):
        if not isinstance(value, (np.ndarray, np.generic, int, float, complex)):
            raise TypeError(f"{name}: expected a numpy array, got {type(value).__name__}")
        array = np.asarray(value)
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(
                f"{name}: expected {dtype}{list(shape)}, got {array.dtype}{list(array.shape)}"
            )
'''
