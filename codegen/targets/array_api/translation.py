"""The ``array_api`` target's spelling rules, and the module written from the numpy
target's text for what the emitter writes itself.

The module gets its namespace from its arguments (``xp, w, x = _check_inputs(w, x)``,
through ``array_api_compat.array_namespace``; numpy arrays beside one other library's
are converted into it, ``inputs``) and calls only the standard's functions:
``xp.sum(..., axis=, keepdims=)``, ``xp.matrix_transpose``, ``xp.astype``, never an
ndarray method or a numpy-only function.  A node's expression is spelled from the
graph (``in_the_standard``, which the target applies to a primitive's spelling): a
primitive the standard spells otherwise states it (``Primitive.array_api``), and each
numpy call left is spelled by the standard's function of the same name (``names``),
or by the rules of ``_Spelling.visit_Call`` for what codegen writes itself (arrays
made on the arguments' device, copies, ``len``, typed scalars); one the standard
lacks is refused, naming the function, the user's line and the target
(``NOT_IN_THE_STANDARD`` says why).  The statements around the
expressions (the door, constants made in the namespace on the arguments' device,
loops, index updates through ``array_api_extra.at``, which also serves immutable
arrays (JAX) and lazy ones (Dask)) are still rewritten from the numpy target's
module, statement by statement; long stacks are the emitter's (``stacks``).
"""

import ast
import copy
import dataclasses

from codegen.targets.array_api.helpers import HELPERS, helpers_called, imports_for
from codegen.targets.array_api.inputs import CHECK, namespace_statements, one_check_line
from codegen.targets.array_api.names import DTYPES, NOT_IN_THE_STANDARD, standard_name
from codegen.targets.array_api.loops import branches_selected, traceable_while_loops
from codegen.targets.array_api.syntax import (DEVICE, dotted, indentation, is_number,
                                      reversals_flipped, takes_no_part, xp, xp_call)
from ir.primitive import not_in_the_standard



def array_api_module(text, sequences=(), constants=None):
    """The array-API module equivalent to the numpy module ``text``, whose function takes
    the parameters named in ``sequences`` as lists of arrays and reads the module's
    arrays by ``constants`` (name to the expression that makes one in the namespace)."""
    lines = text.split("\n")
    start = next(k for k, line in enumerate(lines) if line.startswith("def "))
    opened = next(k for k in range(start, len(lines)) if lines[k].endswith(":"))
    end = next((k for k in range(opened + 1, len(lines))
                if lines[k] and not lines[k].startswith(" ")), len(lines))
    head, constants = lines[:start], constants or {}
    body = branches_selected(_translated_body(
        traceable_while_loops(one_check_line(lines[opened + 1:end])), constants,
        set(sequences)))
    helpers = "\n".join(lines[end:]).strip("\n").split("\n")
    called = helpers_called("\n".join(body + helpers))
    device = next((k for k, line in enumerate(body) if _binds_device(line)), None)
    if device is not None and (any("scipy.special." in HELPERS[name] for name in called)
                               or any("scipy.special." in line for line in body)):
        body.insert(device + 1, f"{indentation(body[device])}_check_scipy(xp)")
        called = helpers_called("\n".join(body + helpers))
    if not any(_mentions(line, DEVICE) for line in body
               if not line.lstrip().startswith("#") and not _binds_device(line)):
        body = [line for line in body if not _binds_device(line)]
    functions = [h for h in ["\n".join(helpers)] if h] + [HELPERS[name].rstrip("\n")
                                                      for name in called]
    head = _head(head, "\n".join(body + functions))
    function = "\n".join(lines[start:opened + 1] + body).rstrip("\n")
    return "\n\n\n".join(["\n".join(head).rstrip("\n"), function, *functions]) + "\n"


def _binds_device(line):
    return line.lstrip().startswith(f"{DEVICE} = ")


def _mentions(line, name):
    """Whether ``line`` has ``name`` as a word of its own (not inside another name)."""
    parts = line.split(name)
    return any(not (before[-1:].isidentifier() or before[-1:].isdigit())
               and not (after[:1].isidentifier() or after[:1].isdigit())
               for before, after in zip(parts, parts[1:]))


