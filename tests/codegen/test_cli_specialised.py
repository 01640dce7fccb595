"""``tapegen grad`` says when the module it writes repeats a decision of the trace: one
``warning:`` line naming the line and the conversion, and the module's docstring."""

import pytest

import codegen
from codegen_support import cli_runner, succeeded

MODEL = '''\
import numpy as np


def branch(x):
    if np.sum(x) > -100.0:
        return np.sum(x ** 2)
    return np.sum(x ** 3)


def logged(x):
    y = np.sum(x ** 2)
    print(float(y) > 0)
    return y
'''


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    (tmp_path / "decisions.py").write_text(MODEL)
    return cli_runner(tmp_path, capsys, monkeypatch)


def test_grad_prints_the_decision_the_module_repeats(cli, tmp_path):
    out = succeeded(cli(["grad", "decisions.py:branch", "--arg", "x=3", "-o", "branch.py"]))
    warnings = [line for line in out.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, out
    assert warnings[0].startswith("warning: the module gradient_source writes repeats at every "
                                  "call the branch the recording took at decisions.py:5 "
                                  "(in branch): bool(t)"), warnings[0]
    docstring = " ".join(codegen.load(str(tmp_path / "branch.py")).__doc__.split())
    assert "Specialised to the recording: decisions.py:5 bool(t) (True)" in docstring


def test_grad_is_quiet_for_a_log_line_after_the_result(cli, tmp_path):
    out = succeeded(cli(["grad", "decisions.py:logged", "--arg", "x=3", "-o", "logged.py"]))
    assert "warning:" not in out, out
    assert "Specialised" not in codegen.load(str(tmp_path / "logged.py")).__doc__
