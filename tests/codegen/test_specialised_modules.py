"""Generated modules that repeat a Python decision of the recording say so.

``if np.sum(x) > 0:``, ``x[int(np.argmax(x))]``, ``range(int(n))``: the tape
records the branch, the index, the count the recorded values gave, and so
does every module generated from it, which is then wrong wherever the
decision goes the other way.  Eager gradients are right at the recorded point
and stay quiet (as TensorFlow's); generation warns at the user's line that
asked for the module, naming the conversion's line and kind, and the module's
docstring lists it.  Every test here fails on an unexpected
GradientTapeWarning.
"""

import inspect
import math
import os

import numpy as np
import pytest

import codegen
import tracer
from tracer import GradientTape

pytestmark = pytest.mark.filterwarnings("error::tracer.GradientTapeWarning")

FILE = os.path.basename(__file__)


def branch(x):
    if np.sum(x) > 0:  # decision
        return np.sum(x ** 2)
    return np.sum(x ** 3)


def largest(x):
    best = int(np.argmax(x))  # decision
    return x[best] ** 2 + np.sum(x)


def largest_item(x):
    best = np.argmax(x).item()  # decision
    return x[best] ** 3


def positive_list(x):
    signs = (x > 0).tolist()  # decision
    return sum(x[k] ** 2 for k, positive in enumerate(signs) if positive)


def counted_loop(x):
    total = x[0] * 0.0
    for k in range(int(np.sum(x > 0))):  # decision
        total = total + x[k] ** 2
    return total


def indexed_loop(x):
    total = x[0] * 0.0
    for k in range(np.sum(x > 0)):  # decision
        total = total + np.sin(x[k])
    return total


def compared_number(x):
    if float(np.max(x)) > 0.4:  # decision
        return np.sum(np.sin(x))
    return np.sum(np.cos(x))


PROGRAMS = {
    # program: (its conversion, the recorded point, a point where the decision differs)
    branch: ("bool(t)", [0.5, -0.2, 0.3, 0.1], [-0.5, -0.2, 0.3, 0.1]),
    largest: ("int(t)", [0.5, 0.1, 0.45, -0.3], [0.5, 0.1, 0.6, -0.3]),
    largest_item: ("t.item()", [0.5, 0.1, 0.45, -0.3], [0.2, 0.1, 0.6, -0.3]),
    positive_list: ("t.tolist()", [0.5, -0.1, 0.45, -0.3], [0.5, 0.1, -0.45, -0.3]),
    counted_loop: ("int(t)", [0.5, -0.1, 0.45, -0.3], [0.5, 0.1, 0.45, -0.3]),
    indexed_loop: ("an index or size", [0.5, -0.1, 0.45, -0.3], [0.5, 0.1, 0.45, 0.3]),
    compared_number: ("float(t)", [0.5, -0.1, 0.45, -0.3], [0.3, -0.1, 0.35, -0.3]),
}


def decision_line(program):
    """``file:line`` of the line of ``program`` marked ``# decision``."""
    lines, first = inspect.getsourcelines(program)
    offset = next(k for k, text in enumerate(lines) if "# decision" in text)
    return f"{FILE}:{first + offset}"


def central_differences(program, point, step=1e-6):
    point = np.asarray(point, float)
    gradient = np.zeros_like(point)
    for k in range(point.size):
        up, down = point.copy(), point.copy()
        up[k] += step
        down[k] -= step
        gradient[k] = (float(program(up)) - float(program(down))) / (2 * step)
    return gradient


