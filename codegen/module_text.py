"""The text of a generated module, put together: docstring, imports, ``INPUTS``, the
constant arrays the function reads, the function, and the helpers its body calls.

The layout of the function body comes from ``codegen.emit``; this places
it under its signature and the check of its arguments, and closes it with
the return statement.
"""

from codegen.emit import WIDTH
from codegen.input_check import CHECK_OUT, NUMPY_DOOR, check_inputs_source, inputs_text, out_text
from codegen.returns import return_text
from codegen.sizes import bindings, check_sizes_source, is_symbolic


def module_text(name, docstring, parameters, layout, result, guards=(), door=None, written=()):
    """The module whose function ``name`` takes ``parameters``, runs ``layout`` and
    returns ``result``; ``guards`` are what the trace assumed of symbolic sizes.  With a
    ``door`` (``codegen.input_check.Door``), its ``_check_inputs`` is that one, which
    binds sizes even if none is symbolic.  ``written`` names the new values the function
    writes into the buffers a caller may pass as ``out`` (a dict, by name)."""
    used = [layout.helpers[k] for k in sorted(layout.helpers)]
    imports = ["import numpy as np"] + [h.strip() for h in used if is_import(h)]
    checked = [f"*{p.name}" if p.is_list else p.name for p in parameters]
    opening = ["    " + _call_text("_check_inputs", checked + ["out=out"] * bool(written),
                                   indent="    ")]
    if written:
        opening.append("    out = out or {}")
    function = function_text(name, parameters, layout, result, opening,
                             ["*", "out=None"] if written else [])
    return assembled(docstring, imports, parameters, guards, door, layout.arrays.text(),
                     function, [h for h in used if not is_import(h)], written)


def assembled(docstring, imports, parameters, guards, door, constants, function, helpers,
              written=()):
    """A module's text from its parts: the ``imports`` (lines), ``INPUTS`` (and
    ``OUT_NAMES``, the ``written`` new values' names), the ``constants`` (text), the
    ``function``, its ``_check_inputs`` (through ``door``, checking ``guards``) and the
    ``helpers`` it calls (sources)."""
    arrays = [array for p in parameters for array in p.arrays]
    symbolic = door is not None or any(is_symbolic(a.shape) for a in arrays)
    out = bool(written)
    check = (check_sizes_source(arrays, guards, door or NUMPY_DOOR, out) if symbolic
             else check_inputs_source(out))
    definitions = ([function] + ([check] if arrays else []) + [CHECK_OUT] * out
                   + list(helpers))
    definitions = "\n\n\n".join(part.rstrip("\n") for part in definitions)
    constants = f"\n\n{constants}" if constants else ""
    tables = inputs_text(arrays) + (f"\n\n{out_text(written)}" if written else "")
    imports = "".join(f"{line}\n" for line in imports)
    return (f'"""{docstring}"""\n{imports}\n{tables}{constants}'
            f'\n\n\n{definitions}\n')


def is_import(helper):
    """A helper that is an import statement (``import scipy.special``) heads the module."""
    return helper.startswith(("import ", "from "))


def function_text(name, parameters, layout, result, opening, keywords=()):
    """The function: its ``opening`` lines (indented: the check of its arguments), the
    list parameters unpacked, the sizes bound, the layout's lines and the return;
    ``keywords`` are its parameters' text after theirs (``"*", "out=None"``)."""
    lines = [_call_text(f"def {name}", [p.name for p in parameters] + list(keywords)) + ":"]
    if parameters:
        lines += opening
        lines += ["    " + _unpacking(p, layout) for p in parameters if p.is_list]
        arrays = [array for p in parameters for array in p.arrays]
        lines += ["    " + line for line in bindings(arrays, "\n".join(layout.lines) +
                                                      return_text(result))]
        lines.append("")
    lines += [f"    {line}" if line else "" for line in layout.lines]
    lines.append(f"    {return_text(result)}")
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
