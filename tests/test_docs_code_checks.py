"""The checks that hold the documentation's code to its text: they catch what they
should, and let pass only rounding, blanks and places in a file."""

import numpy as np
import pytest
from block_program import BlockError, program
from doc_reading import Reading
from markdown_blocks import MarkdownError, python_blocks, read_blocks
from shown_values import excerpt_mismatch, text_mismatch, value_mismatch

import tracer

DOCUMENT = """\
# Title

<!-- requires: scipy, jax -->
```python
x = 1
```

```text
1
```

Prose.

```python
print(2)
```

Prose between.

```text
2
```

- an item:

  <!-- excerpt of: ir/graph.py -->
  ```python
  class Graph:
  ```
"""


def test_blocks_are_read_with_their_lines_notes_and_outputs():
    first, second, third = python_blocks("doc.md", DOCUMENT)
    assert (first.line, first.text, first.notes) == (5, "x = 1\n", {"requires": ["scipy", "jax"]})
    assert first.output.text == "1\n" and first.output.where == "doc.md:9"
    assert second.output is None  # prose stands between it and the text block
    assert (third.line, third.text, third.notes) == (28, "class Graph:\n",
                                                     {"excerpt of": "ir/graph.py"})
    assert [b.language for b in read_blocks("doc.md", DOCUMENT)] == [
        "python", "text", "python", "text", "python"]


@pytest.mark.parametrize(("note", "error"), [
    ("<!-- requires: scipi -->", "no extra 'scipi'"),
    ("<!-- not run: -->", "`not run:` needs a value"),
])
def test_a_wrong_note_is_refused(note, error):
    with pytest.raises(MarkdownError, match=error):
        read_blocks("doc.md", f"{note}\n```python\nx = 1\n```\n")


def test_an_unclosed_block_is_refused():
    with pytest.raises(MarkdownError, match="doc.md:2: the block opened here is never closed"):
        read_blocks("doc.md", "text\n```python\nx = 1\n")


@pytest.mark.parametrize(("shown", "value"), [
    ("[0.7269, 0.6397, 0.]", tracer.constant([0.72686198, 0.63970001, 0.0])),
    ("27", np.float64(27.000000000000004)),
    ("-2.1302117", -2.13021166),
    ("(2+4j)", np.complex128(2 + 4j)),
    ("(8, 3)", (8, 3)),
    ("['W', 'b', '2']", ["W", "b", "2"]),
    ("{'x': [1.5, 2.]}", {"x": np.array([1.5, 2.0])}),
    ("1.9e-15", 1.94e-15),
])
def test_a_value_shown_rounded_matches(shown, value):
    assert value_mismatch(shown, value) is None


@pytest.mark.parametrize(("shown", "value"), [
    ("[0.7269, 0.6397, 0.]", [0.7271, 0.6397, 0.0]),  # beyond the rounding shown
    ("[0.7269, 0.6397, 0.]", [0.7269, 0.6397, 1e-9]),  # 0. is zero
    ("[0.7269, 0.6397]", [0.7269, 0.6397, 0.0]),
    ("27", 27.4),
    ("(8, 3)", [8, 3]),
    ("['W', 'b', '2']", ["W", "b", 2]),
    ("(2+4j)", 2 - 4j),
    ("True", 1),
    ("1.9e-15", 2.0e-15),
])
def test_a_value_that_differs_is_caught(shown, value):
    assert value_mismatch(shown, value) is not None


PRINTED = """\
t1: f64[1,2] = matmul x W                         # <string>:5
t2: f64[1,2] = tanh t1                            # <string>:5
loss 0.123456
"""


@pytest.mark.parametrize("shown", [
    PRINTED,
    PRINTED.replace("<string>:5", "model.py:12"),
    "t1: f64[1,2] = matmul x W  # tour.py:5\nt2: f64[1,2] = tanh\n t1 # tour.py:5\nloss 0.1235\n",
    "t1: f64[1,2] = matmul x W  # tour.py:5\n...\n",
    "...\nloss 0.12346\n",
    "t1: f64[1,2] = matmul x W  # tour.py:5\n...\nloss 0.1235\n",
])
def test_printed_text_matches_up_to_blanks_places_rounding_and_omissions(shown):
    assert text_mismatch(shown, PRINTED) is None