def _translated_body(lines, constants, sequences):
    out, names = [], Names(sequences)
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("del "):
            out.append(line)
            continue
        indent = indentation(line)
        if stripped.startswith("for "):  # (a step index: an int)
            names.steps.add(stripped[len("for "):].split(" in ", 1)[0])
        if stripped.startswith(CHECK):
            out.extend(namespace_statements(stripped, indent))
            continue
        out.append(indent + _translated_statement(stripped, constants, names))
    return out


def in_the_standard(tree, names):
    """A copy of expression ``tree`` (a primitive's numpy spelling, its arguments slots)
    in the standard's terms, what ``names`` tells of its slots taken as known."""
    return _Spelling({}, names).visit(copy.deepcopy(tree))


def _translated_statement(statement, constants, names):
    if statement == "else:":
        return statement
    if statement.startswith("elif "):
        return "el" + _translated_statement(statement[2:], constants, names)
    header = statement.endswith(":")
    tree = ast.parse(statement + (" pass" if header else ""))
    tree = _Spelling(constants, names).visit(tree)
    text = ast.unparse(tree)
    return text.split("\n")[0] if header else text


@dataclasses.dataclass
class Names:
    """What the statements so far tell of names: the parameters that are lists of arrays
    (``sequences``), loop steps (Python ints), Python ``numbers``, stacks of integers
    and the loop counters read back from them (0-d integer arrays), and boolean arrays
    (``booleans``, which the standard's ``sum`` does not count)."""

    sequences: set
    steps: set = dataclasses.field(default_factory=set)
    numbers: set = dataclasses.field(default_factory=set)
    integer_stacks: set = dataclasses.field(default_factory=set)
    counters: set = dataclasses.field(default_factory=set)
    booleans: set = dataclasses.field(default_factory=set)

    @property
    def integers(self):
        return self.steps | self.counters


