"""A primitive's facts are keywords of its constructor, read back as its attributes."""

import pytest

import ir
from ir.primitive import AS_WRITTEN, HOLOMORPHIC, REAL_ONLY


# Implementations that are not ufuncs, so that tracer never dispatches a ufunc to them.
def _add(x, y):
    return x + y


def _negative(x):
    return -x


def _add_vjp(g, out, x, y):
    return g


def _negative_vjp(g, out, x):
    return -g


def _joint_vjp(g, out, x, wanted):
    return [-g]


ADD = ir.Primitive("test_facts.add", _add, vjps=(_add_vjp, None))
NEGATIVE = ir.Primitive("test_facts.negative", _negative, vjps=(_negative_vjp,))
JOINT = ir.Primitive("test_facts.joint", _negative, joint_vjp=_joint_vjp)
JOINT_REAL_ONLY = ir.Primitive("test_facts.joint_real_only", _negative,
                               joint_vjp=_joint_vjp, complex_rules=REAL_ONLY)


def test_rules_are_read_back_as_given():
    assert ADD.vjps == (_add_vjp, None)
    assert ADD.vjp_rule(0) is _add_vjp and ADD.vjp_rule(1) is None


def test_a_joint_rule_is_as_written_unless_stated():
    assert (JOINT.complex_rules, JOINT_REAL_ONLY.complex_rules) == (AS_WRITTEN, REAL_ONLY)
    assert NEGATIVE.complex_rules == HOLOMORPHIC


def test_rules_in_two_forms_are_refused():
    with pytest.raises(ValueError, match="one form"):
        ir.Primitive("test_facts.two_forms", _negative, vjps=(_negative_vjp,),
                     joint_vjp=_joint_vjp)
