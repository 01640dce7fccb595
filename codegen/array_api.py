"""The ``array_api`` target: a generated module written against the array API standard,
so that one file runs on numpy, CuPy, PyTorch, JAX and Dask arrays alike.

The module gets its namespace from its arguments (``xp = _check_inputs(...)``,
through ``array_api_compat.array_namespace``) and calls only the standard's
functions: ``xp.sum(..., axis=, keepdims=)``, ``xp.matrix_transpose``,
``xp.astype``, never an ndarray method or a numpy-only function.  It is written
from the numpy target's module, statement by statement: each numpy call is
spelled by the standard's name for it (``codegen.array_api_names``), and a statement that
calls a function the standard lacks is refused, naming the function, the
user's line it computes and the target (``NOT_IN_THE_STANDARD`` there says why
for the functions tapegen spells).  Constants are made in the namespace, on the
arguments' device; index updates (the adjoint of indexing) go through
``array_api_extra.at``, which also serves immutable arrays (JAX) and lazy
ones (Dask).
"""

import ast
import re

from codegen.array_api_names import DTYPES, NOT_IN_THE_STANDARD, STANDARD_NAMES
from ir.primitive import Unspellable

SPECIAL_CALLS = {
    "np.swapaxes": lambda spelling, node: spelling._swapped(node),
    "np.linalg.svd": lambda spelling, node: spelling._svd(node),
    "np.copy": lambda spelling, node: spelling._copy(node),
    "np.asarray": lambda spelling, node: spelling._asarray(node),
    "np.array": lambda spelling, node: spelling._asarray(node),
    "len": lambda spelling, node: spelling._length(node),
    **{f"np.{name}": (lambda name: lambda spelling, node: spelling._created(node, name))(name)
       for name in ("empty", "zeros", "ones", "full")},
}
"""numpy calls the standard spells otherwise than by another name."""

DEVICE = "on"
"""The name generated code gives the arguments' device."""

_LOCATION = re.compile(r"^\s*# (?:adjoint of )?(\S+:\d+)")


def array_api_module(text, sequences=()):
    """The array-API module equivalent to the numpy module ``text``, whose function takes
    the parameters named in ``sequences`` as lists of arrays."""
    lines = text.split("\n")
    start = next(k for k, line in enumerate(lines) if line.startswith("def "))
    end = next((k for k in range(start + 1, len(lines))
                if lines[k] and not lines[k].startswith(" ")), len(lines))
    constants = set(re.findall(r"^(_[A-Z][A-Z_0-9]*) = ", "\n".join(lines[:start]), re.M))
    body = _translated_body(lines[start + 1:end], constants, set(sequences))
    if not any(re.search(rf"\b{DEVICE}\b", line) for line in body
               if not line.lstrip().startswith((f"{DEVICE} =", "#"))):
        body = [line for line in body if not line.lstrip().startswith(f"{DEVICE} = ")]
    uses_at = any(f"def {h}(" in text for h in SCATTERS) or any("xpx." in line for line in body)
    head = _head(lines[:start], constants, uses_at)
    return "\n".join(head + [lines[start]] + body + _helpers(lines[end:]))


def _translated_body(lines, constants, sequences):
    out, location, integers, numbers = [], None, set(), set()
    for line in lines:
        found = _LOCATION.match(line)
        if found:
            location = found.group(1)
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or stripped.startswith("del "):
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        loop = re.match(r"for (\w+) in ", stripped)
        if loop:  # (a step index: an int)
            integers.add(loop.group(1))
        if stripped.startswith("_check_inputs("):
            out.append(f"{indent}xp = {stripped}")
            out.append(f"{indent}{DEVICE} = _device_of({_first_argument(stripped)})")
            continue
        out.append(indent + _translated_statement(stripped, constants, location,
                                                  (sequences, integers, numbers)))
    return out


def _first_argument(call):
    return call[call.index("(") + 1:].split(",")[0].split(")")[0].strip().lstrip("*")


