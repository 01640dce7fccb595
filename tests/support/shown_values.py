"""Whether what documentation shows is what the code gives.

Numbers shown with decimals are taken as rounded there: they match a value
within half a unit of their last digit.  Numbers shown without decimals
(``27``, ``0.``, ``2e-3``) match up to floating-point noise.  Places in a
file (``model.py:12``, ``<string>:3``) match any place, since where a
documentation's code runs is not where the documentation says it was saved.
"""

import ast
import re

import numpy as np

NOISE = 1e-12
"""Relative difference taken as floating-point noise."""

NUMBER = re.compile(r"(?<![\w.])(\d+)(?:\.(\d*))?(?:[eE]([-+]?\d+))?(?![\w.])")
PLACE = re.compile(r"(?:[\w.-]+\.(?:py|md)|<[\w-]+>):\d+")
ELLIPSIS = "..."


def tolerance(literal, value):
    """How far a value may be from ``value``, shown as the text ``literal``."""
    match = NUMBER.fullmatch(literal.lstrip("+-").removesuffix("j").removesuffix("J"))
    decimals = match.group(2) if match else None
    if not decimals:
        return NOISE * max(1.0, abs(value))
    exponent = int(match.group(3) or 0)
    return 0.5 * 10.0 ** (exponent - len(decimals)) + NOISE * abs(value)


def plain(value):
    """``value`` as Python numbers, strings, lists, tuples and dicts: a tensor as its
    ``numpy()`` value's ``tolist()`` (read quietly, as logging would)."""
    if callable(getattr(value, "numpy", None)) and not isinstance(value, np.ndarray):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def value_mismatch(shown, value):
    """Why ``value`` is not the Python literal ``shown`` (numbers as rounded there), or
    ``None`` when it is."""
    tree = ast.parse(shown.strip(), mode="eval").body
    return _mismatch(tree, plain(value), shown.strip())


def _mismatch(node, value, source):
    if isinstance(node, (ast.List, ast.Tuple)):
        kind = list if isinstance(node, ast.List) else tuple
        if type(value) is not kind or len(value) != len(node.elts):
            return f"{value!r} is not a {kind.__name__} of {len(node.elts)}"
        return next(filter(None, (_mismatch(n, v, source) for n, v in zip(node.elts, value))),
                    None)
    if isinstance(node, ast.Dict):
        keys = [ast.literal_eval(k) for k in node.keys]
        if not isinstance(value, dict) or list(value) != keys:
            return f"{value!r} does not have the keys {keys}"
        return next(filter(None, (_mismatch(n, value[k], source)
                                  for k, n in zip(keys, node.values))), None)
    if _is_number(node):
        return _number_mismatch(node, value, source)
    expected = ast.literal_eval(node)
    if type(value) is not type(expected) or value != expected:
        return f"{value!r} is not {expected!r}"
    return None


def _is_number(node):
    literals = [n for n in ast.walk(node) if isinstance(n, ast.Constant)]
    return literals and all(type(n.value) in (int, float, complex) for n in literals) and all(
        isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.USub, ast.UAdd, ast.Add,
                       ast.Sub)) for n in ast.walk(node))


def _number_mismatch(node, value, source):
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return f"{value!r} is not a number"
    expected = ast.literal_eval(node)
    allowed = max(tolerance(ast.get_source_segment(source, n), abs(expected))
                  for n in ast.walk(node) if isinstance(n, ast.Constant))
    if not abs(value - expected) <= allowed:
        return f"{value!r} is not {ast.get_source_segment(source, node)}"
    return None


def _tokens(text):
    """``text`` as numbers (with their tolerances) and single non-blank characters; places
    in a file as one token each."""
    tokens, position = [], 0
    text = PLACE.sub("\0", text)
    for match in NUMBER.finditer(text):
        tokens.extend(c for c in text[position:match.start()] if not c.isspace())
        number = float(match.group(0))
        tokens.append((number, tolerance(match.group(0), number)))
        position = match.end()
    tokens.extend(c for c in text[position:] if not c.isspace())
    return tokens


def _same(shown, printed):
    if isinstance(shown, tuple):
        return isinstance(printed, tuple) and abs(printed[0] - shown[0]) <= shown[1]
    return shown == printed


def _find(chunk, tokens, start, anchored):
    """Where ``chunk`` starts in ``tokens`` at or after ``start`` (exactly there when
    ``anchored``), or ``None``."""
    last = min(start, len(tokens) - len(chunk)) if anchored else len(tokens) - len(chunk)
    for at in range(start, last + 1):
        if all(_same(s, p) for s, p in zip(chunk, tokens[at:at + len(chunk)])):
            return at
    return None


def text_mismatch(shown, printed):
    """Why ``printed`` is not the ``shown`` text, or ``None`` when it is.

    Blanks are not compared (so wrapping and padding are free), numbers are
    compared as rounded in ``shown``, and a line ``...`` stands for any lines.
    """
    parts = re.split(r"(?m)^[ \t]*\.\.\.[ \t]*$", shown)
    tokens, position = _tokens(printed), 0
    for index, part in enumerate(parts):
        chunk = _tokens(part)
        if index == len(parts) - 1 and index > 0 and chunk:
            position = max(position, len(tokens) - len(chunk))  # the last part ends the text
        at = _find(chunk, tokens, position, anchored=index == 0 or index == len(parts) - 1)
        if at is None:
            return ("this part of the text shown is not what was printed there:\n"
                    f"{part.strip()}\n--- printed:\n{printed}")
        position = at + len(chunk)
    if position != len(tokens) and parts[-1].strip():
        return f"more was printed than the text shown:\n{printed}"
    return None


def _code_lines(text):
    """The lines of ``text`` that are not blank, each without a comment after its code,
    places in a file made alike."""
    lines = []
    for line in text.splitlines():
        if line.strip():
            code = line if line.lstrip().startswith("#") else re.sub(r"\s{2,}#\s.*$", "", line)
            lines.append(PLACE.sub("FILE:LINE", code.rstrip()))
    return lines


def excerpt_mismatch(excerpt, text):
    """Why the lines of ``excerpt`` are not lines of ``text``, in order (``...`` for any
    lines, comments after code ignored), or ``None`` when they are."""
    chunks, chunk = [], []
    for line in _code_lines(excerpt):
        if line.strip() == ELLIPSIS:
            chunks.append(chunk)
            chunk = []
        else:
            chunk.append(line)
    chunks.append(chunk)
    lines, position = _code_lines(text), 0
    for chunk in filter(None, chunks):
        at = _find(chunk, lines, position, anchored=False)
        if at is None:
            return "these lines are not in the text, in this order:\n" + "\n".join(chunk)
        position = at + len(chunk)
    return None