@pytest.mark.parametrize("shown", [
    PRINTED.replace("tanh", "sinh"),
    PRINTED.replace("0.123456", "0.1234"),
    "t1: f64[1,2] = matmul x W  # tour.py:5\n",  # more was printed
    "...\nt1: f64[1,2] = matmul x W  # tour.py:5\n",  # not how it ends
    "t2: f64[1,2] = tanh t1  # tour.py:5\n...\n",  # not how it starts
    PRINTED + "more\n",  # less was printed
    "...\nloss 0.123456 more\n",
])
def test_printed_text_that_differs_is_caught(shown):
    assert text_mismatch(shown, PRINTED) is not None


MODULE = """\
def loss_grad(W, x):
    _check_inputs(W, x)

    # demo.py:20  z = x @ W
    z = x @ W
    return z


def _check_inputs(*args):
    if len(args) != 2:  # (the number of INPUTS)
        raise ValueError
"""


@pytest.mark.parametrize("excerpt", [
    MODULE,
    "def loss_grad(W, x):\n    _check_inputs(W, x)   # checked\n    ...\n    return z\n",
    "    # model.py:3  z = x @ W\n    z = x @ W\n",
    "...\n    if len(args) != 2:\n",
])
def test_an_excerpt_matches_lines_in_order(excerpt):
    assert excerpt_mismatch(excerpt, MODULE) is None


@pytest.mark.parametrize("excerpt", [
    "def loss_grad(W, x):\n    z = x @ W\n",  # a line left out without ...
    "    return z\n...\ndef loss_grad(W, x):\n",  # out of order
    "    # demo.py:20  z = W @ x\n",
    "def loss_grad(W, x):\n  _check_inputs(W, x)\n",  # indented otherwise
])
def test_an_excerpt_that_differs_is_caught(excerpt):
    assert excerpt_mismatch(excerpt, MODULE) is not None


BLOCK = """\
a = [1, 2]                # -> [1, 2]
if a:
    b = len(a)            # -> 2
len(a) + b
# -> 4

a.append(3)
a                         # -> [1, 2, 3]; prose after the value
"""


def test_a_block_calls_the_check_after_each_statement_it_shows():
    code, shown = program(BLOCK, "doc.md", 10)
    assert {line: s.literal for line, s in shown.items()} == {
        10: "[1, 2]", 12: "2", 14: "4", 17: "[1, 2, 3]"}
    seen = []
    exec(code, {"__shown__": lambda line, value: seen.append((line, value)) or value})
    assert seen == [(10, [1, 2, 3]), (12, 2), (14, 4), (17, [1, 2, 3])]


@pytest.mark.parametrize("block", [
    "for i in range(2):  # -> 1\n    pass\n",
    "x = 1\n\ny = 2\nif y:\n    pass\n# -> 2\n",
    "# -> 1\nx = 1\n",
])
def test_a_comment_that_shows_no_statement_is_refused(block):
    with pytest.raises(BlockError, match="doc.md:"):
        program(block, "doc.md", 1)


def test_a_block_keeps_the_document_lines():
    code, _ = program("x = 1\n\nraise ValueError\n", "doc.md", 40)
    with pytest.raises(ValueError) as raised:
        exec(code, {})
    assert raised.traceback[-1].lineno + 1 == 42


def test_a_reading_reports_what_the_text_shows_wrongly(tmp_path):
    document = ("```python\nx = 2\nx * 3   # -> 7\nprint(x)\n```\n\n```text\n3\n```\n\n"
                "```python\nsource = 'here'\n```\n\n"
                "<!-- excerpt of: source -->\n```python\nnot here\n```\n\n"
                "```python\nraise KeyError\n```\n\n```python\ny = x\n```\n")
    blocks = python_blocks("doc.md", document)
    reading = Reading(blocks, tmp_path, tmp_path)
    with pytest.raises(pytest.fail.Exception) as failed:
        reading.through(0)
    assert "doc.md:3: `# -> 7`, but 6 is not 7" in str(failed.value)
    assert "doc.md:8: this part of the text shown is not what was printed" in str(failed.value)
    with pytest.raises(pytest.fail.Exception, match="doc.md:17: not an excerpt of source"):
        reading.through(2)  # after running the block that makes ``source``
    with pytest.raises(KeyError):
        reading.through(3)
    with pytest.raises(pytest.fail.Exception, match="doc.md:21, a block above this one, failed"):
        reading.through(4)
