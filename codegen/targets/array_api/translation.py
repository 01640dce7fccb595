"""The ``array_api`` target's spelling rules, and the rewriting of what the emitter still
writes for numpy alone: loops, branches and long stacks.

The module gets its namespace from its arguments (``xp, w, x = _check_inputs(w, x)``,
through ``array_api_compat.array_namespace``; numpy arrays beside one other library's
are converted into it, ``inputs``) and calls only the standard's functions:
``xp.sum(..., axis=, keepdims=)``, ``xp.matrix_transpose``, ``xp.astype``, never an
ndarray method or a numpy-only function.  A node's expression is spelled from the
graph (``in_the_standard``, which the target applies to a primitive's spelling): each
numpy call by the standard's function of the same name (``names``) or a rule of
``calls``, and one the standard lacks is refused, naming the function, the user's
line and the target (``NOT_IN_THE_STANDARD`` says why).  The door, the constants
(``constants``) and the module around the function (``parts``) are written by the
target; the loops and branches the emitter writes, with their index updates through
``array_api_extra.at`` (which also serves immutable arrays (JAX) and lazy ones
(Dask)), and its long stacks are still rewritten from its lines, statement by
statement (``array_api_module``).
"""

import ast
import copy
import dataclasses

from codegen.targets.array_api.calls import SPECIAL_CALLS
from codegen.targets.array_api.helpers import helpers_called, imported
from codegen.targets.array_api.names import DTYPES, NOT_IN_THE_STANDARD, standard_name
from codegen.targets.array_api.stacks import stacks_written_in_place
from codegen.targets.array_api.syntax import (DEVICE, dotted, indentation, is_number,
                                      reversals_flipped, takes_no_part, xp, xp_call)
from ir.primitive import Unspellable


def array_api_module(lines, sequences, blocks):
    """The function body ``lines`` with what the emitter still writes for numpy alone
    rewritten in the standard's terms: its loops and branches, where it holds some
    (``blocks``), and its long stacks; and the names of the module the rewritten lines
    read (the device, helpers, imported modules).  ``sequences`` are the parameters
    taken as lists of arrays."""
    indented = body = [f"    {line}" if line else "" for line in lines]
    body = stacks_written_in_place(body)
    if body == indented:
        return lines, set()
    text = "\n".join(body)
    return [line[4:] for line in body], {DEVICE, *helpers_called(text), *imported(text)}


def _translated_body(lines, sequences):
    out, names = [], Names(sequences)
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("del "):
            out.append(line)
            continue
        indent = indentation(line)
        if stripped.startswith("for "):  # (a step index: an int)
            names.steps.add(stripped[len("for "):].split(" in ", 1)[0])
        out.append(indent + _translated_statement(stripped, names))
    return out


def in_the_standard(tree, names):
    """A copy of expression ``tree`` (a primitive's numpy spelling, its arguments slots)
    in the standard's terms, what ``names`` tells of its slots taken as known."""
    return _Spelling(names).visit(copy.deepcopy(tree))


def _translated_statement(statement, names):
    if statement == "else:":
        return statement
    if statement.startswith("elif "):
        return "el" + _translated_statement(statement[2:], names)
    header = statement.endswith(":")
    tree = ast.parse(statement + (" pass" if header else ""))
    tree = _Spelling(names).visit(tree)
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

    def __init__(self, names):
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
        """Whether ``node`` computes one integer: a typed one (``np.int64(1)``, or as
        the target writes a constant, ``xp.asarray(1, dtype=xp.int64, device=on)``), a
        name known as one, or arithmetic of those and numbers."""
        if isinstance(node, ast.Call):
            return (dotted(node.func) in ("np.int64", "np.int32") and len(node.args) == 1
                    or _typed_integer(node))
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
        if name in SPECIAL_CALLS:
            return SPECIAL_CALLS[name](self, node)
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

    def _standard_call(self, name, node):
        standard = standard_name(name)
        if standard is None:
            family = "scipy.special" if name.startswith("scipy.special.") else name
            raise self.refused(name, family)
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
        reason = NOT_IN_THE_STANDARD.get(name or what,
                                         "the array API standard has no such function")
        return Unspellable(what, (
            f"it has no spelling for target='array_api': {reason}. Generate the numpy "
            "target for this computation, or write it with the standard's functions"))


def _returns_tuple(node, sequences):
    """Whether ``node`` is a Python sequence, not an array: a shape, a list parameter
    (``sequences``), or a call of the standard that returns a tuple."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    if isinstance(node, ast.Name):
        return node.id in sequences
    name = dotted(node.func) if isinstance(node, ast.Call) else None
    return name in ("xp.linalg.slogdet", "xp.linalg.eigh", "xp.linalg.qr", "xp.linalg.svd")


def _typed_integer(call):
    """Whether ``call`` makes an integer as the target writes a constant one,
    ``xp.asarray(1, dtype=xp.int64, device=on)``."""
    return (dotted(call.func) == "xp.asarray" and bool(call.args) and is_number(call.args[0])
            and any(k.arg == "dtype" and dotted(k.value) in ("xp.int64", "xp.int32")
                    for k in call.keywords))


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