def _translated_statement(statement, constants, location, names):
    if statement == "else:":
        return statement
    if statement.startswith("elif "):
        return "el" + _translated_statement(statement[2:], constants, location, names)
    header = statement.endswith(":")
    tree = ast.parse(statement + (" pass" if header else ""))
    tree = _Spelling(constants, location, *names).visit(tree)
    text = ast.unparse(tree)
    return text.split("\n")[0] if header else text


class _Spelling(ast.NodeTransformer):
    """numpy's spelling of one statement rewritten in the standard's."""

    def __init__(self, constants, location, sequences, integers, numbers):
        self.constants = constants
        self.location = location
        self.sequences = sequences
        self.integers = integers
        self.numbers = numbers  # (names of Python numbers: sizes and what they compute)

    def visit_Assign(self, node):
        """A step written into an array, ``kept[step] = value``, as ``array_api_extra.at``
        writes it: in place where the array allows, else into a new one (JAX)."""
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, ast.Name) and _is_number(node.value, self.numbers):
            self.numbers.add(target.id)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            at = ast.Call(ast.Attribute(ast.Name("xpx"), "at"),
                          [ast.Name(target.value.id), target.slice], [])
            update = ast.Call(ast.Attribute(at, "set"), [node.value], [])
            return ast.Assign([ast.Name(target.value.id, ast.Store())], update, lineno=0)
        return node

    def visit_Call(self, node):
        name = _dotted(node.func)
        self.generic_visit(node)
        if name in (f"np.{d}" for d in DTYPES):  # a typed scalar: np.float64(2.0)
            return _xp_call("asarray", node.args, [("dtype", _xp(name[3:])),
                                                   ("device", ast.Name(DEVICE))])
        if name in SPECIAL_CALLS:
            return SPECIAL_CALLS[name](self, node)
        if name is not None and name.startswith(("np.", "scipy.")):
            return self._standard_call(name, node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("reshape", "astype"):
            return _xp_call(node.func.attr, [node.func.value] + node.args, node.keywords)
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        name = _dotted(node)
        if name in (f"np.{d}" for d in DTYPES) or name in ("np.inf", "np.pi", "np.e", "np.nan"):
            return _xp(name[3:])
        if node.attr == "T":
            return _xp_call("matrix_transpose", [node.value], [])
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if _dotted(node.value) == "np.s_":  # an index, as a tuple of slice objects
            return _as_index(self._checked_key(node.slice))
        if not _returns_tuple(node.value, self.sequences):
            node.slice = self._checked_key(node.slice)
        return node

    def _checked_key(self, key):
        """A basic index, with ``...`` closing it: the standard wants every axis named."""
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        for part in parts:
            if isinstance(part, ast.Constant) and part.value is None:
                raise self._refused("an index with None", "a new axis in an index")
            if not (isinstance(part, (ast.Slice, ast.Constant)) or _is_number(part, self.numbers)
                    or isinstance(part, ast.Name) and part.id in self.integers):
                raise self._refused("an index array", "integer-array indexing")
        if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
            return key
        return ast.Tuple(list(parts) + [ast.Constant(Ellipsis)], ast.Load())

    def visit_Name(self, node):
        if node.id in self.constants:  # a module-level array, made in the namespace
            return _xp_call("asarray", [node], [("device", ast.Name(DEVICE))])
        return node

    def _standard_call(self, name, node):
        standard = STANDARD_NAMES.get(name)
        if standard is None:
            family = "scipy.special" if name.startswith("scipy.special.") else name
            raise self._refused(name, family)
        args = list(node.args)
        if standard == "sum" and isinstance(args[0], (ast.Compare, ast.UnaryOp)):
            args[0] = _xp_call("astype", [args[0], _xp("int64")], [])  # (counting booleans)
        if standard in ("broadcast_to", "reshape") and args and _is_number(args[0], self.numbers):
            args[0] = _xp_call("asarray", [args[0]], [("device", ast.Name(DEVICE))])
        if (standard == "where" and len(args) == 3 and _is_number(args[1], self.numbers)
                and _is_number(args[2], self.numbers)):
            args[1] = _xp_call("asarray", [args[1]], [("device", ast.Name(DEVICE))])
        return _xp_call(standard, args, [(k.arg, k.value) for k in node.keywords])

    def _swapped(self, node):
        """``np.swapaxes(x, i, j)``: the last two, a matrix transpose; others moved."""
        x, i, j = node.args
        if sorted([ast.literal_eval(i), ast.literal_eval(j)]) == [-2, -1]:
            return _xp_call("matrix_transpose", [x], [])
        return _xp_call("moveaxis", [x, ast.Tuple([i, j], ast.Load()),
                                     ast.Tuple([j, i], ast.Load())], [])

    def _svd(self, node):
        """``np.linalg.svd(a, compute_uv=False)`` is the standard's ``svdvals``."""
        keywords = {k.arg: k.value for k in node.keywords}
        if isinstance(keywords.get("compute_uv"), ast.Constant):
            return _xp_call("linalg.svdvals", node.args, [])
        return _xp_call("linalg.svd", node.args, [(k, v) for k, v in keywords.items()])

    def _length(self, node):
        """``len(x)`` of an array, which the standard does not define: ``x.shape[0]``."""
        return ast.Subscript(ast.Attribute(node.args[0], "shape"), ast.Constant(0))

    def _created(self, node, standard):
        """``np.empty(shape, dtype)``, ``np.full(shape, value, dtype)``: the standard takes
        the dtype by name, and a device."""
        given = 2 if standard == "full" else 1
        keywords = list(node.keywords) + [ast.keyword("device", ast.Name(DEVICE))]
        if len(node.args) > given:
            keywords.append(ast.keyword("dtype", node.args[given]))
        return _xp_call(standard, node.args[:given], keywords)

    def _copy(self, node):
        return _xp_call("asarray", node.args, [("copy", ast.Constant(True))])

    def _asarray(self, node):
        """An array of arrays is their stack; of numbers, an array on the device."""
        items = node.args[0] if node.args else None
        if isinstance(items, (ast.List, ast.Tuple)) and not all(
                _is_number(e, self.numbers) or isinstance(e, (ast.List, ast.Tuple))
                for e in items.elts):
            return _xp_call("stack", node.args, node.keywords)
        return _xp_call("asarray", node.args, list(node.keywords) + [("device", ast.Name(DEVICE))])

    def _refused(self, what, name=None):
        """The refusal of ``what`` (a call of ``name``, by default itself), at its line."""
        reason = NOT_IN_THE_STANDARD.get(name or what,
                                         "the array API standard has no such function")
        where = f", computing {self.location}" if self.location else ""
        return Unspellable(f"{what}{where}", (
            f"it has no spelling for target='array_api': {reason}. Generate the numpy "
            "target for this computation, or write it with the standard's functions"))


def _returns_tuple(node, sequences):
    """Whether ``node`` is a Python sequence, not an array: a shape, a list parameter
    (``sequences``), or a call of the standard that returns a tuple."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    if isinstance(node, ast.Name):
        return node.id in sequences
    name = _dotted(node.func) if isinstance(node, ast.Call) else None
    return name in ("xp.linalg.slogdet", "xp.linalg.eigh", "xp.linalg.qr", "xp.linalg.svd")


def _is_number(node, numbers=frozenset()):
    """Whether ``node`` computes a Python number: constants, sizes (``n_batch``) and the
    ``numbers`` named so far."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex))
    if isinstance(node, ast.Name):
        return node.id.startswith("n_") or node.id in numbers
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand, numbers)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left, numbers) and _is_number(node.right, numbers)
    return False


