"""Loops and branches in array-API modules, rewritten so that ``jax.jit`` traces them
and Dask keeps them lazy.

A numpy module's while loop tests a value at each step and stops; a traced value has
none.  A loop with ``maximum_iterations`` becomes a Python loop of that many steps, as
XLA runs a bounded loop: the test only marks whether the loop is still running, the
carries keep their values once it is not (``where``), and the steps counted are the
running ones.  Where the test's value can be read (not under ``jax.jit``, not on Dask's
lazy arrays), the loop stops as soon as it fails.  The reverse loop of its gradient
then runs over every kept step, and a step after the last running one hands its
cotangents through unchanged.  A loop without a bound still stops when its test
fails, and says why when ``jax.jit`` meets it.  A ``cond`` computes both branches and
chooses with ``where``.

The rewriting reads the numpy target's lines as ``codegen.loop_blocks`` writes them;
a use of the kept steps it does not know is refused rather than left uncounted.
"""

import ast
import re

from codegen.targets.array_api.syntax import indentation
from codegen.targets.blocks import INDENT
from ir.primitive import Unspellable

_BOUNDED = re.compile(r"^(\s*)while (\w+) < (\d+):$")
_UNBOUNDED = re.compile(r"^(\s*)while True:$")
_LOCATION = re.compile(r"^\s*# (?:adjoint of )?(\S+:\d+)")


def traceable_while_loops(lines):
    """``lines`` of a numpy module's function with each while loop written to trace."""
    lines = list(lines)
    k = 0
    while k < len(lines):
        bounded, unbounded = _BOUNDED.match(lines[k]), _UNBOUNDED.match(lines[k])
        if bounded and int(bounded.group(3)) > 0:
            lines, k = _bounded(lines, k, bounded.group(1), bounded.group(2),
                                bounded.group(3))
        elif unbounded:
            _decided_by_value(lines, k, _location(lines, k))
        k += 1
    return lines


def _bounded(lines, header, indent, steps, maximum):
    """The loop at ``header`` as ``maximum`` steps, masked once its test fails; and its
    reverse loops masked alike."""
    inner = indent + INDENT
    end = block_end(lines, header)
    kept = []
    k = header - 2
    while k >= 0 and re.match(rf"^{indent}(\w+) = \[\]$", lines[k]):
        kept.insert(0, lines[k].strip().split(" = ")[0])
        k -= 1
    carries_at = k
    running = _fresh("running", lines)
    for j in range(header + 1, end):
        test = re.match(rf"^{inner}if not (\w+):$", lines[j])
        if test and lines[j + 1] == inner + INDENT + "break":
            lines[j:j + 2] = [f"{inner}{running} = np.logical_and({running}, {test.group(1)})",
                              f"{inner}if _stopped({running}):", f"{inner}{INDENT}break"]
            end += 1
            break
    step_count = lines.index(f"{inner}{steps} += 1", header)
    lines[step_count] = f"{inner}{steps} = {steps} + {running}.astype(np.int64)"
    lines[step_count - 1] = _masked_assignment(lines[step_count - 1], running)
    lines[carries_at] = _arrays_for_numbers(lines[carries_at])
    lines[header] = f"{indent}for _ in range({maximum}):"
    lines.insert(header, f"{indent}{running} = np.asarray(True)")
    end += 1
    for j in range(end, min(end + len(kept), len(lines))):
        stacked = re.match(rf"^{indent}(\w+) = np\.stack\(\1\) if \1 else .*$", lines[j])
        if stacked:
            lines[j] = f"{indent}{stacked.group(1)} = np.stack({stacked.group(1)})"
    _mask_reverse_loops(lines, end + len(kept), kept, steps, _location(lines, header))
    return lines, end


def _mask_reverse_loops(lines, start, kept, steps, location):
    """Each reverse loop over the ``kept`` steps of a masked loop, its carries held where
    ``step`` is past the ``steps`` that ran; any other use of them is refused."""
    names = "|".join(map(re.escape, kept))
    k = start
    while k < len(lines):
        line = lines[k]
        if re.match(r"^\s*del ", line):
            names_deleted = [n.strip() for n in line.strip()[4:].split(",")]
            kept_names = [n for n in names_deleted if n != steps]
            lines[k] = f"{indentation(line)}del {', '.join(kept_names)}"
            if not kept_names:
                del lines[k]
                continue
        reverse = re.match(rf"^(\s*)for (\w+) in range\(len\(({names})\) - 1, -1, -1\):$", line)
        if reverse:
            end = block_end(lines, k)
            body = [j for j in range(k + 1, end) if lines[j].strip()
                    and not lines[j].strip().startswith(("#", "del "))]
            if any(re.match(rf"^\s*\w+\[{reverse.group(2)}\] = ", lines[j]) for j in body):
                raise _refused(location, "its reverse loop writes stacked values")
            step = reverse.group(2)
            lines[body[-1]] = _masked_assignment(lines[body[-1]], f"{step} < {steps}")
            k = end
            continue
        if kept and re.search(rf"\b({names})\b", line) and not re.match(
                rf"^\s*(\w+ = ({names})\[\w+\]|del .*)$", line):
            raise _refused(location, "its kept steps are read where they cannot be masked")
        k += 1


