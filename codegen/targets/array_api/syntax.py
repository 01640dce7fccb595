"""Small pieces of Python syntax the ``array_api`` target writes and reads: calls in the
namespace ``xp``, dotted names, Python numbers, and indexes that step backwards."""

import ast

DEVICE = "on"
"""The name generated code gives the arguments' device."""


def dotted(node):
    """``np.linalg.inv`` for the attribute chain that spells it, else ``None``."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def xp(name):
    """``xp.<name>``, ``name`` dotted or not (``linalg.inv``)."""
    node = ast.Name("xp")
    for part in name.split("."):
        node = ast.Attribute(node, part)
    return node


def xp_call(name, args, keywords):
    keywords = [k if isinstance(k, ast.keyword) else ast.keyword(k[0], k[1]) for k in keywords]
    return ast.Call(xp(name), list(args), keywords)


def is_number(node, numbers=frozenset()):
    """Whether ``node`` computes a Python number: constants, sizes (``n_batch``) and the
    ``numbers`` named so far."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, complex))
    if isinstance(node, ast.Name):
        return node.id.startswith("n_") or node.id in numbers
    if isinstance(node, ast.UnaryOp):
        return is_number(node.operand, numbers)
    if isinstance(node, ast.BinOp):
        return is_number(node.left, numbers) and is_number(node.right, numbers)
    return False


def reversals_flipped(node):
    """``x[..., ::-1]`` as ``xp.flip(x, axis=-1)[..., :]``: the standard allows negative
    steps, but PyTorch's tensors do not."""
    parts = node.slice.elts
    end = next(k for k, p in enumerate(parts) if isinstance(p, ast.Constant)
               and p.value is Ellipsis)
    axes, kept = [], []
    for k, part in enumerate(parts):
        step = _negative_step(part)
        if step is not None:
            before, after = parts[:k], parts[k + 1:end] if k < end else parts[k + 1:]
            axis = (sum(_takes_an_axis(p) for p in before) if k < end
                    else -1 - sum(_takes_an_axis(p) for p in after))
            axes.append(ast.Constant(axis))
            part = ast.Slice(None, None, None if step == 1 else ast.Constant(step))
        kept.append(part)
    if not axes:
        return node
    flipped = xp_call("flip", [node.value], [("axis", axes[0] if len(axes) == 1
                                                      else ast.Tuple(axes))])
    if all(takes_no_part(p) for p in kept):
        return flipped
    return ast.Subscript(flipped, ast.Tuple(kept), node.ctx)


def _negative_step(part):
    """``k`` for a whole axis read backwards with step ``-k`` (``::-k``), else ``None``."""
    if not isinstance(part, ast.Slice) or part.lower or part.upper or part.step is None:
        return None
    try:
        step = ast.literal_eval(part.step)
    except ValueError:
        return None
    return -step if isinstance(step, int) and step < 0 else None


def takes_no_part(part):
    """Whether an index part keeps its whole axis (``:`` and ``...``)."""
    if isinstance(part, ast.Slice):
        return not (part.lower or part.upper or part.step)
    return isinstance(part, ast.Constant) and part.value is Ellipsis


def _takes_an_axis(part):
    return not (isinstance(part, ast.Constant) and part.value in (None, Ellipsis))
