"""The ``array_api`` target's spelling rules: a primitive's numpy spelling in the
standard's terms.

A module gets its namespace from its arguments (``xp, w, x = _check_inputs(w, x)``,
through ``array_api_compat.array_namespace``; numpy arrays beside one other library's
are converted into it, ``inputs``) and calls only the standard's functions:
``xp.sum(..., axis=, keepdims=)``, ``xp.matrix_transpose``, ``xp.astype``, never an
ndarray method or a numpy-only function.  A node's expression is spelled from the
graph (``in_the_standard``, which the target applies to a primitive's spelling): a
primitive the standard spells otherwise states it (``Primitive.array_api``), and each
numpy call left is spelled by the standard's function of the same name (``names``),
or by the rules of ``_Spelling.visit_Call`` for what every spelling may write (arrays
made on the arguments' device, copies, ``len``, typed scalars); one the standard
lacks is refused, naming the function, the user's line and the target
(``NOT_IN_THE_STANDARD`` says why).  The statements around the expressions are the
target's own: its door (``inputs``), constants (``constants``), loops and branches
(``loops``), long stacks (``stacks``) and the module's parts (``parts``).
"""

import ast
import copy
import dataclasses

from codegen.targets.array_api.names import DTYPES, NOT_IN_THE_STANDARD, standard_name
from codegen.targets.array_api.syntax import (DEVICE, dotted, is_number,
                                      reversals_flipped, takes_no_part, xp, xp_call)
from ir.primitive import not_in_the_standard


def in_the_standard(tree, names):
    """A copy of expression ``tree`` (a primitive's numpy spelling, its arguments slots)
    in the standard's terms, what ``names`` tells of its slots taken as known."""
    return _Spelling(names).visit(copy.deepcopy(tree))


@dataclasses.dataclass
class Names:
    """What is known of a spelling's slots: which hold Python ``numbers``, which loop
    counters (0-d integer arrays, which the standard's indexing takes only beside
    other integers) and which boolean arrays (``booleans``, which the standard's
    ``sum`` does not count)."""

    numbers: set = dataclasses.field(default_factory=set)
    counters: set = dataclasses.field(default_factory=set)
    booleans: set = dataclasses.field(default_factory=set)


class _Spelling(ast.NodeTransformer):
    """A primitive's numpy spelling rewritten in the standard's terms."""

    def __init__(self, names):
        self.names = names

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
        if isinstance(node.func, ast.Attribute) and dotted(node.func.value) != "xp":
            if node.func.attr in ("reshape", "astype"):
                return xp_call(node.func.attr, [node.func.value] + node.args, node.keywords)
            if node.func.attr in _REDUCTIONS:  # x.sum(axis=0) is the standard's sum of x
                return self._standard_call(f"np.{node.func.attr}", ast.Call(
                    node.func, [node.func.value] + node.args, node.keywords))
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
        if not _returns_tuple(node.value):
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
                    or isinstance(part, ast.Name) and part.id in self.names.counters):
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


def _returns_tuple(node):
    """Whether ``node`` is a Python sequence, not an array: a shape, or a call of the
    standard that returns a tuple."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    name = dotted(node.func) if isinstance(node, ast.Call) else None
    return name in ("xp.linalg.slogdet", "xp.linalg.eigh", "xp.linalg.qr", "xp.linalg.svd")


def _as_index(key):
    """An index written in brackets (``[:, 0]``) as the value Python makes of it."""
    if isinstance(key, ast.Tuple):
        return ast.Tuple([_as_index(k) for k in key.elts], ast.Load())
    if isinstance(key, ast.Slice):
        parts = [key.lower, key.upper, key.step]
        return ast.Call(ast.Name("slice"), [p or ast.Constant(None) for p in parts], [])
    return key


_REDUCTIONS = ("sum", "mean", "prod", "max", "min")
"""The reductions numpy spellings write as the array's method (``ir.primitive.method``)."""


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