def _masked_assignment(line, condition):
    """``a, b = x, y`` as ``a, b = np.where(condition, x, a), np.where(condition, y, b)``."""
    indent = indentation(line)
    statement = ast.parse(line.strip()).body[0]
    if not isinstance(statement, ast.Assign):
        raise Unspellable("a while loop's step", "it has no spelling for target='array_api': "
                          "its carries are not assigned where the rewriting looks")
    targets = statement.targets[0]
    names = targets.elts if isinstance(targets, ast.Tuple) else [targets]
    values = statement.value.elts if isinstance(targets, ast.Tuple) else [statement.value]
    masked = [f"np.where({condition}, {ast.unparse(v)}, {ast.unparse(n)})"
              for n, v in zip(names, values)]
    return f"{indent}{', '.join(ast.unparse(n) for n in names)} = {', '.join(masked)}"


def _arrays_for_numbers(line):
    """The initial carries with each Python number an array, which ``where`` can mask."""
    indent = indentation(line)
    statement = ast.parse(line.strip()).body[0]
    value = statement.value
    items = value.elts if isinstance(value, ast.Tuple) else [value]
    spelled = [f"np.asarray({ast.unparse(v)})" if isinstance(v, ast.Constant) else ast.unparse(v)
               for v in items]
    return f"{indent}{ast.unparse(statement.targets[0])} = {', '.join(spelled)}"


def _decided_by_value(lines, header, location):
    """An unbounded loop's test read through ``_decided``, which names the loop and
    ``maximum_iterations`` when ``jax.jit`` has no value to read."""
    inner = indentation(lines[header]) + INDENT
    for j in range(header + 1, block_end(lines, header)):
        test = re.match(rf"^{inner}if not (\w+):$", lines[j])
        if test:
            lines[j] = f"{inner}if not _decided({test.group(1)}, {location!r}):"
            return


def branches_selected(lines):
    """Each ``if``/``else`` of a ``cond`` as both branches computed, one after the other,
    and their results chosen with ``xp.where``: a branch chosen by a traced or lazy
    predicate is what ``jax.jit`` and Dask cannot do, and what ``where`` can."""
    out, k = [], 0
    while k < len(lines):
        line, indent = lines[k], indentation(lines[k])
        true_end = block_end(lines, k)
        if not (re.match(r"if \w+:$", line.strip()) and true_end < len(lines)
                and lines[true_end] == indent + "else:"):
            out.append(line)
            k += 1
            continue
        false_end = block_end(lines, true_end)
        true = branches_selected(lines[k + 1:true_end])
        false = branches_selected(lines[true_end + 1:false_end])
        last = max(j for j, text in enumerate(true) if text.strip() and
                   not text.strip().startswith("#"))
        names = [n.strip() for n in true[last].split("=")[0].split(",")]
        chosen = [f"{name}_if_true" for name in names]
        true[last] = f"{indentation(true[last])}{', '.join(chosen)} ={true[last].split('=', 1)[1]}"
        out += [text[len(INDENT):] if text.startswith(indent + INDENT) else text
                for text in true + false]
        pred = line.strip()[3:-1]
        out += [f"{indent}{name} = xp.where({pred}, {value}, {name})"
                for name, value in zip(names, chosen)]
        k = false_end
    return out


def block_end(lines, header):
    """The index of the first line after the block that line ``header`` opens."""
    depth = len(indentation(lines[header]))
    k = header + 1
    while k < len(lines) and (not lines[k].strip()
                              or len(indentation(lines[k])) > depth):
        k += 1
    return k


def _location(lines, k):
    for line in reversed(lines[:k + 2]):
        found = _LOCATION.match(line)
        if found:
            return found.group(1)
    return "an unknown line"


def _fresh(base, lines):
    text = "\n".join(lines)
    name, n = base, 0
    while re.search(rf"\b{name}\b", text):
        n += 1
        name = f"{base}_{n}"
    return name


def _refused(location, reason):
    return Unspellable(f"the while_loop computing {location}", (
        f"it has no spelling for target='array_api': {reason}. Generate the numpy target "
        "for this computation"))
