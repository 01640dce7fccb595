"""Gradient modules: standalone Python source files that import only numpy (and
scipy.special where the computation calls it).

``gradient_source`` differentiates a recording (a tape, or an ``ir.Graph``
such as ``tape.graph``), optimises the adjoint graph, lays it out as
one function and wraps it in a module: a docstring saying what it computes,
``INPUTS`` (the parameters' names, shapes and dtypes), the function, and a
check of its arguments at the door.  ``load`` and ``write`` round it off.
This module is the path from a request to the text; each step has its own
module (``request``, ``parameters``, ``names``, ``emit``, ``docstring``,
``module_text``).

The parameters are every leaf the target depends on, in recording order:
watched tensors, each version of a variable the tape read (an ``assign``
makes a new version, which is a parameter of its own: ``v``, then ``v_1``),
and arrays captured from outside the tape.  Captured constants are written
inline when they are small or hold one repeated value, unless the user
named them (``tracer.constant(data, name="y")``): a named array is data.
"""

import functools
import os
import types

import ir
from codegen.docstring import docstring
from codegen.emit import lay_out
from codegen.names import name_adjoint_values, name_outputs, name_tangent_values, source_name
from codegen.parameters import Array, Parameter, prepare, seed_parameter
from codegen.request import check_function_name, one_target, read_request
from codegen.returns import Leaf
from codegen.unconnected import source_type, unconnected_choice, with_zeros
from codegen.sizes import code_name
from codegen.targets.registry import target_named
from ir.sizes.guards import current as current_guarding, guarding
from ir.sizes.questions import spelled_as
from ir.loops.passes import unpack_results
from ir.optimize.passes import optimize_to_run, without_custom_rules
from ir.symbolic import GraphBuilder
from ir.names import RESERVED, Namer
from ir.structure import pack_as

ARRAY_API_PACKAGES = ("array_api_compat", "array_api_extra")
"""What a module written for the array API imports besides numpy: tapegen's extra
``array-api`` installs them."""

INLINE_CONSTANT_SIZE = 16
"""Unnamed captured arrays up to this many elements are written inline; larger ones
(unless they hold one repeated value) are parameters."""


def _symbolic_sizes(generate):
    """Run ``generate`` where questions about the recording's symbolic sizes are answered
    at their traced values and kept as guards (``ir.sizes.guards``): derivative rules ask them
    too, and the module checks every guard on entry."""
    @functools.wraps(generate)
    def generating(*args, **options):
        with guarding({}):
            return generate(*args, **options)
    return generating


@_symbolic_sizes
def gradient_source(tape, output, sources, *, name="gradient", with_value=False,
                    seed_argument=False, optimize=True, target="numpy",
                    unconnected_gradients="none"):
    """The source of a module whose function ``name`` returns d output / d sources.

    ``tape`` is a ``tracer.GradientTape`` that still holds its recording
    (persistent, or before its one ``gradient`` call), with ``output`` (what
    ``tape.gradient`` calls its target) and ``sources`` its tensors and
    variables; or an ``ir.Graph``, with output and sources given as node ids or
    the names its text listing shows.  ``target`` is what the module is
    written for: ``"numpy"``, or ``"array_api"`` (any array library of the
    standard; ``codegen.targets.array_api``).  The
    function returns the gradients in the structure of ``sources`` (``None``
    for a disconnected source), ``(value, gradients)`` with ``with_value``,
    and with ``seed_argument`` takes a last parameter ``seed``: the upstream
    gradient of the target, or for a list (any nesting) of targets a list
    with one array per target, in the order ``tape.gradient`` flattens them.
    ``optimize=False`` keeps the adjoint graph as the derivative rules built it.
    ``unconnected_gradients`` is as for ``tape.gradient``: with
    ``tracer.UnconnectedGradients.ZERO`` (or ``"zero"``) a source the target does not
    reach gets zeros of its shape and dtype instead of ``None``.
    """
    check_function_name(name)
    target = target_named(target)
    zeros = unconnected_choice(unconnected_gradients) == "zero"
    request = read_request(tape, output, sources)
    namer, forward, parameters = _prepared_forward(request, with_value)
    gradient = ir.adjoint(forward, request.targets, request.groups, seed_inputs=seed_argument)
    if seed_argument:
        parameters.append(seed_parameter(gradient, request.single, namer))
    name_adjoint_values(gradient, len(forward))
    gradient.outputs = list(gradient.outputs) + (request.targets if with_value else [])
    return _module(name, request, forward, parameters, gradient, optimize,
                   with_value=with_value, output=output, target=target,
                   leading=_no_axes if zeros else None)