def _as_index(key):
    """An index written in brackets (``[:, 0]``) as the value Python makes of it."""
    if isinstance(key, ast.Tuple):
        return ast.Tuple([_as_index(k) for k in key.elts], ast.Load())
    if isinstance(key, ast.Slice):
        parts = [key.lower, key.upper, key.step]
        return ast.Call(ast.Name("slice"), [p or ast.Constant(None) for p in parts], [])
    return key


def _dotted(node):
    """``np.linalg.inv`` for the attribute chain that spells it, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def _xp(name):
    node = ast.Name("xp")
    for part in name.split("."):
        node = ast.Attribute(node, part)
    return node


def _xp_call(name, args, keywords):
    keywords = [k if isinstance(k, ast.keyword) else ast.keyword(k[0], k[1]) for k in keywords]
    return ast.Call(_xp(name), list(args), keywords)


def _head(lines, constants, scatters):
    """The docstring, the imports and ``INPUTS``; module arrays as numpy arrays, which the
    function turns into the namespace's."""
    out = []
    for line in lines:
        if line == "import numpy as np":
            if constants:
                out.append(line)
            out.append("from array_api_compat import array_namespace, device as _device_of")
            if scatters:
                out.append("import array_api_extra as xpx")
            continue
        out.append(line)
    return out


