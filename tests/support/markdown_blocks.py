"""The fenced code blocks of a markdown file, with the notes that say how to check them.

A note is an HTML comment on the lines just above a block's opening fence
(blank lines between are allowed), invisible once the markdown is rendered:

- ``<!-- requires: scipy -->``: the block needs that extra of tapegen
  (``pip install 'tapegen[scipy]'``); without it the block is skipped.
- ``<!-- not run: why -->``: the block is not code that runs as it stands
  (another library's code, a fragment); the reason is required.
- ``<!-- excerpt of: what -->``: the block is lines of a text, in order, with
  ``...`` for lines left out: ``what`` is a file of the repository (a path)
  or a string a block before it made (a Python name).

A ``text`` block right below a ``python`` block, with only blank lines
between, is what that block prints.
"""

import dataclasses
import re

NOTE = re.compile(r"^\s*<!--\s*(requires|not run|excerpt of):\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")

EXTRAS = {
    "scipy": ("scipy",),
    "jax": ("jax",),
    "dask": ("dask.array", "distributed"),
    "viz": ("matplotlib",),
    "array-api": ("array_api_compat", "array_api_extra"),
}
"""Each extra of ``pyproject.toml`` a block may require, with the modules it installs."""


class MarkdownError(ValueError):
    """A markdown file whose blocks or notes cannot be read."""


@dataclasses.dataclass
class Block:
    """One fenced block: where it starts, its language, its text and its notes."""

    path: str
    line: int
    """The line (counted from 1) of the block's first line of code."""
    language: str
    text: str
    notes: dict
    """``{"requires": [...], "not run": reason, "excerpt of": what}``, as written."""
    closing: int
    """The line of the block's closing fence."""
    output: "Block | None" = None
    """The ``text`` block showing what this one prints, if one follows it."""

    @property
    def where(self):
        return f"{self.path}:{self.line}"


def read_blocks(path, text):
    """Every fenced block of the markdown ``text`` read from ``path``, in order, each
    ``python`` block holding the ``text`` block that shows its output."""
    lines = text.splitlines()
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        block, index = _read_block(path, lines, index, opening)
        blocks.append(block)
    _attach_outputs(blocks, lines)
    return blocks


def _read_block(path, lines, start, opening):
    """The block opening at ``start``, and the index of the line after its closing fence."""
    indent, language = opening.group(1), opening.group(2)
    end = start + 1
    while end < len(lines) and lines[end].strip() != "```":
        end += 1
    if end == len(lines):
        raise MarkdownError(f"{path}:{start + 1}: the block opened here is never closed")
    body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
            for line in lines[start + 1:end]]
    notes = _notes_above(path, lines, start)
    text = "".join(line + "\n" for line in body)
    return Block(path, start + 2, language, text, notes, closing=end + 1), end + 1


def _notes_above(path, lines, start):
    """The notes in the HTML comments just above line ``start`` (blank lines between)."""
    notes, index = {}, start - 1
    while index >= 0 and (not lines[index].strip() or COMMENT.match(lines[index])):
        note = NOTE.match(lines[index])
        if note:
            key, value = note.groups()
            if key == "requires":
                notes[key] = [_extra(path, index, name) for name in value.split(",")]
            elif not value:
                raise MarkdownError(f"{path}:{index + 1}: `{key}:` needs a value")
            else:
                notes[key] = value
        index -= 1
    return notes


def _extra(path, index, name):
    name = name.strip()
    if name not in EXTRAS:
        raise MarkdownError(f"{path}:{index + 1}: no extra {name!r}; tapegen's extras a "
                            f"block may require are {', '.join(EXTRAS)}")
    return name


def _attach_outputs(blocks, lines):
    """Give each ``python`` block the ``text`` block right below it, if there is one."""
    for block, after in zip(blocks, blocks[1:]):
        between = lines[block.closing:after.line - 2]
        if block.language == "python" and after.language == "text" and not any(
                line.strip() for line in between):
            block.output = after


def python_blocks(path, text):
    """The ``python`` blocks of a markdown file, in order."""
    return [block for block in read_blocks(path, text) if block.language == "python"]
