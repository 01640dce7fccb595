"""The realistic programs of ``benchmarks/realistic_programs.py`` are never silently
wrong: each gradient, eager and generated, equals central differences of the
program, or tapegen refused or warned."""

import importlib.util
import pathlib

import numpy as np
import pytest

_PATH = pathlib.Path(__file__).parents[1] / "benchmarks" / "realistic_programs.py"
_SPEC = importlib.util.spec_from_file_location("realistic_programs", _PATH)
programs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(programs)

PROBLEMS = {name: problem for name, *problem in programs.problems(np.random.default_rng(0))}

EXPECTED = {
    ("normalised_by_python_number", "eager"): "warned",
    ("normalised_by_python_number", "generated"): "warned",
    ("scaled_by_float", "eager"): "warned",
    ("scaled_by_float", "generated"): "warned",
    ("branch_on_value", "generated"): "warned",
    ("pick_the_largest", "generated"): "warned",
}
"""The programs whose gradient is wrong somewhere, and how tapegen says so; every other
program and mode is right."""


@pytest.mark.parametrize("mode", ["eager", "generated"])
@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_a_realistic_program_is_right_or_says_why(name, mode):
    program, params, data = PROBLEMS[name]
    runs = {"eager": lambda: programs.eager(program, params, data),
            "generated": lambda: programs.generated(program, params, data,
                                                    np.random.default_rng(1))}
    verdict, detail = programs.judge(runs[mode], program, params, data)
    assert verdict == EXPECTED.get((name, mode), "ok"), detail
