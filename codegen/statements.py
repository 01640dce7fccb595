"""What a user's statement calls the values it computes, read from its source text.

``z = x @ W + b`` calls its value ``z``; ``acc += x`` and ``loss: float = ...``
likewise; ``a, b = np.sin(x), np.cos(x)`` calls its two values ``a`` and ``b``.
A ``return`` line's value is the function's result.  A recording knows only
the innermost user line of each operation, not the line that called the
function (``loss = loss_fn(W, b)`` records on ``loss_fn``'s lines), so the
result is named from the function's own file: after the name every call of
the function there assigns its whole result to (``loss``), following
``return f(...)`` up to the caller's caller; failing that, after the
function, without the words that say it computes something (``loss_fn``,
``compute_loss`` and ``loss_of`` all give ``loss``).
"""

import ast
import functools
import linecache
from dataclasses import dataclass

from ir.names import identifier

_VERBS = ("compute_", "calculate_", "calc_", "evaluate_", "eval_", "get_")
_SUFFIXES = ("_function", "_func", "_fun", "_fn", "_of")
_NUMPY = ("np", "numpy")


@dataclass(frozen=True)
class Targets:
    """The names one run of a statement gives its values, in the order it computes them,
    and ``carried``: the argument positions at which its outermost operation may read
    a value an earlier run of it left, run again in a loop (``h = h - lr * g`` reads
    ``h`` at 0, ``acc += x`` too; a ``return`` line, where it reads a parameter).
    ``calls`` when the value is what a call of another function returns (not a numpy
    one): that function may record on lines of its own, after this line computed
    its arguments (``large = penalty(q * 2)`` records only ``q * 2`` here)."""

    names: tuple
    carried: frozenset = frozenset()
    calls: bool = False


@functools.lru_cache(maxsize=4096)
def statement_targets(place, in_body=False):
    """The ``Targets`` of the statement at ``place`` (an ``ir.SourceLocation`` of its first
    line), or ``None`` when it names no value (an expression, a subscript target, ...).

    In a loop's or branch's body (``in_body``) a ``return`` line is named only after
    what the function's callers assign, never after the function: there the function
    returning is often the body itself (``step``), called by the loop, not by name."""
    statement = _one_statement(place.text)
    if isinstance(statement, ast.Return):
        name = (_result_name(place.file, place.function, frozenset(), not in_body)
                if statement.value else None)
        parameters = _parameters(place.file, place.function, place.line)
        return Targets((name,), _carried(statement.value, parameters),
                       _calls(statement.value)) if name else None
    if isinstance(statement, ast.AugAssign):
        return _named(statement.target, frozenset({0}))
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        return _named(statement.target, _carried(statement.value, _ids(statement.target)),
                      statement.value)
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)):
            return _unpacked(target.elts, statement.value)
        return _named(target, _carried(statement.value, _ids(target)), statement.value)
    return None


def result_name(file, function):
    """The name of what ``function``, defined in ``file``, returns (see the module's
    docstring); ``None`` for a lambda, a comprehension or a special method."""
    return _result_name(file, function, frozenset(), True)


def function_value_name(function):
    """``function``'s name as the name of its value (``loss_fn`` -> ``loss``), or ``None``
    for names a reader would not take for a value (``<lambda>``, ``__call__``)."""
    if function.startswith("<") or (function.startswith("__") and function.endswith("__")):
        return None
    name = function.strip("_")
    name = next((name[len(v):] for v in _VERBS if name.startswith(v) and name != v), name)
    name = next((name[:-len(s)] for s in _SUFFIXES if name.endswith(s) and name != s), name)
    return identifier(name, "value")


def _one_statement(text):
    try:
        body = ast.parse(text.strip()).body
    except SyntaxError:
        return None
    return body[0] if len(body) == 1 else None


def _named(target, carried, value=None):
    if not isinstance(target, ast.Name):
        return None
    return Targets((target.id,), carried, _calls(value))


def _calls(value):
    return isinstance(value, ast.Call) and not _computes(value)


def _ids(target):
    return {target.id} if isinstance(target, ast.Name) else set()