@_symbolic_sizes
def jacobian_source(tape, output, sources, *, name="jacobian", optimize=True, target="numpy",
                    unconnected_gradients="none"):
    """The source of a module whose function ``name`` returns d target / d source, of shape
    ``target.shape + source.shape``, for each of ``sources`` (in their structure).

    One vectorised backward pass over a batch of one-hot seeds, one per
    element of the target: no loop.  Arguments are as for ``gradient_source``,
    with one target; with ``unconnected_gradients="zero"`` a source the target does not
    reach gets zeros of shape ``target.shape + source.shape``, as from ``tape.jacobian``.
    """
    check_function_name(name)
    target = target_named(target)
    zeros = unconnected_choice(unconnected_gradients) == "zero"
    request = one_target(read_request(tape, output, sources, "jacobian_source"),
                         "jacobian_source")
    namer, forward, parameters = _prepared_forward(request)
    jacobian = ir.adjoint(forward, request.targets, request.groups, jacobian=True)
    name_adjoint_values(jacobian, len(forward))
    return _module(name, request, forward, parameters, jacobian, optimize,
                   what="Jacobian of {origin} with respect to {wrt}", output_name="jacobian",
                   target=target, leading=_target_shape(request) if zeros else None)


@_symbolic_sizes
def hessian_source(tape, output, source, *, name="hessian", optimize=True, target="numpy",
                   unconnected_gradients="none"):
    """The source of a module whose function ``name`` returns the Hessian of ``target``
    (summed, if not a scalar) with respect to ``source``: an array of shape
    ``source.shape + source.shape``.

    Forward over reverse, vectorised: the gradient, then its tangents along a
    batch of one-hot directions, one per element of the source, in one pass.
    Arguments are as for ``gradient_source``, with one source; with
    ``unconnected_gradients="zero"``, a Hessian of zeros where the target does not reach
    the source.
    """
    check_function_name(name)
    target = target_named(target)
    zeros = unconnected_choice(unconnected_gradients) == "zero"
    request, namer, forward, parameters, gradient = _gradient_of_one_source(
        tape, output, source, "hessian_source")
    hessian = (ir.tangents(gradient, request.groups, jacobian=True) if request.groups[0]
               else gradient)
    name_tangent_values(hessian)
    return _module(name, request, forward, parameters, hessian, optimize,
                   what="Hessian of {origin} with respect to {wrt}", output_name="hessian",
                   target=target, leading=_itself if zeros else None)


@_symbolic_sizes
def hvp_source(tape, output, source, *, name="hvp", optimize=True, target="numpy",
               unconnected_gradients="none"):
    """The source of a module whose function ``name`` returns the Hessian of ``target``
    (summed, if not a scalar) with respect to ``source``, times a vector ``v``.

    Forward over reverse: the tangent of the gradient along ``v``, at about
    the cost of two gradients.  ``v`` has the source's shape and dtype and is
    the last parameter, and last in ``INPUTS``.  ``tape``, ``target``, ``source`` and
    ``unconnected_gradients`` are as for ``gradient_source``, with one source.
    """
    check_function_name(name)
    target = target_named(target)
    zeros = unconnected_choice(unconnected_gradients) == "zero"
    request, namer, forward, parameters, gradient = _gradient_of_one_source(
        tape, output, source, "hvp_source")
    vector = namer.claim("v")
    product = _tangents_along(gradient, request, vector)
    (tangent,) = [n for n in product if n.kind == "input" and "tangent_of" in n.meta]
    tangent.meta["parameter"] = vector
    parameters.append(Parameter(vector, (Array(vector, vector, tangent.shape,
                                               tangent.dtype),)))
    name_tangent_values(product)
    return _module(name, request, forward, parameters, product, optimize,
                   what="Hessian of {origin} with respect to {wrt}, times " + vector,
                   target=target, leading=_no_axes if zeros else None)


def _no_axes(shape):
    """No leading axes: a gradient, or a Hessian-vector product, has its source's shape."""
    return ()


def _itself(shape):
    """A Hessian's leading axes: its source's shape again."""
    return shape