class _Spelling(ast.NodeTransformer):
    """numpy's spelling of one statement rewritten in the standard's."""

    def __init__(self, constants, names):
        self.constants = constants
        self.names = names

    def visit_Assign(self, node):
        """A step written into an array, ``kept[step] = value``, as ``array_api_extra.at``
        writes it: in place where the array allows, else into a new one (JAX)."""
        self._note_integers(node)
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            at = ast.Call(ast.Attribute(ast.Name("xpx"), "at"),
                          [ast.Name(target.value.id), target.slice], [])
            update = ast.Call(ast.Attribute(at, "set"), [node.value], [])
            return ast.Assign([ast.Name(target.value.id, ast.Store())], update, lineno=0)
        return node

    def _note_integers(self, node):
        """Names an index may use as integers: Python numbers, and the steps a loop
        counter is read back from, out of its stack of integers (``np.empty((n,),
        np.int64)``)."""
        targets, value = node.targets[0], node.value
        pairs = [(targets, value)]
        if isinstance(targets, ast.Tuple) and isinstance(value, ast.Tuple):
            pairs = list(zip(targets.elts, value.elts))
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                continue
            if is_number(value, self.names.numbers):
                self.names.numbers.add(target.id)
            elif _integer_stack(value):
                self.names.integer_stacks.add(target.id)
            elif (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
                  and value.value.id in self.names.integer_stacks) or self._is_integer(value):
                self.names.counters.add(target.id)

    def _is_integer(self, node):
        """Whether ``node`` computes one integer: a typed one (``np.int64(1)``), a name
        known as one, or arithmetic of those and numbers."""
        if isinstance(node, ast.Call):
            return dotted(node.func) in ("np.int64", "np.int32") and len(node.args) == 1
        if isinstance(node, ast.Name):
            return node.id in self.names.counters
        if isinstance(node, ast.BinOp):
            return all(self._is_integer(n) or is_number(n, self.names.numbers)
                       for n in (node.left, node.right))
        return False

    def visit_Call(self, node):
        name = dotted(node.func)
        self.generic_visit(node)
        if name in (f"np.{d}" for d in DTYPES):  # a typed scalar: np.float64(2.0)
            return xp_call("asarray", node.args, [("dtype", xp(name[3:])),
                                                   ("device", ast.Name(DEVICE))])
        if name in _CREATION:
            return _created(name[len("np."):], node)
        if name == "np.copy":
            return xp_call("asarray", node.args, [("copy", ast.Constant(True))])
        if name in ("np.asarray", "np.array"):
            return self._asarray(node)
        if name == "len":  # (of an array, which the standard does not define)
            return ast.Subscript(ast.Attribute(node.args[0], "shape"), ast.Constant(0))
        if name is not None and name.startswith("scipy.special."):
            return self._numbers_as_arrays(node)
        if name is not None and name.startswith(("np.", "scipy.")):
            return self._standard_call(name, node)
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ("reshape", "astype")
                and dotted(node.func.value) != "xp"):
            return xp_call(node.func.attr, [node.func.value] + node.args, node.keywords)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        name = dotted(node)
        if name in (f"np.{d}" for d in DTYPES) or name in ("np.inf", "np.pi", "np.e", "np.nan"):
            return xp(name[3:])
        if node.attr == "T":
            return xp_call("matrix_transpose", [node.value], [])
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if dotted(node.value) == "np.s_":  # an index, as a tuple of slice objects
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if any(isinstance(p, ast.Constant) and p.value is None for p in parts):
                raise self.refused("an index with None", "a new axis in an index update")
            return _as_index(self._checked_key(node.slice))
        if not _returns_tuple(node.value, self.names.sequences):
            node.slice = self._checked_key(node.slice)
            if not isinstance(node.ctx, ast.Load):
                return node
            if any(isinstance(p, ast.Name) and p.id in self.names.counters
                   for p in node.slice.elts):
                return self._counter_read(node)
            return reversals_flipped(node)
        return node

    def _checked_key(self, key):
        """A basic index, with ``...`` closing it: the standard wants every axis named."""
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        for part in parts:
            if not (isinstance(part, (ast.Slice, ast.Constant)) or is_number(part, self.names.numbers)
                    or isinstance(part, ast.Name) and part.id in self.names.integers):
                raise self.refused("an index array", "integer-array indexing")
        if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
            return key
        return ast.Tuple(list(parts) + [ast.Constant(Ellipsis)], ast.Load())

    def _counter_read(self, node):
        """``x[i]`` for a loop counter ``i`` (a 0-d integer array, which the standard's
        indexing takes only beside other integers) as ``take`` along its axis."""
        parts = node.slice.elts
        counters = [k for k, p in enumerate(parts) if isinstance(p, ast.Name)
                    and p.id in self.names.counters]
        end = next(k for k, p in enumerate(parts) if isinstance(p, ast.Constant)
                   and p.value is Ellipsis)
        others = [p for k, p in enumerate(parts) if k not in counters]
        if len(counters) > 1 or not all(takes_no_part(p) for p in others):
            raise self.refused("an index array", "integer-array indexing")
        k = counters[0]
        axis = ast.Constant(k if k < end else k - len(parts))
        one = xp_call("reshape", [parts[k], ast.Tuple([ast.Constant(1)])], [])
        taken = xp_call("take", [node.value, one], [("axis", axis)])
        return xp_call("squeeze", [taken], [("axis", axis)])

    def visit_Name(self, node):
        if node.id in self.constants:  # a module-level array, made in the namespace
            return copy.deepcopy(self.constants[node.id])
        return node

    def _asarray(self, node):
        """An array of arrays is their stack; of numbers, an array on the device."""
        items = node.args[0] if node.args else None
        if isinstance(items, (ast.List, ast.Tuple)) and not all(
                is_number(e, self.names.numbers) or isinstance(e, (ast.List, ast.Tuple))
                for e in items.elts):
            return xp_call("stack", node.args, node.keywords)
        return xp_call("asarray", node.args,
                       list(node.keywords) + [("device", ast.Name(DEVICE))])

    def _numbers_as_arrays(self, node):
        """A scipy.special call (which scipy computes in its arguments' namespace), its
        number arguments made arrays like its array arguments (PyTorch's functions, to
        which scipy hands the call, take no Python numbers)."""
        arrays = [a for a in node.args if not is_number(a, self.names.numbers)]
        if not arrays or len(arrays) == len(node.args):
            return node
        like = ast.Attribute(arrays[0], "dtype")
        node.args = [xp_call("asarray", [a], [("dtype", like), ("device", ast.Name(DEVICE))])
                     if is_number(a, self.names.numbers) else a for a in node.args]
        return node

    def _standard_call(self, name, node):
        standard = standard_name(name)
        if standard is None:
            raise self.refused(name)
        args = list(node.args)
        if standard == "sum" and (isinstance(args[0], (ast.Compare, ast.UnaryOp)) or (
                isinstance(args[0], ast.Name) and args[0].id in self.names.booleans)):
            args[0] = xp_call("astype", [args[0], xp("int64")], [])  # (counting booleans)
        if standard in ("broadcast_to", "reshape") and args and is_number(args[0], self.names.numbers):
            args[0] = xp_call("asarray", [args[0]], [("device", ast.Name(DEVICE))])
        if (standard == "where" and len(args) == 3 and is_number(args[1], self.names.numbers)
                and is_number(args[2], self.names.numbers)):
            args[1] = xp_call("asarray", [args[1]], [("device", ast.Name(DEVICE))])
        return xp_call(standard, args, [(k.arg, k.value) for k in node.keywords])

    def refused(self, what, name=None):
        """The refusal of ``what`` (a call of ``name``, by default itself); the target
        adds the user's line, which the node it spells records."""
        return not_in_the_standard(what, NOT_IN_THE_STANDARD.get(
            name or what, "the array API standard has no such function"))


