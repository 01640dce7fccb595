"""Reading a document as its reader would: its Python blocks run in order, each checked
against what the text around it shows.

The blocks of one document share one namespace (a reader follows them that
way) and one working directory (blocks write files).  A block's ``# ->``
comments are checked against the values computed (``block_program``), and a
``text`` block right below it against what it prints (``shown_values``).  An
``excerpt of`` block is compared with its text instead of run.  Warnings are
errors: a document's code should not warn unless it says so.
"""

import contextlib
import importlib
import io
import os
import warnings

import pytest
from block_program import CHECK, program
from markdown_blocks import EXTRAS
from shown_values import excerpt_mismatch, text_mismatch, value_mismatch


class Reading:
    """One document's blocks, run in order in one namespace and one working directory;
    ``root`` is where the document's paths start."""

    def __init__(self, blocks, directory, root):
        self.blocks = blocks
        self.namespace = {"__name__": "__docs__"}
        self.directory = directory
        self.root = root
        self.done = 0
        self.failed = None

    def through(self, index):
        """Run the blocks above ``index`` that have not run (their own checks are their
        tests'), then check block ``index``; fail if a block above it failed to run (its
        names would be missing)."""
        for block in self.blocks[self.done:index]:
            self.done += 1
            if (self.failed is None and runs(block) and "excerpt of" not in block.notes
                    and not missing_extras(block)):
                self.run(block)
        if self.failed is not None:
            pytest.fail(f"{self.failed.where}, a block above this one, failed to run")
        self.done = max(self.done, index + 1)
        self.check(self.blocks[index])

    def check(self, block):
        """Fail, naming the lines, where ``block`` does not give what the text shows."""
        if "excerpt of" in block.notes:
            return self.check_excerpt(block)
        printed, wrong = self.run(block)
        if block.output is not None:
            mismatch = text_mismatch(block.output.text, printed)
            if mismatch:
                wrong.append(f"{block.output.where}: {mismatch}")
        if wrong:
            pytest.fail("\n".join(wrong), pytrace=False)

    def check_excerpt(self, block):
        what = block.notes["excerpt of"]
        if what.isidentifier() and what not in self.namespace:
            pytest.fail(f"{block.where}: an excerpt of {what}, which no block above made",
                        pytrace=False)
        text = (self.namespace[what] if what.isidentifier()
                else (self.root / what).read_text(encoding="utf-8"))
        mismatch = excerpt_mismatch(block.text, text)
        if mismatch:
            pytest.fail(f"{block.where}: not an excerpt of {what}: {mismatch}", pytrace=False)

    def run(self, block):
        """Execute ``block`` in the namespace; what it printed, and how the values its
        comments show differ from those it computed."""
        code, shown = program(block.text, str(self.root / block.path), block.line)
        wrong = []
        self.namespace[CHECK] = _checker(block, shown, wrong)
        printed, here = io.StringIO(), os.getcwd()
        os.chdir(self.directory)
        try:
            with contextlib.redirect_stdout(printed), warnings.catch_warnings():
                warnings.simplefilter("error")
                exec(code, self.namespace)
        except BaseException:
            self.failed = block
            raise
        finally:
            os.chdir(here)
        return printed.getvalue(), wrong


def _checker(block, shown, wrong):
    """``__shown__`` for ``block``: notes each value that differs from its comment."""
    def check(line, value):
        mismatch = value_mismatch(shown[line].literal, value)
        if mismatch:
            wrong.append(f"{block.path}:{line}: `{shown[line].comment}`, but {mismatch}")
        return value
    return check


def runs(block):
    """Whether ``block`` is meant to run (or be compared): not marked ``not run``."""
    return "not run" not in block.notes


def missing_extras(block):
    """The extras ``block`` requires that are not installed."""
    missing = []
    for extra in block.notes.get("requires", ()):
        try:
            for module in EXTRAS[extra]:
                importlib.import_module(module)
        except ImportError:
            missing.append(extra)
    return missing
