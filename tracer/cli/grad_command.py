"""``tapegen grad``: write the gradient module of a traced function, and check it.

The module is generated from the tape that traced the function, written
where ``-o`` says, loaded back and run on the traced inputs, so the user
learns at once whether it agrees with the tape's eager gradients.  What
generation warns of (a gradient cut by a conversion to Python numbers) is
printed once, as a ``warning:`` line among the command's notes.
"""

import inspect
import os
import warnings

import numpy as np

import codegen
import tracer
from tracer.cli.errors import CommandError, one_line
from tracer.cli.output import shown, write_output
from tracer.cli.user_function import named_values, sources, trace_function
from ir.structure import flatten


def run(args):
    """Trace ``args.function``, write its gradient module, report it and check it."""
    path, name = args.function
    trace = trace_function(args.function, args.arg, args.trace_sizes)
    chosen = sources(trace, args.wrt)
    wrt = chosen[0] if len(chosen) == 1 else tuple(chosen)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", tracer.GradientTapeWarning)
        try:
            source = codegen.gradient_source(trace.tape, trace.result, wrt, name=f"{name}_grad",
                                             with_value=args.value,
                                             target=args.target.replace("-", "_"))
        except (ValueError, tracer.UnsupportedOperation) as error:  # a CodegenError too
            raise CommandError(one_line(error)) from None
    module = codegen.load(_write(args.output, name, source, path))
    _report(name, trace, chosen, module, args.value)
    _show_warnings(caught)
    _compare_with_eager(module, name, trace, wrt, args.value)
    if trace.sizes:
        check_other_sizes(module, args, trace.sizes)


def _show_warnings(caught):
    """Print generation's warnings as the command's own; let others show as Python shows
    them."""
    for warning in caught:
        if issubclass(warning.category, tracer.GradientTapeWarning):
            print(f"warning: {one_line(warning.message)}")
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)


def _write(output, name, source, traced_file):
    """Write the module to ``-o`` (a file, or a directory for the default name)."""
    path = output or f"{name}_grad.py"
    if os.path.isdir(path):
        path = os.path.join(path, f"{name}_grad.py")
    return write_output(path, source, traced_file)


def _report(name, trace, chosen, module, with_value):
    """Say what was traced and written, and what the generated function returns."""
    traced_at = ", ".join(f"{n} = {s}" for n, s in trace.sizes.items())
    print(f"traced {name}({', '.join(_typed(n, t) for n, t in trace.tensors.items())})"
          f" -> {_type_text(trace.result)}" + (f" at {traced_at}" if traced_at else ""))
    if trace.result.shape:
        print(f"note: {name}() returns an array; the module differentiates the sum of its "
              "entries")
    gradients = ", ".join(f"d_{_label(s)}" for s in chosen)
    gradients = gradients if len(chosen) == 1 else f"({gradients})"
    returns = f"(value, {gradients})" if with_value else gradients
    generated = getattr(module, f"{name}_grad")
    print(f"wrote {shown(module.__file__)}: {generated.__name__}"
          f"{inspect.signature(generated)} -> {returns}")


def check_other_sizes(module, args, traced):
    """Trace the function again at two other sizes of its symbolic sizes (all 1, then each
    a few larger than traced) and check the written module against those eager gradients."""
    for sizes in ({n: 1 for n in traced}, {n: s + 3 for n, s in traced.items()}):
        text = ", ".join(f"{n}={s}" for n, s in sizes.items())
        trace = trace_function(args.function, args.arg, sizes=sizes)
        chosen = sources(trace, args.wrt)
        wrt = chosen[0] if len(chosen) == 1 else tuple(chosen)
        try:
            _compare_with_eager(module, args.function[1], trace, wrt, args.value,
                                at=f"at {text}")
        except ValueError as refusal:
            print(f"note: at {text} the module refuses the call, as its guards say: "
                  f"{one_line(refusal)}")


def _compare_with_eager(module, name, trace, wrt, with_value, at="at the traced inputs"):
    """Run the written module on the traced inputs and compare it with ``tape.gradient``.

    A module that takes arrays the function captured (rather than received)
    cannot be called from here; it is then left unchecked, and the user told.
    """
    known = named_values(trace)
    with warnings.catch_warnings():  # what generation warned of, said once
        warnings.simplefilter("ignore", tracer.GradientTapeWarning)
        expected = flatten(trace.tape.gradient(trace.result, wrt))
    _note_disconnected(name, trace, wrt, expected)
    needs = [n for n, _, _ in module.INPUTS]
    captured = [n for n in needs if n not in known]
    if captured:
        print(f"not checked against eager gradients: the module also takes "
              f"{', '.join(captured)}, which {name}() did not receive")
        return
    output = getattr(module, f"{name}_grad")(*(known[n].numpy() for n in needs))
    pairs = [(p, e.numpy()) for p, e in zip(flatten(output[1] if with_value else output),
                                            expected) if e is not None]
    _check_agreement(pairs, trace.result.dtype, at)


def _note_disconnected(name, trace, wrt, expected):
    """Note each source the result does not depend on (one whose path a conversion cut
    has had its warning)."""
    for source, gradient in zip(flatten(wrt), expected):
        if gradient is None and trace.tape.explain(trace.result, source).reason != "escaped":
            print(f"note: {_label(source)} does not reach the result of {name}(): its "
                  "gradient is None")


def _check_agreement(pairs, dtype, at):
    """Print the largest difference of the ``(produced, expected)`` pairs; refuse one
    beyond rounding."""
    difference = max((_difference(p, e) for p, e in pairs), default=0.0)
    scale = max((float(np.max(np.abs(e), initial=0.0)) for _, e in pairs), default=0.0)
    print(f"checked against eager gradients {at}: max difference {difference:.1e}")
    if not difference <= 1000 * np.finfo(dtype).eps * max(1.0, scale):
        raise CommandError(f"the generated module disagrees with the eager gradients by "
                           f"{difference:.1e}; please report this")


def _difference(produced, expected):
    """The largest entrywise difference; NaN and infinity agree with themselves only."""
    same = (produced == expected) | (np.isnan(produced) & np.isnan(expected))
    return float(np.max(np.where(same, 0.0, np.abs(produced - expected)), initial=0.0))


def _label(tensor):
    return tensor.name or "unnamed"


def _typed(name, tensor):
    return f"{name}: {_type_text(tensor)}"


def _type_text(tensor):
    sizes = (repr(d.size) if isinstance(d, tracer.Dim) else str(d) for d in tensor.shape)
    return f"{tensor.dtype.name}[{', '.join(sizes)}]"