_CREATION = ("np.empty", "np.zeros", "np.ones", "np.full")
"""numpy's functions that make an array, which the standard's make on a device."""


def _created(standard, node):
    """``np.empty(shape, dtype)``, ``np.full(shape, value, dtype)``: the standard takes
    the dtype by name, and a device."""
    given = 2 if standard == "full" else 1
    keywords = list(node.keywords) + [ast.keyword("device", ast.Name(DEVICE))]
    if len(node.args) > given:
        keywords.append(ast.keyword("dtype", node.args[given]))
    elif not any(k.arg == "dtype" for k in node.keywords) and (
            standard != "full" or isinstance(node.args[1], ast.Constant)):
        keywords.append(ast.keyword("dtype", _numpys_default_dtype(node, standard)))
    return xp_call(standard, node.args[:given], keywords)


def _numpys_default_dtype(node, standard):
    """The dtype numpy gives an array made without one (float64, or for ``full`` the
    fill value's), which the namespace's default (float32 in PyTorch) may not be."""
    value = node.args[1].value if standard == "full" else 0.0
    name = {bool: "bool", int: "int64", complex: "complex128"}.get(type(value), "float64")
    return ast.Attribute(ast.Name("xp"), name)


def _returns_tuple(node, sequences):
    """Whether ``node`` is a Python sequence, not an array: a shape, a list parameter
    (``sequences``), or a call of the standard that returns a tuple."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    if isinstance(node, ast.Name):
        return node.id in sequences
    name = dotted(node.func) if isinstance(node, ast.Call) else None
    return name in ("xp.linalg.slogdet", "xp.linalg.eigh", "xp.linalg.qr", "xp.linalg.svd")


def _integer_stack(value):
    """Whether ``value`` makes a stack of integer steps, ``np.empty((n,), np.int64)``."""
    return (isinstance(value, ast.Call) and dotted(value.func) == "np.empty"
            and len(value.args) == 2 and isinstance(value.args[0], ast.Tuple)
            and len(value.args[0].elts) == 1
            and dotted(value.args[1]) in ("np.int64", "np.int32"))


def _as_index(key):
    """An index written in brackets (``[:, 0]``) as the value Python makes of it."""
    if isinstance(key, ast.Tuple):
        return ast.Tuple([_as_index(k) for k in key.elts], ast.Load())
    if isinstance(key, ast.Slice):
        parts = [key.lower, key.upper, key.step]
        return ast.Call(ast.Name("slice"), [p or ast.Constant(None) for p in parts], [])
    return key


def _head(lines, code):
    """The docstring, the imports and ``INPUTS``: the standard's imports for numpy's."""
    out = []
    for line in lines:
        if line == "import numpy as np":
            needed = [i for i in imports_for("\n".join(lines) + code) if i not in lines]
            out.extend(i for i in needed if i == "import math")
            compat = "array_namespace, device as _device_of"
            if "is_numpy_array(" in code:
                compat += ", is_numpy_array"
            out.append(f"from array_api_compat import {compat}")
            out.extend(i for i in needed if i != "import math")
            continue
        out.append(line)
    return out