def _target_shape(request):
    """A Jacobian's leading axes: its target's shape."""
    shape = request.graph[request.targets[0]].shape
    return lambda source_shape: shape


def _tangents_along(gradient, request, vector):
    """The tangent graph of ``gradient`` along the new input ``vector``; for a source
    the recording holds no node of, the input alone (its product is ``None``)."""
    if request.groups[0]:
        return ir.tangents(gradient, request.groups, names=[vector])
    builder = GraphBuilder(gradient)
    shape, dtype = source_type(request, 0)
    builder.input(shape, dtype, vector, meta={"tangent_of": None})
    builder.graph.outputs = [None]
    return builder.graph


def _prepared_forward(request, with_value=False):
    """A fresh namer, and the recorded graph prepared for code with its parameters named
    by it; ``INLINE_CONSTANT_SIZE`` is read at each call, so setting it takes effect.

    A target that is a constant (``np.zeros_like(x)``) has no gradient, and needs
    no parameter unless the function returns its value.
    """
    current_guarding().hints.update(request.graph.sizes)
    namer = Namer(RESERVED | {code_name(s) for s in request.graph.sizes})
    graph = request.graph
    needed = [t for t in request.targets if with_value or graph[t].kind != "constant"]
    forward, parameters = prepare(graph, needed, namer, INLINE_CONSTANT_SIZE)
    return namer, forward, parameters


def _gradient_of_one_source(tape, output, source, what):
    """What second-derivative modules start from: the request, the namer, the prepared
    forward graph, its parameters, and the adjoint graph of the one source's gradient."""
    request = read_request(tape, output, source, what)
    if len(request.groups) != 1:
        raise ValueError(f"{what} differentiates by one source; call it once per source")
    namer, forward, parameters = _prepared_forward(request)
    gradient = ir.adjoint(forward, request.targets, request.groups)
    name_adjoint_values(gradient, len(forward))
    return request, namer, forward, parameters, gradient


def _module(name, request, forward, parameters, graph, optimize, *, what=None,
            with_value=False, output=None, output_name=None, target, leading=None):
    """Optimise ``graph`` (its outputs: one per source, then any values), lay it out as
    the function ``name`` and wrap it in a module.  ``output_name`` names what is
    returned for each source (``hessian``; ``jacobian_x`` with several sources); with
    ``leading`` (a source's shape to the axes before it), a source without one gets zeros
    (``codegen.unconnected``)."""
    count = len(request.groups)
    unconnected = [output is None for output in graph.outputs[:count]]
    graph = without_custom_rules(graph)
    graph = optimize_to_run(graph) if optimize else unpack_results(graph)
    if output_name is not None:
        name_outputs(graph, forward, request.groups, output_name)
    if leading is not None:  # (after naming: no source's name for a source the graph lacks)
        graph = with_zeros(graph, request, parameters, leading)
    sizes = [code_name(s) for s in request.graph.sizes]
    with spelled_as(code_name):
        layout = lay_out(graph, [array.body for p in parameters for array in p.arrays] + sizes,
                         target)
    leaves = [Leaf(layout.expression(o, graph), None if o is None else graph[o])
              for o in graph.outputs]
    specialised = request.warn([None if none else leaf.node
                                for none, leaf in zip(unconnected, leaves)],
                               "zeros" if leading is not None else "None")
    gradients = request.pack(leaves[:count])
    result = gradients
    if with_value:
        values = leaves[count:]
        result = (values[0] if request.single else pack_as(output, values), gradients)
    wrt = [source_name(forward, group, k) for k, group in enumerate(request.groups)]
    if what is not None:
        what = what.replace("{wrt}", ", ".join(wrt) or "nothing")
    text = docstring(request, forward, parameters, result, gradients, wrt, what, specialised)
    guards = list(request.graph.guards)
    guards += [g for g in current_guarding().guards if g not in guards]
    return target.module(name, text, parameters, layout, result, guards)


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
    try:
        exec(compile(text, filename, "exec"), module.__dict__)
    except ModuleNotFoundError as missing:
        if (missing.name or "").partition(".")[0] not in ARRAY_API_PACKAGES:
            raise
        raise ModuleNotFoundError(
            f"the generated module {module_name} is written for the array API standard and "
            f"imports {missing.name}, which is not installed: pip install 'tapegen[array-api]'",
            name=missing.name) from None
    return module