def _carried(expression, names):
    """The argument positions at which ``expression``'s outermost operation reads one of
    ``names`` (``h - 2`` reads ``h`` at 0, ``x.dot(h)`` at 1)."""
    return frozenset(k for k, operand in enumerate(_operands(expression))
                     if isinstance(operand, ast.Name) and operand.id in names)


def _operands(expression):
    if isinstance(expression, ast.BinOp):
        return [expression.left, expression.right]
    if isinstance(expression, ast.UnaryOp):
        return [expression.operand]
    if isinstance(expression, ast.Compare):
        return [expression.left, *expression.comparators]
    if isinstance(expression, (ast.Subscript, ast.Attribute)):
        return [expression.value]
    if isinstance(expression, ast.Call):
        if isinstance(expression.func, ast.Attribute) and not _computes(expression):
            return [expression.func.value, *expression.args]  # a method: x.dot(h)
        return list(expression.args)
    return []


def _unpacked(targets, value):
    """``a, b = np.sin(x), np.cos(x) * 2``: one name per element, when every element is
    an operator or a numpy call (so each computes one value on this line) and none
    reads a name the statement assigns."""
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    if (not isinstance(value, (ast.Tuple, ast.List)) or len(value.elts) != len(targets)
            or len(names) != len(targets)
            or not all(_computes(element) for element in value.elts)
            or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value))):
        return None
    return Targets(tuple(t.id for t in targets))


def _computes(expression):
    if isinstance(expression, (ast.BinOp, ast.UnaryOp)):
        return True
    if not isinstance(expression, ast.Call):
        return False
    root = expression.func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in _NUMPY and root is not expression.func


@functools.lru_cache(maxsize=1024)
def _result_name(file, function, following, fallback):
    """``result_name``; ``following`` holds the functions whose results led here, so a
    recursion (``return f(x - 1)`` in ``f``) ends; without ``fallback``, ``None`` where no
    caller names the result."""
    following = following | {function}
    names = {_caller_name(file, site, following, fallback)
             for site in _call_sites(file).get(function, ())}
    if len(names) == 1 and None not in names:
        return names.pop()
    return function_value_name(function) if fallback else None


def _caller_name(file, site, following, fallback):
    """The name one call site gives a function's whole result, or ``None``."""
    statement, call, enclosing = site
    if isinstance(statement, ast.Return):
        if statement.value is call and enclosing is not None and enclosing not in following:
            return _result_name(file, enclosing, following, fallback)
        return None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    return target.id if statement.value is call and isinstance(target, ast.Name) else None


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@functools.lru_cache(maxsize=64)
def _call_sites(file):
    """Every call in ``file`` by the name it calls (``f(x)`` and ``obj.f(x)`` both call
    ``f``): ``(statement, call, enclosing function's name or None)``."""
    tree = _module(file)
    parents = {child: parent for parent in ast.walk(tree)
               for child in ast.iter_child_nodes(parent)}
    sites = {}
    for node in ast.walk(tree):
        callee = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(
            node, ast.Call) else None
        if callee is None:
            continue
        statement = _enclosing(node, parents, ast.stmt)
        function = _enclosing(statement, parents, _FUNCTIONS)
        sites.setdefault(callee, []).append(
            (statement, node, function.name if function is not None else None))
    return sites


def _parameters(file, function, line):
    """The parameter names of ``function``, the innermost definition of that name in
    ``file`` around ``line`` (none when the file cannot be read)."""
    definitions = [node for node in ast.walk(_module(file)) if isinstance(node, _FUNCTIONS)
                   and node.name == function and node.lineno <= line <= node.end_lineno]
    if not definitions:
        return set()
    arguments = max(definitions, key=lambda node: node.lineno).args
    named = arguments.posonlyargs + arguments.args + arguments.kwonlyargs
    return {a.arg for a in named + [arguments.vararg, arguments.kwarg] if a is not None}


@functools.lru_cache(maxsize=64)
def _module(file):
    """``file`` parsed (an empty module when it cannot be read or parsed)."""
    try:
        return ast.parse("".join(linecache.getlines(file)))
    except (SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])


def _enclosing(node, parents, kinds):
    node = parents.get(node)
    while node is not None and not isinstance(node, kinds):
        node = parents.get(node)
    return node
