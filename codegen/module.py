"""Gradient modules: standalone Python source files that import only numpy.

``gradient_source`` differentiates a recording (a tape, or an ``ir.Graph``
such as one loaded from JSON), optimises the adjoint graph, lays it out as
one function and wraps it in a module: a docstring saying what it computes,
``INPUTS`` (the parameters' names, shapes and dtypes), the function, and a
check of its arguments at the door.  ``load`` and ``write`` round it off.
"""

import ast
import importlib.metadata
import os
import types

import astor

import ir
from codegen.emit import CodegenError, lay_out
from ir.structure import flatten, pack_as


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
    gradient of the target (a list of them for a list of targets).
    """
    graph, target_ids, groups, pack = _recording(tape, target, sources)
    gradient = ir.adjoint(graph, target_ids, groups, seed_inputs=seed_argument)
    gradients = len(groups)
    gradient.outputs = list(gradient.outputs) + (list(target_ids) if with_value else [])
    if optimize:
        gradient = ir.optimize(gradient)
    seeds = [n.id for n in gradient if "seed_of" in n.meta]
    layout = lay_out(gradient, seeds)
    grads = pack([layout.expression(o, gradient) for o in gradient.outputs[:gradients]])
    result = _as_ast(grads)
    if with_value:
        values = [layout.expression(o, gradient) for o in gradient.outputs[gradients:]]
        value = values[0] if len(values) == 1 else ast.Tuple(values)
        result = ast.Tuple([value, result])
    return _module_text(name, graph, target_ids, groups, layout, result, with_value)


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

def _recording(tape, target, sources):
    if isinstance(tape, ir.Graph):
        graph = tape
        resolve = _resolver(graph)
        target_ids = [resolve(t) for t in flatten(target)]
        groups = [(resolve(s),) for s in flatten(sources)]
        return graph, target_ids, groups, lambda leaves: pack_as(sources, leaves)
    graph_of = getattr(tape, "graph_of", None)
    if graph_of is None:
        raise TypeError(f"gradient_source needs a tracer.GradientTape or an ir.Graph, "
                        f"got {type(tape).__name__}")
    return graph_of(target, sources)


def _resolver(graph):
    names = graph.names()
    by_name = {}
    for node_id, text in names.items():
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


# --- the module text ----------------------------------------------------------------

def _as_ast(structure):
    if isinstance(structure, dict):
        return ast.Dict(keys=[ast.Constant(k) for k in structure],
                        values=[_as_ast(v) for v in structure.values()])
    if isinstance(structure, list):
        return ast.List([_as_ast(v) for v in structure])
    if isinstance(structure, tuple):
        return ast.Tuple([_as_ast(v) for v in structure])
    return structure


def _type_text(node):
    return f"{node.dtype.name}[{', '.join(str(d) for d in node.shape)}]"


def _module_text(name, graph, target_ids, groups, layout, result, with_value):
    function = _function_text(name, layout, result)
    docstring = _docstring(graph, target_ids, groups, layout, result, with_value)
    inputs = "".join(f"    ({param!r}, {tuple(node.shape)!r}, {node.dtype.name!r}),\n"
                     for param, node in layout.params)
    helpers = [_CHECK_INPUTS] + [layout.helpers[k] for k in sorted(layout.helpers)]
    inputs_text = f"INPUTS = (\n{inputs})" if inputs else "INPUTS = ()"
    definitions = "\n\n\n".join(part.rstrip("\n") for part in [function] + helpers)
    return f'"""{docstring}"""\nimport numpy as np\n\n{inputs_text}\n\n\n{definitions}\n'


def _function_text(name, layout, result):
    params = ", ".join(p for p, _ in layout.params)
    lines = [f"def {name}({params}):"]
    if layout.params:
        lines += [f"    _check_inputs({params})", ""]
    lines += [f"    {line}" if line else "" for line in layout.lines]
    lines.append(f"    return {astor.to_source(result).strip()}")
    return "\n".join(lines)


def _docstring(graph, target_ids, groups, layout, result, with_value):
    target = graph[target_ids[0]] if target_ids else None
    source = target.source if target is not None else None
    origin = f" of {source.function} ({source})" if source else ""
    wrt = [_source_name(graph, group, layout, k) for k, group in enumerate(groups)]
    unconnected = [w for w, o in zip(wrt, _gradient_outputs(result, with_value)) if o == "None"]
    lines = [f"Gradient{origin} with respect to {', '.join(wrt) or 'nothing'}.", "",
             f"Generated by tapegen {_version()} from a recorded computation; edit the model, "
             "not this file.", "",
             "Inputs:  " + (", ".join(f"{p} {_type_text(n)}" for p, n in layout.params)
                            or "none"),
             f"Returns: {astor.to_source(result).strip()}"]
    if unconnected:
        lines.append(f"No gradient (not connected): {', '.join(unconnected)}")
    return "\n".join(lines) + "\n"


def _gradient_outputs(result, with_value):
    grads = result.elts[1] if with_value else result
    leaves = []

    def walk(node):
        if isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                walk(elt)
        elif isinstance(node, ast.Dict):
            for value in node.values:
                walk(value)
        else:
            leaves.append(astor.to_source(node).strip())
    walk(grads)
    return leaves


def _source_name(graph, group, layout, index):
    for node_id in group:
        node = graph[node_id]
        if node.name:
            return node.name
    return f"source {index}"


def _version():
    try:
        return importlib.metadata.version("tapegen")
    except importlib.metadata.PackageNotFoundError:
        return "(development)"


_CHECK_INPUTS = '''def _check_inputs(*args):
    """Refuse arguments whose shape or dtype differs from INPUTS."""
    for (name, shape, dtype), value in zip(INPUTS, args):
        if np.shape(value) != shape or np.result_type(value) != dtype:
            raise ValueError(
                f"{name}: expected {dtype}{list(shape)}, got "
                f"{np.result_type(value)}{list(np.shape(value))}"
            )
'''