def record(program, point):
    x = tracer.constant(np.asarray(point, float), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = program(x)
    return tape, y, x


def generate_warned(generator, tape, y, x):
    """The module ``generator`` writes, loaded, and its one warning; asserts the warning
    is attributed to this line's caller."""
    with pytest.warns(tracer.GradientTapeWarning) as caught:
        source = generator(tape, y, x)
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert os.path.basename(caught[0].filename) == FILE
    return source, str(caught[0].message)


@pytest.mark.parametrize("program", list(PROGRAMS), ids=lambda p: p.__name__)
def test_a_decision_is_warned_of_and_written_in_the_docstring(program):
    how, point, moved = PROGRAMS[program]
    tape, y, x = record(program, point)
    eager = tape.gradient(y, x)  # quiet, and right at the recorded point
    np.testing.assert_allclose(eager.numpy(), central_differences(program, point), atol=1e-6)
    source, message = generate_warned(codegen.gradient_source, tape, y, x)
    line = decision_line(program)
    assert message.startswith("the module gradient_source writes repeats at every call")
    assert f"at {line} (in {program.__name__}): {how}" in message
    assert "tracer.stop_gradient(t)" in message
    docstring = codegen.load(source).__doc__
    assert f"Specialised to the recording: {line} {how}" in " ".join(docstring.split())
    generated = codegen.load(source).gradient(np.asarray(moved))
    assert not np.allclose(generated, central_differences(program, moved), atol=1e-4)


def test_the_advice_fits_the_decision():
    messages = {}
    for program in (branch, largest, compared_number):
        tape, y, x = record(program, PROGRAMS[program][1])
        messages[program] = generate_warned(codegen.gradient_source, tape, y, x)[1]
    assert "the branch" in messages[branch] and "tracer.cond" in messages[branch]
    assert "which gave True" in messages[branch]
    assert "the integer" in messages[largest] and "tracer.fori_loop" in messages[largest]
    assert "which gave 0" in messages[largest]
    assert "the value" in messages[compared_number]
    assert "np.sqrt(t)" in messages[compared_number]


SECOND_ORDER = {
    "jacobian_source": (lambda tape, y, x: codegen.jacobian_source(tape, y, x), "jacobian"),
    "hessian_source": (lambda tape, y, x: codegen.hessian_source(tape, y, x), "hessian"),
    "hvp_source": (lambda tape, y, x: codegen.hvp_source(tape, y, x), "hvp"),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_every_generator_warns_of_the_decision(name):
    generator, function = SECOND_ORDER[name]
    _, point, moved = PROGRAMS[branch]
    tape, y, x = record(branch, point)
    source, message = generate_warned(generator, tape, y, x)
    assert message.startswith(f"the module {name} writes repeats at every call the branch")
    assert decision_line(branch) in message
    module = codegen.load(source)
    assert f"Specialised to the recording: {decision_line(branch)} bool(t) (True)" in " ".join(
        module.__doc__.split())
    moved = np.asarray(moved)
    arguments = [moved] + ([np.ones(4)] if function == "hvp" else [])
    result = getattr(module, function)(*arguments)
    exact = {"jacobian": 3 * moved ** 2, "hessian": np.diag(6 * moved), "hvp": 6 * moved}
    assert not np.allclose(result, exact[function])
    recorded = {"jacobian": 2 * moved, "hessian": 2 * np.eye(4), "hvp": np.full(4, 2.0)}
    np.testing.assert_allclose(result, recorded[function], rtol=1e-14)


def test_one_warning_per_line_and_kind():
    """A decision taken at every step of a Python loop is one line in the warnings and the
    docstring."""
    x = tracer.constant(np.array([0.3, 0.2, -0.1, 0.4]), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        total = x[0] * 0.0
        for k in range(4):
            if x[k] > 0:  # decision
                total = total + x[k] ** 2
    line = decision_line(test_one_warning_per_line_and_kind)
    source, message = generate_warned(codegen.gradient_source, tape, total, x)
    assert line in message
    docstring = " ".join(codegen.load(source).__doc__.split())
    assert docstring.count(line) == 1


def test_no_second_warning_where_the_cut_path_warning_names_the_conversion():
    """``np.sum(x) / math.sqrt(np.sum(x ** 2))``: generation warns once, that the gradient
    may miss the path through the number, as tape.gradient does."""
    x = tracer.constant(np.array([0.3, 0.2, -0.1]), name="x")
    with GradientTape(persistent=True) as tape:
        tape.watch(x)
        n = math.sqrt(np.sum(x ** 2))
        y = np.sum(x) / n
    with pytest.warns(tracer.GradientTapeWarning, match="may miss part"):
        tape.gradient(y, x)
    source, message = generate_warned(codegen.gradient_source, tape, y, x)
    assert "may miss part of the gradient" in message
    assert "Specialised to the recording" in codegen.load(source).__doc__


# --- what stays quiet -------------------------------------------------------------------

def _logged_after(x):
    y = np.sum(x ** 2)
    print(f"{float(y):.3f}", int(np.argmax(x)), bool(np.sum(x) > 0), y.tolist())
    return y


def _under_stop_recording(x, tape):
    with tape.stop_recording():
        positive = bool(np.sum(x) > 0)
    return np.sum(x ** 2) if positive else np.sum(x ** 3)


def _stopped(x):
    best = int(np.argmax(tracer.stop_gradient(x)))
    if np.sum(tracer.stop_gradient(x)) > 0:
        return x[best] ** 2 + np.sum(x)
    return np.sum(x)


QUIET = {
    "after_the_target": lambda x, tape, other: _logged_after(x),
    "under_stop_recording": lambda x, tape, other: _under_stop_recording(x, tape),
    "stop_gradient": lambda x, tape, other: _stopped(x),
    "no_source_reaches": lambda x, tape, other: (
        np.sum(x ** 2) if np.sum(other) > 0 and int(np.argmax(other)) == 1 else np.sum(x)),
}

GENERATORS = [codegen.gradient_source, codegen.jacobian_source, codegen.hessian_source,
              codegen.hvp_source]


@pytest.mark.parametrize("generator", GENERATORS, ids=lambda g: g.__name__)
@pytest.mark.parametrize("case", sorted(QUIET))
def test_quiet_where_no_decision_on_a_source_steered_the_recording(case, generator, capsys):
    x = tracer.constant(np.array([0.5, -0.2, 0.3]), name="x")
    other = tracer.constant(np.array([0.1, 0.7, 0.2]), name="other")
    with GradientTape(persistent=True) as tape:
        tape.watch([x, other])
        y = QUIET[case](x, tape, other)
    source = generator(tape, y, x)
    assert "Specialised" not in codegen.load(source).__doc__
    capsys.readouterr()


def test_the_quiet_cases_hold_their_decision_where_it_is_meant():
    """The stop_gradient program is specialised on purpose: its module gives the
    recorded branch's gradient at any point, and says nothing."""
    tape, y, x = record(_stopped, [0.5, -0.2, 0.3])
    module = codegen.load(codegen.gradient_source(tape, y, x))
    moved = np.array([0.1, 0.2, 0.9])
    np.testing.assert_allclose(module.gradient(moved), [1.2, 1.0, 1.0], rtol=1e-14)


def test_tape_gradient_stays_quiet_for_every_decision():
    for program, (_, point, _) in PROGRAMS.items():
        tape, y, x = record(program, point)
        tape.gradient(y, x)
        tape.jacobian(y, x)
