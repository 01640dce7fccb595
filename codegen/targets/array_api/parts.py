"""An array-API module put together from its parts, as the numpy target's is
(``codegen.module_text``): what differs is taken from the layout, not read back from
text.

The function opens with the namespace and the arguments from ``_check_inputs``
(``inputs.namespace_statements``), then their device where an expression reads it
(``on``), and ``_check_scipy(xp)`` where scipy.special computes.  The module imports
``array_api_compat`` and what its expressions and helpers read (``IMPORTS``), and
defines the helpers they call (``HELPER_FUNCTIONS``, the standard's in place of numpy's of the
same name); a helper written for numpy alone is refused.
"""

import ast

from codegen.module_text import assembled, function_text, is_import
from codegen.targets.array_api.constants import ListedArrays
from codegen.targets.array_api.helpers import (HELPER_FUNCTIONS, IMPORTS, READS, helper_source,
                                               with_callees)
from codegen.targets.array_api.inputs import DOOR_CALLS, namespace_statements
from codegen.targets.array_api.syntax import DEVICE
from ir.primitive import Unspellable


def module_text(name, docstring, parameters, layout, result, guards, door):
    """The module whose function ``name`` takes ``parameters``, runs ``layout`` (laid out
    for the array-API target) and returns ``result``, checked at ``door``."""
    own = {k: text for k, text in layout.helpers.items()
           if k not in HELPER_FUNCTIONS and not is_import(text)}
    numpy_only = sorted(k for k, text in own.items() if "np." in text)
    if numpy_only:
        raise Unspellable(numpy_only[0], (
            "it has no spelling for target='array_api': the helper is written for "
            "numpy alone. Generate the numpy target for this computation"))
    free = (layout.free | (layout.helpers.keys() & HELPER_FUNCTIONS.keys())
            | (_free_names(result) - set(layout.names.values())))
    checked = bool(parameters)
    helpers = _helpers(free, any(p.arrays for p in parameters), checked)
    reads = free.union(*(READS[h] for h in helpers))
    arrays = ListedArrays(layout.arrays.items())
    arguments = [f"*{p.name}" if p.is_list else p.name for p in parameters]
    opening = namespace_statements(arguments, "    ", DEVICE in free) if checked else []
    if checked and "scipy" in reads:
        opening.append("    _check_scipy(xp)")
    function = function_text(name, parameters, layout, result, opening)
    declared = [text.strip() for _, text in sorted(layout.helpers.items()) if is_import(text)]
    imports = _imports(reads, arrays.infinite)
    imports += [line for line in declared if line not in imports]
    sources = [own[k] for k in sorted(own)] + [helper_source(h) for h in helpers]
    return assembled(docstring, imports, parameters, guards, door, arrays.text(), function,
                     sources)


def _helpers(free, arrays, checked):
    """The helpers a module defines: those its statements call (``free``), its door's
    where it checks ``arrays``, ``_check_scipy`` where a checked function (``checked``)
    calls scipy.special, and those they call."""
    called = with_callees([*free, *(DOOR_CALLS if arrays else ())])
    scipy = any("scipy" in READS[h] for h in called) or "scipy" in free
    return with_callees([*called, "_check_scipy"]) if checked and scipy else called


def _imports(reads, infinite):
    """The imports of a module whose code reads the names ``reads``; ``infinite``: its
    constant lists hold ``math.inf`` or ``math.nan``."""
    lines = [IMPORTS["math"]] if "math" in reads or infinite else []
    compat = "array_namespace, device as _device_of"
    if "is_numpy_array" in reads:
        compat += ", is_numpy_array"
    lines.append(f"from array_api_compat import {compat}")
    return lines + [IMPORTS[name] for name in ("xpx", "scipy") if name in reads]


def _free_names(structure):
    """The names of the module the returned expressions (``codegen.returns.Leaf``) read."""
    if isinstance(structure, dict):
        structure = list(structure.values())
    if isinstance(structure, (list, tuple)):
        return set().union(*map(_free_names, structure))
    return {node.id for node in ast.walk(structure.expression) if isinstance(node, ast.Name)}