def _helpers(lines):
    """The helpers after the function: ``_check_inputs`` in the standard's terms, and
    scatters through ``array_api_extra.at``."""
    text = "\n".join(lines)
    text = re.sub(r"# INPUTS' dtypes as numpy reads them.*?\n_DTYPES = .*?\n\s*", "", text,
                  flags=re.S)
    for numpy_text, standard_text in CHECK_REWRITES:
        text = text.replace(numpy_text, standard_text)
    for helper, source in SCATTERS.items():
        text = re.sub(rf"def {helper}\(.*?(?=\n\n\ndef |\Z)", source.rstrip("\n"), text,
                      flags=re.S)
    for helper in re.split(r"\n(?=def )", text):
        if "np." in helper:
            name = re.match(r"def (\w+)", helper)
            raise Unspellable(name.group(1) if name else "a helper", (
                "it has no spelling for target='array_api': the helper is written for numpy "
                "alone. Generate the numpy target for this computation"))
    return text.split("\n")


CHECK_REWRITES = (
    ("    for (name, shape, dtype), expected, value in zip(INPUTS, _DTYPES, args):\n",
     "    xp = array_namespace(*args)\n"
     "    for (name, shape, dtype), value in zip(INPUTS, args):\n"
     "        expected = getattr(xp, dtype)\n"),
    ("        if not isinstance(value, (np.ndarray, np.generic, int, float, complex)):\n"
     "            raise TypeError(f\"{name}: expected a numpy array, got {type(value).__name__}\")\n"
     "        array = np.asarray(value)\n",
     "        array = value\n"),
    ('    if wrong is not None:\n        raise ValueError(wrong)\n',
     '    if wrong is not None:\n        raise ValueError(wrong)\n    return xp\n'),
)
"""The numpy target's ``_check_inputs`` (the general one, which binds sizes) in the
standard's terms: the namespace from the arguments, dtypes by name, and the namespace
returned for the function to compute with."""

SCATTERS = {
    "_scatter": '''def _scatter(values, shape, index):
    """Zeros of ``shape`` with ``values`` written at ``index``."""
    xp = array_namespace(values)
    zeros = xp.zeros(shape, dtype=values.dtype, device=_device_of(values))
    return xpx.at(zeros, index).set(values)
''',
    "_scatter_add": '''def _scatter_add(values, shape, index):
    """Zeros of ``shape`` with ``values`` added at ``index`` (repeats add up)."""
    xp = array_namespace(values)
    zeros = xp.zeros(shape, dtype=values.dtype, device=_device_of(values))
    return xpx.at(zeros, index).add(values)
''',
}
"""The index updates of the numpy target, through ``array_api_extra.at``."""
